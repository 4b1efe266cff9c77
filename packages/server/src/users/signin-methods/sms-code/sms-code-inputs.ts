import { z } from 'zod';
import { requiredText } from '../../../core/validation.js';

const PASSWORD_MAX = 256;
/** A typed number, before libphonenumber-js reads it (phone-numbers.ts refuses a longer one by name). */
const phone = requiredText(100);
/** A typed code: six digits, spaces allowed; anything else is just a wrong code. */
export const smsCode = z.string().trim().max(20);

/** The SMS method's operations' inputs (the same schemas describe them in /openapi.json). */
export const smsCodeInputs = {
  /** A number to add, with the password again (or a current app code: users/user-context.ts `reauthenticate`). */
  smsAdd: z.object({ phone, password: requiredText(PASSWORD_MAX).optional(), code: requiredText(20).optional() }),
  smsConfirm: z.object({ code: smsCode.pipe(z.string().min(1)) }),
  smsSignin: z.object({ phone }),
  smsSignin2: z.object({ phone, code: smsCode }),
  smsChallenge: z.object({ challenge: requiredText(200) }),
};

export interface PhoneAddition {
  phone: string;
  password?: string;
  code?: string;
}
export interface SmsConfirmation {
  code: string;
}
export interface PhoneInput {
  phone: string;
}
export interface PhoneSignin {
  phone: string;
  code: string;
}
export interface ChallengeInput {
  challenge: string;
}
