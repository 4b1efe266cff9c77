import { defineErrors } from '../core/errors.js';

/** Codes of the API keys (listed in docs/errors.md). */
export const keyErrors = defineErrors({
  invalid_api_key: { kind: 'unauthenticated', message: 'The API key is unknown or malformed.' },
  unknown_key: { kind: 'not_found', message: 'There is no such API key.' },
});
