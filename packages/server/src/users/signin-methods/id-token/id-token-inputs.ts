import { z } from 'zod';
import { requiredText } from '../../../core/validation.js';

/** An ID token is a JWS in compact form: three base64url parts (Apple's and Google's are 1–2 kB). */
const ID_TOKEN_MAX = 16_000;

/** The input of `signinIdToken` (the same schema documents it in /openapi.json). */
export const idTokenInputs = {
  idTokenSignin: z.object({
    provider: requiredText(32),
    idToken: requiredText(ID_TOKEN_MAX).pipe(z.string().regex(/^[\w-]+\.[\w-]*\.[\w-]*$/, 'invalid')),
    /** The nonce the app gave the provider (for Apple: whose SHA-256 it gave, as Apple's SDKs do). */
    nonce: requiredText(200),
  }),
};

export type IdTokenSignin = z.input<typeof idTokenInputs.idTokenSignin>;
