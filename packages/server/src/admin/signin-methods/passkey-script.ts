/**
 * The pages' passkey buttons, served as /static/roost-passkeys.js (passkey-page.ts; admin/index.ts
 * registers it): a module that loads the connector Roost serves (/static/roost-client.js, which
 * carries @simplewebauthn/browser) and runs the same operations the API has, with the page's
 * cookie. On the sign-in page `[data-passkey-signin]` signs in (`passkeySignin`) and goes to its
 * `data-next`; on the account page `[data-passkey-register]` registers a passkey named by
 * `#passkey-name`, for the password in `#passkey-password` (a passkey is a way in:
 * users/signin-methods/passkey/passkey-ops.ts asks for it). Problems go into
 * `[data-passkey-message]`. Plain script: the pages' CSP allows scripts from Roost.
 */
export const PASSKEY_SCRIPT = `import { users } from '/static/roost-client.js';
const auth = users({ credentials: 'same-origin' });
const say = (button, text) => {
  const box = button.closest('[data-passkeys]')?.querySelector('[data-passkey-message]');
  if (box) { box.textContent = text; box.hidden = false; }
};
const failure = (error) =>
  error && error.name === 'NotAllowedError' ? 'The passkey was not used (cancelled or timed out).'
  : error && error.code === 'second_factor_required'
  ? 'This account also needs its authenticator code: sign in with the password.'
  : error && error.code === 'validation_failure' && error.fields && error.fields.length
  ? 'Your password is missing or wrong: it is needed to add a passkey.'
  : (error && error.message) || 'The passkey did not work.';
for (const button of document.querySelectorAll('[data-passkey-signin]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await auth.signinWithPasskey({ cookie: true });
      location.assign(button.dataset.next || '/users/signin');
    } catch (error) {
      say(button, failure(error));
      button.disabled = false;
    }
  });
}
for (const button of document.querySelectorAll('[data-passkey-register]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const name = document.getElementById('passkey-name')?.value.trim();
      const password = document.getElementById('passkey-password')?.value ?? '';
      await auth.registerPasskey({ password }, name || undefined);
      location.reload();
    } catch (error) {
      say(button, failure(error));
      button.disabled = false;
    }
  });
}
document.documentElement.setAttribute('data-passkeys', 'ready');
`;
