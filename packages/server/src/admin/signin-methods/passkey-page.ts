import { escapeHtml } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { textParam } from '../page-kit/page-parts.js';
import type { MethodPage } from './method-page.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';

const SCRIPT = '<script type="module" src="/static/roost-passkeys.js"></script>';

/**
 * The pages' part of passkeys (users/signin-methods/passkey/): on the account page each passkey
 * with a form to rename it and one to remove it (the password again), and a button that adds
 * one; on the sign-in page a button that signs in with one. The buttons are passkey-script.ts.
 */
export const passkeyPage: MethodPage = {
  async accountSection(users, caller, { path, csrf, proofInput }) {
    const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
    const rows = (await users.passkeys(caller)).map((p) => {
      const id = `<input type="hidden" name="passkey" value="${escapeHtml(p.id)}">`;
      const used = p.lastUsed ? `last used ${formatTime(p.lastUsed)} UTC` : 'not used yet';
      return (
        `<li><strong>${escapeHtml(p.name)}</strong> ` +
        `<span class="muted">added ${formatTime(p.created)} UTC, ${used}</span>` +
        `<form method="post" action="${path}">${hidden}${id}` +
        `<input name="name" aria-label="New name" maxlength="100" required value="${escapeHtml(p.name)}">` +
        '<button type="submit" name="renamePasskey$" value="1" class="btn secondary">Rename</button></form>' +
        `<form method="post" action="${path}">${hidden}${id}${proofInput}` +
        '<button type="submit" name="removePasskey$" value="1" class="btn secondary">Remove</button></form></li>'
      );
    });
    const list = rows.length ? `<ul class="passkeys">${rows.join('')}</ul>` : '<p>No passkeys yet.</p>';
    const add =
      '<div data-passkeys><input id="passkey-name" aria-label="Name of the new passkey" maxlength="100" ' +
      'placeholder="Name, for example: laptop"> ' +
      '<input id="passkey-password" type="password" aria-label="Your password" placeholder="Your password" ' +
      'maxlength="256" autocomplete="current-password"> ' +
      '<button type="button" class="btn btn-primary" data-passkey-register hidden>Add a passkey</button>' +
      `<p class="messages error" role="alert" data-passkey-message hidden></p></div>${SCRIPT}`;
    return {
      html:
        '<section class="card"><h2>Passkeys</h2><p>Sign in with your device\'s screen lock or a security key, ' +
        `no password typed.</p>${list}${add}</section>`,
    };
  },

  async accountAction(users, caller, body) {
    const id = textParam(body.passkey);
    if (body.removePasskey$ !== undefined) {
      await users.removePasskey(caller, { id, password: textParam(body.password) });
      return 'The passkey is removed.';
    }
    if (body.renamePasskey$ === undefined) return null;
    await users.renamePasskey(caller, { id, name: textParam(body.name) });
    return 'The passkey is renamed.';
  },

  signinPart: (next) =>
    '<div data-passkeys><button type="button" class="btn secondary" data-passkey-signin ' +
    `data-next="${escapeHtml(next)}" hidden>Sign in with a passkey</button>` +
    `<p class="messages error" role="alert" data-passkey-message hidden></p></div>${SCRIPT}`,

  scripts: { 'roost-passkeys.js': PASSKEY_SCRIPT },
};
