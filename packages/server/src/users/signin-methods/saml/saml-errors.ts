import { defineErrors } from '../../../core/errors.js';

/** The error codes of SAML single sign-on (listed in docs/errors.md). */
export const samlErrors = defineErrors({
  unknown_saml_connection: { kind: 'not_found', message: 'There is no such SAML connection.' },
  saml_no_connection: {
    kind: 'not_found',
    message: 'No company sign-in is set up for the domain of this address.',
  },
  saml_refused: {
    kind: 'invalid',
    message:
      "The identity provider's answer was not accepted: its signature, issuer, audience or time of validity " +
      'is wrong, or it is not well-formed.',
  },
  saml_flow_failed: {
    kind: 'invalid',
    message: 'The sign-in was not started here, took too long, or its answer was used already: start again.',
  },
  saml_replayed: { kind: 'invalid', message: 'This answer of the identity provider was used already: start again.' },
  saml_unsolicited: {
    kind: 'forbidden',
    message: 'This connection takes no sign-in started at the identity provider: start it here.',
  },
});
