import { escapeHtml } from '@roost/forms';

/**
 * The one page shell of every server-rendered page (admin and user pages): one stylesheet at
 * `/static/roost.css`, no script needed; `head` takes a form's `htmlHead()` when a page has one.
 */
export interface PageInit {
  title: string;
  /** Trusted HTML of the page's main part. */
  body: string;
  /** Trusted HTML for the head (form assets). */
  head?: string;
  /** Navigation links, shown in the header; the admin pages pass theirs. */
  nav?: readonly NavLink[];
  /** Messages flashed from the previous request, shown above the body. */
  messages?: readonly string[];
  /** The signed-in user's name, shown with a sign-out button when set. */
  user?: { name: string; signoutAction: string; csrfToken: string };
  /** Where the brand link in the header leads. Default `/admin`. */
  home?: string;
  /**
   * While an administrator impersonates an account (users/impersonation-ops.ts): the banner on
   * top of the page, with the one button that ends it.
   */
  impersonating?: { name: string; endAction: string; csrfToken: string };
}

/** A link of the header's navigation; `current` marks the page shown. */
interface NavLink {
  href: string;
  label: string;
  current?: boolean;
}

function navLink(l: NavLink): string {
  return `<a href="${escapeHtml(l.href)}"${l.current ? ' aria-current="page"' : ''}>${escapeHtml(l.label)}</a>`;
}

export function renderPage(page: PageInit): string {
  // On a phone the links fold into a menu (a <details>, so no script is needed); the stylesheet
  // shows one of the two below 40rem and the other above (admin/stylesheet.ts).
  const links = page.nav?.length ? `<ul>${page.nav.map((l) => `<li>${navLink(l)}</li>`).join('')}</ul>` : '';
  const nav = links
    ? `<nav class="site-nav" aria-label="Sections">${links}</nav>` +
      `<details class="site-menu"><summary>Menu</summary><nav aria-label="Sections">${links}</nav></details>`
    : '';
  const user = page.user
    ? `<form class="signout" method="post" action="${escapeHtml(page.user.signoutAction)}">` +
      `<span>${escapeHtml(page.user.name)}</span>` +
      `<input type="hidden" name="csrf" value="${escapeHtml(page.user.csrfToken)}">` +
      '<button type="submit">Sign out</button></form>'
    : '';
  const acting = page.impersonating
    ? '<div class="impersonation" role="alert"><p>You are acting as ' +
      `<strong>${escapeHtml(page.impersonating.name)}</strong>: an administrator's impersonation, recorded in the ` +
      `audit log.</p><form method="post" action="${escapeHtml(page.impersonating.endAction)}">` +
      `<input type="hidden" name="csrf" value="${escapeHtml(page.impersonating.csrfToken)}">` +
      '<button type="submit">End</button></form></div>'
    : '';
  const messages = page.messages?.length
    ? `<div class="messages" role="status">${page.messages.map((m) => `<p>${escapeHtml(m)}</p>`).join('')}</div>`
    : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(page.title)} · Roost</title>` +
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' +
    `<link rel="stylesheet" href="/static/roost.css">${page.head ?? ''}</head>` +
    `<body>${acting}<header class="site-header">` +
    `<a class="brand" href="${escapeHtml(page.home ?? '/admin')}">Roost</a>${nav}${user}</header>` +
    `<main><h1>${escapeHtml(page.title)}</h1>${messages}${page.body}</main></body></html>`
  );
}
