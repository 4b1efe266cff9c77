import { defineErrors } from '../core/errors.js';

/** Codes of the collections, with their default messages (listed in docs/errors.md). */
export const collectionErrors = defineErrors({
  unknown_collection: { kind: 'not_found', message: 'There is no collection of that name.' },
  record_not_found: { kind: 'not_found', message: 'There is no such record, or you may not see it.' },
  not_unique: { kind: 'conflict', message: 'Another record holds this value already; nothing was stored.' },
  invalid_rule: {
    kind: 'invalid',
    message: 'A rule is not an expression of the filter language this collection can run.',
  },
  invalid_schema: { kind: 'invalid', message: 'The schema is not one a collection can have.' },
  collection_exists: { kind: 'conflict', message: 'A collection of this name exists already.' },
  schema_change_refused: {
    kind: 'conflict',
    message: 'Some records would not fit the new schema; nothing was changed.',
  },
  collection_changing: {
    kind: 'conflict',
    message: "The collection's schema changed during the write, again and again; nothing was stored. Try again.",
  },
  too_many_operations: { kind: 'too_large', message: 'Too many operations in one batch.' },
});
