import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../storage/database.js';
import { fieldAt, recordTable, type Field } from './collection-fields.js';
import type { CollectionState } from './collection-state.js';
import type { IndexSpec } from './record-tables-repo.js';
import type { RecordsRepo } from './records-repo.js';

/**
 * A collection's indexes as its schema declares them (issue 39, item 3): one unique index per
 * `x-unique` field, one index per `x-indexes` entry, each over the very expression a filter on
 * that field compiles to, so that the planner can use it (an `x-indexes` entry then `created`
 * and `id`, the default order). Named by a hash of what they hold, within PostgreSQL's 63
 * characters: `records_<collection>_u_<hash>` and `_i_<hash>`.
 */

/**
 * What the name of a declared index hashes after its fields: that it ends with the default order
 * (`created`, `id`; query/sort.ts `DEFAULT_SORT`). Indexes of the fields alone, made before, have
 * other names, so syncIndexes replaces them.
 */
const ORDERED = '|created,id';

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 10);

export const uniqueIndexName = (collection: string, field: string) => `${recordTable(collection)}_u_${hashOf(field)}`;

/** The SQL expression of a field of the record row (alias-free: an index names the table's own columns). */
function fieldSql(dialect: Dialect, path: readonly string[], field: Field): RawBuilder<unknown> {
  if (dialect === 'sqlite') return sql`json_extract(data, ${sql.lit(`$.${path.map((p) => `"${p}"`).join('.')}`)})`;
  const parents = path.slice(0, -1).map((p) => sql`->${sql.lit(p)}`);
  const text = sql`(data${sql.join(parents, sql``)}->>${sql.lit(path.at(-1) ?? '')})`;
  if (field.kind === 'number') return sql`(${text}::numeric)`;
  if (field.kind === 'boolean') return sql`(${text}::boolean)`;
  return sql`(${text} COLLATE "C")`;
}

function indexSpecs(state: CollectionState, dialect: Dialect): IndexSpec[] {
  const specs: IndexSpec[] = [];
  for (const field of state.fields.fields) {
    if (!field.unique) continue;
    specs.push({
      name: uniqueIndexName(state.name, field.name),
      unique: true,
      expressions: [fieldSql(dialect, [field.name], field)],
    });
  }
  for (const paths of state.indexes) {
    const expressions = paths.map((path) => {
      const parts = path.split('.');
      const field = fieldAt(state.fields, parts);
      if (!field) throw new Error(`index on a field the schema lacks: ${path}`);
      return fieldSql(dialect, parts, field);
    });
    // The default order's columns after the fields: a page by equal values of the fields is read
    // in index order, its first 50 of however many match, instead of all of them sorted.
    expressions.push(sql.ref('created'), sql.ref('id'));
    specs.push({
      name: `${recordTable(state.name)}_i_${hashOf(`${paths.join(',')}${ORDERED}`)}`,
      unique: false,
      expressions,
    });
  }
  return specs;
}

/** Makes the table's indexes those of the state: new ones made, ones no longer declared dropped. */
export async function syncIndexes(repo: RecordsRepo, state: CollectionState, dialect: Dialect): Promise<void> {
  const wanted = indexSpecs(state, dialect);
  const prefix = recordTable(state.name);
  const existing = await repo.indexNames(state.name);
  for (const name of existing) {
    const ours = name.startsWith(`${prefix}_u_`) || name.startsWith(`${prefix}_i_`);
    if (ours && !wanted.some((spec) => spec.name === name)) await repo.dropIndex(name);
  }
  for (const spec of wanted) if (!existing.includes(spec.name)) await repo.createIndex(state.name, spec);
}
