import { z } from 'zod';
import { requiredText } from '../../../core/validation.js';

const PASSWORD_MAX = 256;

/** The authenticator's operations' inputs (the same schemas describe them in /openapi.json). */
export const totpInputs = {
  totpEnrol: z.object({ challenge: requiredText(200).optional() }),
  totpConfirm: z.object({ code: requiredText(20), password: requiredText(PASSWORD_MAX) }),
};

/** The app's code as the second step of a sign-in (`token2`, `signin2`). */
export const totpCode = z.string().trim().max(20);

/** A TOTP secret for the signed-in account, or for the one a sign-in's `enrol` challenge names. */
export interface TotpEnrolment {
  challenge?: string;
}

/** The first code of a new authenticator, with the password again. */
export interface FactorConfirmation {
  code: string;
  password: string;
}
