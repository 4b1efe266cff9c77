import { defineErrors } from '../core/errors.js';

/** Codes of the data store service, with their default messages (listed in docs/errors.md). */
export const dataStoreErrors = defineErrors({
  item_not_found: { kind: 'not_found', message: 'There is no such item.' },
  item_exists: { kind: 'conflict', message: 'An item with this key exists already; nothing was stored.' },
  too_many_items: { kind: 'too_large', message: 'Too many items in one call.' },
});
