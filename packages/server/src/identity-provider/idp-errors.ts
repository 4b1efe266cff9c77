import { defineErrors } from '../core/errors.js';

/** Codes of the identity provider's admin page (listed in docs/errors.md); the protocol's own are OAuth's. */
export const idpErrors = defineErrors({
  client_exists: { kind: 'conflict', message: 'An application has this id already.' },
  client_configured: {
    kind: 'forbidden',
    message: 'This application is in the configuration (identityProvider.clients): change it there.',
  },
});
