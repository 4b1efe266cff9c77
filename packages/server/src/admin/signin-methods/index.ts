import type { MethodPage } from './method-page.js';
import { passkeyPage } from './passkey-page.js';
import { recoveryPage } from './recovery-page.js';
import { smsCodePage } from './sms-code-page.js';
import { totpPage } from './totp-page.js';

/**
 * The pages' parts of the sign-in methods, in the order of users/signin-methods/index.ts, but
 * the SMS part before recovery's: the second step's field gives recovery whatever the parts
 * before it did not take (pages/second-step-form.ts).
 */
export const METHOD_PAGES: readonly MethodPage[] = [totpPage, smsCodePage, recoveryPage, passkeyPage];
