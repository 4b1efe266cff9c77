/* Message ids the content forms show, shared so each refusal reads the same everywhere. */
import { ContentError } from '../content/model.js';

export const msgSaved = 'OK. Data saved.';
export const msgObjectNotFound = 'Object not found';

const byCode: Readonly<Record<ContentError['code'], string>> = {
  unknown_type: 'Unknown object type',
  type_not_allowed: 'Object type not allowed.',
  not_found: msgObjectNotFound,
  invalid_position: 'Invalid position',
};

/**
 * The message id for a refused content operation; other errors are rethrown (a database failure
 * is not the user's mistake).
 *
 * @example
 * catch (e) { return fail(contentErrorMessage(e)); }
 */
export function contentErrorMessage(error: unknown): string {
  if (error instanceof ContentError) return byCode[error.code];
  throw error;
}
