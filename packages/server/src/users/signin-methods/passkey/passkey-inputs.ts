import { z } from 'zod';
import { isWellFormed, requiredText } from '../../../core/validation.js';
import type { Reauthentication } from '../../user-inputs.js';

const PASSKEY_ID_MAX = 1024;
const PASSWORD_MAX = 256;

/**
 * A WebAuthn response as `@simplewebauthn/browser` makes it (RegistrationResponseJSON or
 * AuthenticationResponseJSON): its shape here, its contents checked by the library.
 */
export const webauthnResponse = z.object({
  id: requiredText(PASSKEY_ID_MAX),
  rawId: requiredText(PASSKEY_ID_MAX),
  type: z.literal('public-key'),
  response: z.record(z.string(), z.unknown()),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(40).optional(),
});

const passkeyName = requiredText(100).refine(isWellFormed, { message: 'invalid' });
/** The password or a current code again, as user-inputs.ts `reauthentication` takes them. */
const proof = { password: requiredText(PASSWORD_MAX).optional(), code: z.string().trim().max(20).optional() };

/** The passkey operations' inputs (the same schemas describe them in /openapi.json). */
export const passkeyInputs = {
  passkeyAssertion: z.object({ response: webauthnResponse }),
  passkeySigninStart: z.object({ challenge: requiredText(200).optional() }),
  passkeyRegistration: z.object({ response: webauthnResponse, name: passkeyName.optional() }),
  passkeyRemoval: z
    .object({ id: requiredText(PASSKEY_ID_MAX), ...proof })
    .refine((o) => o.password !== undefined || o.code !== undefined, { message: 'required', path: ['password'] }),
  passkeyRename: z.object({ id: requiredText(PASSKEY_ID_MAX), name: passkeyName }),
};

/** A passkey sign-in: the browser's answer to `passkeySigninOptions`. */
export interface PasskeyAssertion {
  response: Record<string, unknown>;
}

/** A new passkey: the browser's answer to `passkeyOptions`, and a name for it. */
export interface PasskeyRegistration {
  response: Record<string, unknown>;
  name?: string;
}

/** One of the own passkeys, by its id (`passkeys` lists them). */
interface PasskeyRef {
  id: string;
}

/** One of the own passkeys to remove, with the password or a current code again. */
export interface PasskeyRemoval extends PasskeyRef, Reauthentication {}

export interface PasskeyRename extends PasskeyRef {
  name: string;
}

/** Options for a passkey sign-in; with a sign-in's `challenge`, for its second step. */
export interface PasskeySigninStart {
  challenge?: string;
}
