import { defineErrors } from '../core/errors.js';

/**
 * Codes of direct uploads and downloads (filestore/direct-ops.ts), with their default messages
 * (listed in docs/errors.md, "File store"). Kept apart from filestore-errors.ts: they concern the
 * upload's token, not a file.
 */
export const directErrors = defineErrors({
  direct_not_enabled: {
    kind: 'not_found',
    message: 'This store does not take direct uploads or give direct downloads (its `direct` setting).',
  },
  upload_not_found: { kind: 'not_found', message: 'There is no such upload of yours at this path.' },
  upload_used: { kind: 'conflict', message: 'This upload was finished or refused already; ask for a new one.' },
  upload_expired: { kind: 'conflict', message: 'This upload expired before it was finished; ask for a new one.' },
  upload_missing: { kind: 'conflict', message: 'Nothing was uploaded to this upload’s URL yet.' },
  upload_mismatch: {
    kind: 'invalid',
    message: 'The uploaded object differs from what was announced; it was removed.',
  },
});
