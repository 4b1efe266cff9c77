import { escapeHtml } from '@roost/forms';
import type { PageInit } from '../admin/layout.js';
import type { User } from '../users/index.js';
import { APPLICATIONS_PATH } from './idp-applications-page.js';

/** What an application asks that the account has not allowed it yet (the library's consent prompt). */
export interface ConsentRequest {
  clientId: string;
  /** OpenID scopes: what the application will know of the account. */
  scopes: string[];
  /** Single claims asked by name (a `claims` request). */
  claims: string[];
  /** The services the application will call as the account, with the scopes of each. */
  resources: Record<string, string[]>;
}

/** The words of each scope on the consent page (idp-provider.ts `CLAIMS` says what each carries). */
const SCOPE_WORDS: Record<string, string> = {
  openid: 'Who you are on Roost (an identifier that stays the same)',
  profile: 'Your name and user name',
  email: 'Your email address',
  groups: 'The groups your account is in',
  offline_access: 'Stay signed in while you are away',
};

function scopeItems(asked: ConsentRequest): string[] {
  const items = asked.scopes.map((s) => escapeHtml(SCOPE_WORDS[s] ?? s));
  if (asked.claims.length > 0) items.push(`These details: ${escapeHtml(asked.claims.join(', '))}`);
  for (const [resource, scopes] of Object.entries(asked.resources))
    items.push(
      `Use <strong>${escapeHtml(resource)}</strong> as you` +
        (scopes.length > 0 ? ` (${escapeHtml(scopes.join(', '))})` : ''),
    );
  return items;
}

/**
 * The consent page (idp-routes.ts): which application asks, what it will know and do, as whom;
 * Allow and Deny post back with the session's CSRF token. Shaped like the sign-in pages (a
 * narrow card in the public pages' shell).
 */
export function consentPage(input: {
  asked: ConsentRequest;
  clientName: string;
  user: User;
  action: string;
  csrf: string;
}): Omit<PageInit, 'nav' | 'user'> {
  const { asked, clientName, user } = input;
  const items = scopeItems(asked)
    .map((i) => `<li>${i}</li>`)
    .join('');
  const body =
    `<div class="card narrow consent"><p><strong>${escapeHtml(clientName)}</strong> asks to sign you in ` +
    `with your Roost account <strong>${escapeHtml(user.name)}</strong>.</p>` +
    (items ? `<p>It will be able to see:</p><ul>${items}</ul>` : '') +
    `<form method="post" action="${escapeHtml(input.action)}">` +
    `<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">` +
    '<div class="form-actions"><button type="submit" name="allow$" value="1" class="btn btn-primary">Allow</button> ' +
    '<button type="submit" name="deny$" value="1" class="btn secondary">Deny</button></div></form>' +
    '<p class="muted">Roost remembers your answer for this application and asks again only for more; ' +
    `<a href="${APPLICATIONS_PATH}">take it back</a> at any time.</p></div>`;
  return { title: `Sign in to ${clientName}`, body };
}
