import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { CollectionFields } from './collection-fields.js';
import type { Rules } from './collection-rules.js';
import { readSchema, type CollectionSchema } from './collection-schema.js';
import { collectionErrors } from './collections-errors.js';
import { recordCheck } from './record-validator.js';

/**
 * One collection as the service holds it while it runs: its definition, and what is made of it
 * once per version (the fields, the write check). Replaced whole when the schema changes, so a
 * write in flight keeps the version it started with.
 */
export interface CollectionState {
  readonly name: string;
  readonly schema: CollectionSchema;
  readonly rules: Rules;
  readonly version: number;
  readonly created: string;
  readonly updated: string;
  readonly fields: CollectionFields;
  readonly indexes: ReadonlyArray<readonly string[]>;
  /** Checks a record's data against the schema; answers it as stored (defaults filled in). */
  readonly check: (input: unknown) => Record<string, unknown>;
}

/** The state of a definition; an `invalid_schema` failure naming every problem when the schema is not one. */
export function collectionState(
  ajv: Ajv2020,
  definition: { name: string; schema: unknown; rules: Rules; version: number; created: string; updated: string },
): CollectionState {
  const read = readSchema(definition.name, definition.schema);
  if (!read.ok) {
    throw collectionErrors.invalid_schema({
      fields: read.problems.map(([path, reason]) => [path ? `schema.${path}` : 'schema', reason]),
    });
  }
  let check: CollectionState['check'];
  try {
    check = recordCheck(ajv, read.value.schema);
  } catch (err) {
    // What the subset lets through but Ajv's strict mode refuses (a `default` the type refuses, ...).
    throw collectionErrors.invalid_schema({ fields: [['schema', err instanceof Error ? err.message : String(err)]] });
  }
  return {
    name: definition.name,
    schema: read.value.schema,
    rules: definition.rules,
    version: definition.version,
    created: definition.created,
    updated: definition.updated,
    fields: read.value.fields,
    indexes: read.value.indexes,
    check,
  };
}
