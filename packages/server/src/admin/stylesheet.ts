/**
 * The one stylesheet of Roost's pages, served at `/static/roost.css`. Plain CSS, no framework:
 * readable on a laptop and on a phone (the layout folds below 40rem), light or dark as the system
 * asks (`prefers-color-scheme`): every colour is a variable of `:root`, the dark block below gives
 * the dark values, each pair of text and background keeping axe's 4.5:1 (test/admin/admin-sizes.browser.test.ts).
 */
export const roostCss = `
*,*::before,*::after{box-sizing:border-box}
:root{color-scheme:light dark;--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7fa;--card:#fff;
  --accent:#2457c5;--danger:#b42318;--ok:#1d7a46;--warn:#b54708;--on-accent:#fff;--ok-bg:#eaf6ef;--danger-bg:#fdecea;
  --code-bg:#eef1f6;--input-bg:#fff;--input-line:#8a94a6}
@media (prefers-color-scheme:dark){
  :root{--fg:#e6e9ef;--muted:#a3acbb;--line:#3a4150;--bg:#14171d;--card:#1d212a;--accent:#8ab4ff;--danger:#ff8a80;
    --ok:#6fd19a;--warn:#f5b062;--on-accent:#10141b;--ok-bg:#15291f;--danger-bg:#33191a;--code-bg:#2a303b;
    --input-bg:#151920;--input-line:#7d879a}
}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
.site-header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.75rem 1.5rem;
  background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;text-decoration:none;color:var(--fg)}
.site-nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.site-nav a{text-decoration:none}
.site-nav a[aria-current="page"]{font-weight:600;text-decoration:underline}
.signout{margin-left:auto;display:flex;align-items:center;gap:.5rem}
.site-menu{display:none}
.site-menu summary{cursor:pointer;padding:.25rem .75rem;border:1px solid var(--line);border-radius:.375rem;
  list-style:none}
.site-menu summary::-webkit-details-marker{display:none}
.site-menu summary::before{content:"\\2630  "}
.site-menu[open]{flex-basis:100%;order:3}
.site-menu ul{list-style:none;margin:.5rem 0 0;padding:0}
.site-menu li a{display:block;padding:.6rem .25rem;border-top:1px solid var(--line);text-decoration:none}
.site-menu a[aria-current="page"]{font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
.messages{border:1px solid var(--ok);background:var(--ok-bg);padding:.5rem 1rem;border-radius:.375rem;
  margin-bottom:1rem}
.messages p{margin:.25rem 0}
.error,.messages.error{border-color:var(--danger);background:var(--danger-bg);color:var(--danger)}
table{width:100%;border-collapse:collapse;background:var(--card)}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
button,.button{font:inherit;padding:.4rem .9rem;border:1px solid var(--accent);border-radius:.375rem;
  background:var(--accent);color:var(--on-accent);cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:var(--card);color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
input,select,textarea{font:inherit;max-width:100%}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem;margin-bottom:1rem}
.pager{display:flex;gap:1rem;align-items:center;margin:1rem 0}
/* Pages built with the form library (one column: label, input, errors, help) */
.roost-form .control-group{margin:0 0 .9rem}
.roost-form .control-label{display:block;font-weight:600;margin-bottom:.2rem}
.roost-form .control-label.required::after{content:" *";color:var(--danger)}
.form-control{width:100%;padding:.4rem .5rem;border:1px solid var(--line);border-radius:.375rem;
  background:var(--input-bg);color:var(--fg)}
textarea.form-control{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem}
.form-control.is-invalid,.is-invalid{border-color:var(--danger)}
.roost-form .control-group.error{background:none;border:0;color:inherit}
.roost-form .control-group.error .control-label{color:var(--danger)}
.invalid-feedback{color:var(--danger);font-size:.9rem;margin-top:.2rem}
.help-block{color:var(--muted);font-size:.875rem;margin:.2rem 0 0}
/* The form library's own colours (@roost/forms, its assets.ts, loaded after this sheet) follow the scheme */
main .roost-form .help-block{color:var(--muted)}
main .roost-form .invalid-feedback,main .roost-form .errorMsg,
main .roost-form label.required::after{color:var(--danger)}
main .roost-form .is-invalid,main .roost-form .error-summary{border-color:var(--danger)}
main .roost-form .error-summary a{color:var(--danger)}
.form-check{display:inline-flex;align-items:center;gap:.35rem;margin-right:1rem}
.form-actions{margin-top:1rem}
.alert{border:1px solid var(--ok);background:var(--ok-bg);padding:.5rem 1rem;border-radius:.375rem;margin-bottom:1rem}
.alert-warning{border-color:var(--danger);background:var(--danger-bg);color:var(--danger)}
.error-summary h4{margin:.25rem 0}
.error-summary a{color:var(--danger)}
.btn.secondary{background:var(--card);color:var(--accent)}
.btn.danger,.button.danger{background:var(--danger);border-color:var(--danger);color:var(--on-accent)}
/* Store and user pages */
h2{font-size:1.15rem;margin:0 0 .75rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.columns{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:0 1rem}
.card.narrow{max-width:34rem}
.card.confirm{border-color:var(--danger)}
.qr svg{width:12rem;height:12rem;display:block}
.recovery-codes{columns:2;font-size:1.05rem}
details.card>summary{cursor:pointer;font-weight:600}
details.card[open]>summary{margin-bottom:.75rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 .5rem}
.facts dt{font-weight:600;color:var(--muted)}
.facts dd{margin:0;overflow-wrap:anywhere}
code.key{background:var(--code-bg);padding:.05rem .3rem;border-radius:.25rem;overflow-wrap:anywhere}
.tag{display:inline-block;font-size:.75rem;padding:0 .35rem;border:1px solid var(--line);border-radius:.25rem;
  color:var(--muted)}
.muted,.empty{color:var(--muted)}
td.num{text-align:right;white-space:nowrap}
.breadcrumbs{margin:-.5rem 0 1rem;overflow-wrap:anywhere}
.tabs ul{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;margin:0 0 1rem;padding:0}
.tabs li>*{display:inline-block;padding:.3rem .75rem;border:1px solid var(--line);border-radius:1rem;
  background:var(--card);text-decoration:none}
.tabs [aria-current]{border-color:var(--accent);font-weight:600}
.generated-name{font-size:1.1rem}
/* The records table of a collection (collection-pages/): wide tables scroll, sort links in their headers */
.table-scroll{overflow-x:auto;margin-bottom:1rem}
.table-scroll table.responsive{margin-bottom:0}
table.records th a.sort{white-space:nowrap}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.responsive{margin-bottom:1rem}
.filter .control-group{display:inline-block;vertical-align:top;margin-right:.75rem;min-width:12rem}
@media (max-width:40rem){
  .facts{grid-template-columns:1fr}
  table.responsive td.num{text-align:left}
  .filter .control-group{display:block;margin-right:0}
  main{padding:1rem}
  .site-header{padding:.5rem 1rem}
  .site-nav{display:none}
  .site-menu{display:block}
  table.responsive thead{display:none}
  /* A sortable list keeps its sort links (and the select-all box) on a phone, as a row of links */
  table.responsive.sortable thead{display:block}
  table.responsive.sortable thead tr{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .75rem;
    padding:.25rem .5rem}
  table.responsive.sortable thead tr::before{content:"Sort by";color:var(--muted)}
  table.responsive.sortable thead th{border:0;padding:0}
  table.responsive.sortable thead th:not(:has(a,input)){display:none}
  table.responsive.sortable thead th:has(input){order:-1}
  table.responsive tr{display:block;border-bottom:1px solid var(--line);padding:.5rem 0}
  table.responsive td{display:block;border:0;padding:.15rem .5rem}
  table.responsive td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
table.responsive td[data-label=""]::before{content:none}
}
/* The management backend's pages (admin/pages): the three-column form layout, tiles, badges, mails */
.danger-link{color:var(--danger)}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:1rem}
.tile{display:flex;flex-direction:column;gap:.25rem;background:var(--card);border:1px solid var(--line);
  border-radius:.5rem;padding:1rem;text-decoration:none;color:var(--fg)}
.tile:hover{border-color:var(--accent)}
.dashboard{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem;margin-top:1rem}
.dashboard h2{font-size:1.1rem;margin:0 0 .5rem}
.tile .figure{font-size:2rem;font-weight:700;line-height:1.1;color:var(--accent)}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;font-size:.8rem;border:1px solid var(--line);
  white-space:nowrap}
.badge-active{border-color:var(--ok);color:var(--ok)}
.badge-disabled{border-color:var(--danger);color:var(--danger)}
.badge-pending{border-color:var(--warn);color:var(--warn)}
.mail-text{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);border:1px solid var(--line);padding:1rem;
  border-radius:.375rem}
.mail-html{width:100%;min-height:12rem;border:1px solid var(--line);border-radius:.375rem;background:#fff}
.tool-output{white-space:pre-wrap;margin:.5rem 0}
.btn-warning{background:var(--card);color:var(--accent)}
.btn-link{background:none;border:0;padding:0;color:var(--danger);text-decoration:underline}
.form-control{max-width:36rem;border-color:var(--input-line);color:var(--fg)}
.form-control:focus,.form-check-input:focus{outline:2px solid var(--accent);outline-offset:1px}
.roost-form .form-group.row{display:grid;grid-template-columns:minmax(9rem,15rem) minmax(0,1fr);gap:.25rem 1rem;
  align-items:start;padding:.6rem 0;border-bottom:1px solid var(--line)}
.roost-form .form-group.row>.col-md-3{grid-column:2}
.roost-form .form-group.row>.col-md-3:empty{display:none}
.col-form-label{font-weight:600;padding-top:.35rem}
.col-form-label.required::after{content:" *";color:var(--danger)}
[role=radiogroup],[role=group]{display:flex;flex-wrap:wrap;gap:.15rem 1.25rem;padding-top:.3rem}
.form-actions .row{display:grid;grid-template-columns:minmax(9rem,15rem) minmax(0,1fr);gap:1rem}
.form-actions button{margin:.25rem .35rem .25rem 0}
.search-form{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem 1rem}
.search-form>*{margin:0}
.search-form .control-group{margin:0;flex:1 1 12rem}
.search-form .form-actions{margin:0}
.search-form .help-block{display:none}
.inline-form{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.25rem .5rem}
.inline-form .control-group{margin:0}
.inline-form .control-label{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.inline-form .form-control{width:auto}
.inline-form .form-actions{margin:0}
.roost-sequence{list-style:none;margin:1rem 0 0;padding:0;border-top:1px solid var(--line)}
.roost-sequence li{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem;padding:.5rem 0;
  border-bottom:1px solid var(--line)}
.roost-sequence li>span{flex:1 1 16rem;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;
  font-size:.9rem}
.roost-sequence-delete{margin:0}
@media (max-width:40rem){
  .roost-form .form-group.row,.form-actions .row{grid-template-columns:minmax(0,1fr)}
  .roost-form .form-group.row>.col-md-3{grid-column:1}
  .form-actions .row>:first-child{display:none}
  .facts dd{margin-bottom:.35rem}
  .signout span{display:none}
  .tiles{grid-template-columns:repeat(2,minmax(0,1fr));gap:.5rem}
  .tile .figure{font-size:1.5rem}
}
/* An administrator's impersonation (admin/layout.ts): on top of every page while it lasts. */
.impersonation{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.5rem 1.5rem;margin:0;
  background:#7a2e0b;color:#fff}
.impersonation p{margin:0}
.impersonation button{font:inherit;padding:.25rem .9rem;border:2px solid #fff;border-radius:.375rem;
  background:#fff;color:#7a2e0b;font-weight:600;cursor:pointer}
.upload-progress{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:.5rem 0}
.upload-progress[hidden]{display:none}
.upload-progress progress{flex:1 1 10rem;height:1rem}
.upload-error{border:1px solid;padding:.5rem 1rem;border-radius:.375rem}
`;
