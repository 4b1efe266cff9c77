import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Clock } from '../core/clock.js';
import type { FieldProblem } from '../core/errors.js';
import type { Rules } from './collection-rules.js';
import type { CollectionFields } from './collection-fields.js';
import { readSchema } from './collection-schema.js';
import { collectionState, type CollectionState } from './collection-state.js';
import { collectionErrors } from './collections-errors.js';
import type { CollectionsRepo } from './collections-repo.js';
import type { RecordsRepo, StoredRecord } from './records-repo.js';

/**
 * Making, changing and removing collections (issue 39, item 1). A change of schema is a
 * migration Roost runs: every record is checked against the new schema first (with the fields
 * the new schema drops left out, and its defaults filled in), and when any would not fit,
 * nothing changes and the failure lists them. Otherwise every record is rewritten as the new
 * schema keeps it, in the same transaction as the new definition.
 */

/** How many records that would not fit a change are listed in its refusal. */
const REPORTED_RECORDS = 20;
/** Records read per step while a change checks them. */
const CHECK_PAGE = 500;

export interface Definition {
  name: string;
  schema: unknown;
  rules: Rules;
  /** Fields renamed by this change, old name to new (docs/collections.md, "Changing a schema"). */
  renames?: Readonly<Record<string, string>> | undefined;
}

export interface DefinitionsDeps {
  ajv: Ajv2020;
  clock: Clock;
  definitions: CollectionsRepo;
  records: RecordsRepo;
  /**
   * The fields of a collection not made yet that a rule may follow a relation into: those of the
   * configuration, made one after the other when the services open.
   */
  declared(name: string): CollectionFields | undefined;
  /** Makes the record table's indexes match the state's (record-indexes.ts). */
  indexes(repo: RecordsRepo, state: CollectionState): Promise<void>;
}

/**
 * The record's data as the new schema keeps it: renamed fields under their new names, fields it
 * no longer declares left out.
 */
function kept(
  state: CollectionState,
  data: Record<string, unknown>,
  renames: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const declared = state.schema.properties;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const name = renames.get(key) ?? key;
    if (Object.hasOwn(declared, name)) out[name] = value;
  }
  return out;
}

/**
 * The renames a change makes: those whose old field the current schema has and the new schema
 * has not, whose new field only the new one has. One already made (the new name is there, the
 * old is gone) is left out, so a configuration may keep it. Anything else is `invalid_schema`.
 */
function renamesOf(
  current: CollectionState,
  next: CollectionState,
  asked: Readonly<Record<string, string>> | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  const problems: FieldProblem[] = [];
  const before = current.schema.properties;
  const after = next.schema.properties;
  for (const [from, to] of Object.entries(asked ?? {})) {
    const at = `renames.${from}`;
    if (!Object.hasOwn(before, from) && Object.hasOwn(before, to) && Object.hasOwn(after, to)) continue; // made already
    if (!Object.hasOwn(before, from)) problems.push([at, `the collection has no field "${from}"`]);
    else if (Object.hasOwn(after, from)) problems.push([at, `the new schema still has "${from}"`]);
    else if (!Object.hasOwn(after, to)) problems.push([at, `the new schema has no field "${to}"`]);
    else if (Object.hasOwn(before, to)) problems.push([at, `the collection has a field "${to}" already`]);
    else if ([...out.values()].includes(to)) problems.push([at, `another field is renamed to "${to}"`]);
    else out.set(from, to);
  }
  if (problems.length) throw collectionErrors.invalid_schema({ fields: problems });
  return out;
}

export function collectionDefinitions(deps: DefinitionsDeps) {
  const states = new Map<string, CollectionState>();
  const resolve = (name: string) => states.get(name)?.fields ?? deps.declared(name);
  const now = () => new Date(deps.clock.now()).toISOString();

  /** Every record checked against the new state, page by page; the rewritten data of those that change. */
  async function migrate(
    repo: RecordsRepo,
    next: CollectionState,
    renames: ReadonlyMap<string, string>,
  ): Promise<void> {
    const problems: FieldProblem[] = [];
    let after: string | null = null;
    let misfits = 0;
    for (;;) {
      const page: StoredRecord[] = await repo.page(next.name, after, CHECK_PAGE);
      for (const record of page) {
        let data: Record<string, unknown>;
        try {
          data = next.check(kept(next, record.data, renames)).data;
        } catch (err) {
          misfits += 1;
          if (problems.length < REPORTED_RECORDS) {
            const fields = (err as { fields?: FieldProblem[] }).fields ?? [];
            problems.push([`records.${record.id}`, fields.map(([f, r]) => `${f}: ${r}`).join('; ') || String(err)]);
          }
          continue;
        }
        if (misfits === 0 && JSON.stringify(data) !== JSON.stringify(record.data))
          await repo.update(next.name, record.id, { data, updated: record.updated });
      }
      if (page.length < CHECK_PAGE) break;
      after = page.at(-1)?.id ?? null;
    }
    if (misfits > 0) {
      throw collectionErrors.schema_change_refused({
        message: `${misfits} record${misfits === 1 ? '' : 's'} would not fit the new schema; nothing was changed.`,
        fields: problems,
        body: { misfits },
      });
    }
  }

  return {
    states,
    /** The collections kept in the database, read when the services open. */
    async load(): Promise<void> {
      const rows = await deps.definitions.all();
      // Rules may follow relations into any of them: their fields are known before any rule is checked.
      const kept = new Map<string, CollectionFields>();
      for (const row of rows) {
        const read = readSchema(row.name, JSON.parse(row.schema));
        if (read.ok) kept.set(row.name, read.value.fields);
      }
      for (const row of rows) {
        states.set(
          row.name,
          collectionState(
            deps.ajv,
            {
              name: row.name,
              schema: JSON.parse(row.schema),
              rules: JSON.parse(row.rules) as Rules,
              version: row.version,
              created: row.created,
              updated: row.updated,
            },
            (name) => kept.get(name) ?? deps.declared(name),
          ),
        );
      }
      // A restored database has the tables but not yet their indexes (records-repo.ts `makeRecordTables`).
      for (const state of states.values()) {
        await deps.records.transaction(async (repo) => {
          await repo.createTable(state.name);
          await deps.indexes(repo, state);
        });
      }
    },

    /**
     * Whether the collection is no longer at `state`'s version in the database (a migration
     * committed since, here or in another process); then its definition is read again.
     */
    async moved(state: CollectionState): Promise<boolean> {
      const row = await deps.definitions.one(state.name);
      if (row?.version === state.version) return false;
      await this.reload(state.name);
      return true;
    },

    /**
     * Reads one collection's definition again, after another process made, changed or removed
     * it; the table and indexes are that process's work.
     */
    async reload(name: string): Promise<void> {
      const row = await deps.definitions.one(name);
      if (!row) {
        states.delete(name);
        return;
      }
      states.set(
        name,
        collectionState(
          deps.ajv,
          {
            name,
            schema: JSON.parse(row.schema),
            rules: JSON.parse(row.rules) as Rules,
            version: row.version,
            created: row.created,
            updated: row.updated,
          },
          resolve,
        ),
      );
    },

    /**
     * Makes a collection, or changes one to this definition (a new version, its records
     * migrated); answers its state. `mode` says whether it must be new, must exist, or either.
     */
    async define(
      definition: Definition,
      changedBy: string | null,
      mode: 'create' | 'change' | 'either',
    ): Promise<CollectionState> {
      const current = states.get(definition.name);
      if (current && mode === 'create') throw collectionErrors.collection_exists({ fields: [['name', 'taken']] });
      if (!current && mode === 'change')
        throw collectionErrors.unknown_collection({ fields: [['name', 'no such collection']] });
      const schemaText = JSON.stringify(definition.schema);
      if (!current && definition.renames && Object.keys(definition.renames).length)
        throw collectionErrors.invalid_schema({ fields: [['renames', 'a new collection has no fields to rename']] });
      const rulesText = JSON.stringify(definition.rules);
      if (current && JSON.stringify(current.schema) === schemaText && JSON.stringify(current.rules) === rulesText)
        return current;
      const at = now();
      const next = collectionState(
        deps.ajv,
        {
          name: definition.name,
          schema: definition.schema,
          rules: definition.rules,
          version: (current?.version ?? 0) + 1,
          created: current?.created ?? at,
          updated: at,
        },
        resolve,
      );
      const renames = current ? renamesOf(current, next, definition.renames) : new Map<string, string>();
      await deps.records
        .transaction(async (repo) => {
          if (!current) await repo.createTable(next.name);
          else if (JSON.stringify(current.schema) !== schemaText) {
            // No write lands between the check of every record and the commit (record-ops.ts checks again).
            await repo.holdWrites(next.name);
            await migrate(repo, next, renames);
          }
          await deps.indexes(repo, next);
          await deps.definitions.save(
            {
              name: next.name,
              schema: schemaText,
              rules: rulesText,
              version: next.version,
              created: next.created,
              updated: next.updated,
            },
            changedBy,
            repo.db,
          );
          // Swapped before the commit: on SQLite no other write runs inside this transaction, so
          // every write after it checks against the new schema.
          states.set(next.name, next);
        })
        .catch((err: unknown) => {
          if (current) states.set(current.name, current);
          else states.delete(definition.name);
          throw err;
        });
      return next;
    },

    async drop(name: string): Promise<void> {
      if (!states.has(name)) throw collectionErrors.unknown_collection({ fields: [['name', 'no such collection']] });
      await deps.records.transaction(async (repo) => {
        await repo.dropTable(name);
        await deps.definitions.remove(name, repo.db);
      });
      states.delete(name);
    },
  };
}
