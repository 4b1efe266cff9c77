import { z } from 'zod';
import { looseBoolean, looseInt } from '../core/validation.js';
import { fieldRenames } from '../core/config-parts.js';
import { rulesSchema } from './collection-rules.js';

/** The inputs of the collections' operations, checked whoever calls (docs/collections.md). */

/** A list's parameters, as a query string brings them (text) or a program gives them. */
export const recordQueryInput = z
  .object({
    filter: z.string().max(4096).optional(),
    sort: z.string().max(500).optional(),
    perPage: looseInt.optional(),
    cursor: z.string().max(4096).optional(),
    total: looseBoolean.optional(),
    expand: z.string().max(500).optional(),
    fields: z.string().max(1000).optional(),
  })
  .strict();

/** A get's parameters. */
export const recordReadInput = recordQueryInput.pick({ expand: true, fields: true });

/** A collection as an administrator defines it (`POST /api/collections`, `PUT /api/collections/<name>`). */
export const definitionInput = z
  .object({
    schema: z.record(z.string(), z.unknown()),
    rules: rulesSchema,
    /** Old field name to new: values move with the change (collection-definitions.ts). */
    renames: fieldRenames.optional(),
  })
  .strict();

const write = z.discriminatedUnion('action', [
  z.object({ collection: z.string(), action: z.literal('create'), data: z.unknown() }).strict(),
  z
    .object({ collection: z.string(), action: z.enum(['update', 'replace']), id: z.string(), data: z.unknown() })
    .strict(),
  z.object({ collection: z.string(), action: z.literal('delete'), id: z.string() }).strict(),
]);

/** A batch: its writes in order, all or nothing. */
export const batchInput = z.object({ operations: z.array(write).min(1) }).strict();
