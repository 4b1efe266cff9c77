import { z } from 'zod';
import { requiredText } from '../../../core/validation.js';

/** As users/user-inputs.ts bounds a token and an identity. */
const TOKEN_MAX = 200;
const EMAIL_MAX = 254;

/** The mail sign-in's second operation's input (the same schema describes it in /openapi.json). */
export const mailCodeInputs = {
  mailedSignin: z
    .object({
      token: requiredText(TOKEN_MAX).optional(),
      identity: requiredText(EMAIL_MAX).optional(),
      code: z.string().trim().max(20).optional(),
    })
    .refine((o) => o.token !== undefined || (o.identity !== undefined && o.code !== undefined), {
      message: 'required',
      path: ['code'],
    }),
};

/** A sign-in by mail: the mailed link's token, or the identity with the mailed code. */
export interface MailedSignin {
  token?: string;
  identity?: string;
  code?: string;
}
