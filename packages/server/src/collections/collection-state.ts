import type { Ajv2020 } from 'ajv/dist/2020.js';
import { type FieldProblem, isRoostError } from '../core/errors.js';
import type { CollectionFields } from './collection-fields.js';
import { RULE_OPERATIONS, type RuleOperation, type Rules } from './collection-rules.js';
import { type CheckedFilter, prepareFilter, type ResolveCollection } from './query/index.js';
import { readSchema, type CollectionSchema } from './collection-schema.js';
import { collectionErrors } from './collections-errors.js';
import { type ReferenceField, referenceFields } from './record-references.js';
import { type CheckedData, recordCheck } from './record-validator.js';

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
  readonly check: (input: unknown) => CheckedData;
  /** Its relation and file fields, whose new values a write looks up (record-references.ts). */
  readonly references: readonly ReferenceField[];
  /** The rules that are expressions, checked against the fields once per version (query/). */
  readonly ruleFilters: Readonly<Partial<Record<RuleOperation, CheckedFilter>>>;
}

/** Each rule that is an expression, checked; an `invalid_rule`-coded failure at `rules.<operation>`. */
function checkedRules(
  rules: Rules,
  fields: CollectionFields,
  resolve: ResolveCollection,
): Partial<Record<RuleOperation, CheckedFilter>> {
  const out: Partial<Record<RuleOperation, CheckedFilter>> = {};
  const problems: FieldProblem[] = [];
  for (const operation of RULE_OPERATIONS) {
    const rule = rules[operation];
    if (rule === null || rule.trim() === '') continue;
    try {
      out[operation] = prepareFilter(rule, fields, resolve);
    } catch (err) {
      if (!isRoostError(err)) throw err;
      problems.push(...err.fields.map(([, reason]): FieldProblem => [`rules.${operation}`, reason]));
    }
  }
  if (problems.length) throw collectionErrors.invalid_rule({ fields: problems });
  return out;
}

/** The state of a definition; an `invalid_schema` failure naming every problem when the schema is not one. */
export function collectionState(
  ajv: Ajv2020,
  definition: { name: string; schema: unknown; rules: Rules; version: number; created: string; updated: string },
  resolve: ResolveCollection,
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
  const ruleFilters = checkedRules(definition.rules, read.value.fields, (name) =>
    name === definition.name ? read.value.fields : resolve(name),
  );
  return {
    name: definition.name,
    ruleFilters,
    schema: read.value.schema,
    rules: definition.rules,
    version: definition.version,
    created: definition.created,
    updated: definition.updated,
    fields: read.value.fields,
    indexes: read.value.indexes,
    references: referenceFields(read.value.fields),
    check,
  };
}
