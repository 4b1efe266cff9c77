import { defineErrors } from '../core/errors.js';

/**
 * Codes of the file store, with their default messages (listed in docs/errors.md). The
 * original's messages `not_found`, `not_empty` and `storage_limit` are the codes here.
 */
export const fileStoreErrors = defineErrors({
  not_found: { kind: 'not_found', message: 'There is no such file or directory.' },
  not_empty: {
    kind: 'invalid',
    message: 'The directory is not empty; pass recursive: true to remove it with its contents.',
  },
  storage_limit: { kind: 'too_large', message: 'The file is larger than this store allows.' },
  invalid_path: { kind: 'invalid', message: 'The path is not allowed.' },
  not_a_directory: { kind: 'invalid', message: 'The path names a file, not a directory.' },
  not_a_file: { kind: 'invalid', message: 'The path names a directory, not a file.' },
});
