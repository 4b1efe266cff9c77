/**
 * The one stylesheet of Roost's pages, served at `/static/roost.css`. Plain CSS, no framework:
 * readable on a laptop and on a phone (the layout folds below 40rem).
 */
export const roostCss = `
*,*::before,*::after{box-sizing:border-box}
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7fa;--card:#fff;--accent:#2457c5;--danger:#b42318;--ok:#1d7a46}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
.site-header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;text-decoration:none;color:var(--fg)}
.site-nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.site-nav a{text-decoration:none}
.site-nav a[aria-current="page"]{font-weight:600;text-decoration:underline}
.signout{margin-left:auto;display:flex;align-items:center;gap:.5rem}
main{max-width:72rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
.messages{border:1px solid var(--ok);background:#eaf6ef;padding:.5rem 1rem;border-radius:.375rem;margin-bottom:1rem}
.messages p{margin:.25rem 0}
.error,.messages.error{border-color:var(--danger);background:#fdecea;color:var(--danger)}
table{width:100%;border-collapse:collapse;background:var(--card)}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
button,.button{font:inherit;padding:.4rem .9rem;border:1px solid var(--accent);border-radius:.375rem;background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:var(--card);color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
input,select,textarea{font:inherit;max-width:100%}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin-bottom:1rem}
.pager{display:flex;gap:1rem;align-items:center;margin:1rem 0}
@media (max-width:40rem){
  main{padding:1rem}
  .site-header{padding:.5rem 1rem}
  table.responsive thead{display:none}
  table.responsive tr{display:block;border-bottom:1px solid var(--line);padding:.5rem 0}
  table.responsive td{display:block;border:0;padding:.15rem .5rem}
  table.responsive td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
}
`;
