import { z } from 'zod';
import { requiredText } from '../../../core/validation.js';

/** A connection's id (core/config-signin.ts). */
const connection = requiredText(32);
/** A base64 SAMLResponse: a signed and encrypted one of many attributes is some tens of kB. */
const SAML_RESPONSE_MAX = 400_000;
/** Roost's RelayState: a random token (core/ids.ts `randomToken`). */
const relayState = requiredText(200);

/** The inputs of the SAML operations (users/signin-methods/saml/saml-ops.ts). */
export const samlInputs = {
  samlStart: z.object({ connection, redirect: requiredText(2000) }),
  samlAnswer: z.object({
    connection,
    SAMLResponse: requiredText(SAML_RESPONSE_MAX).pipe(z.string().regex(/^[A-Za-z0-9+/=\s]+$/, 'invalid')),
    RelayState: z.string().max(200).optional(),
  }),
  samlFinish: z.object({ connection, relay: relayState, browserRelay: z.string().max(200).optional() }),
  samlMetadata: z.object({ connection }),
  samlConnectionFor: z.object({ email: requiredText(254).pipe(z.string().email()) }),
};

export type SamlStart = z.input<typeof samlInputs.samlStart>;
export type SamlAnswer = z.input<typeof samlInputs.samlAnswer>;
export type SamlFinish = z.input<typeof samlInputs.samlFinish>;
export type SamlConnectionRef = z.input<typeof samlInputs.samlMetadata>;
export type SamlConnectionFor = z.input<typeof samlInputs.samlConnectionFor>;
