import { escapeHtml } from '@roost/forms';
import type { MethodPage } from './method-page.js';

/**
 * The pages' part of recovery codes (users/signin-methods/recovery/): a recovery code typed in
 * the second step's field, and the codes shown once. They exist only beside an authenticator
 * app, so their account-page forms are in its section (totp-page.ts), which shows the codes a
 * confirmed app brings with `recoveryCodesHtml`, as the sign-in page does after an enrolment.
 */
export const recoveryPage: MethodPage = {
  secondStep: {
    method: 'recovery',
    fieldName: 'a recovery code',
    prompt: 'one of your recovery codes',
    // Anything the methods before it did not take: a recovery code's shape is checked by the service.
    proof: (typed) => ({ recoveryCode: typed }),
  },
};

/** New recovery codes: shown once, with the way on. */
export function recoveryCodesHtml(codes: readonly string[], next: string): string {
  return (
    '<p>Your authenticator is set up. Keep these recovery codes somewhere safe: each signs you in once ' +
    'if you lose your phone. They are not shown again.</p>' +
    `<ul class="recovery-codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ul>` +
    `<p><a class="btn btn-primary" href="${escapeHtml(next)}">Continue</a></p>`
  );
}
