import type { MethodPage } from './method-page.js';
import { passkeyPage } from './passkey-page.js';
import { recoveryPage } from './recovery-page.js';
import { totpPage } from './totp-page.js';

/** The pages' parts of the sign-in methods, in the order of users/signin-methods/index.ts. */
export const METHOD_PAGES: readonly MethodPage[] = [totpPage, recoveryPage, passkeyPage];
