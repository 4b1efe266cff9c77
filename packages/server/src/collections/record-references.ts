import { commonErrors, type FieldProblem } from '../core/errors.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { CollectionFields, Field } from './collection-fields.js';
import type { RecordsRepo } from './records-repo.js';

/**
 * What a record's relation and file fields point at (docs/collections.md, "Relations and files"):
 * a write is refused, naming the field, when one of its new references leads nowhere — a record
 * the target collection does not hold, an account that does not exist, a file its store does not
 * hold. Only references the write changes are looked up, so a record whose related record was
 * removed since can still be edited. Existence is all that is checked: whether the caller may
 * read the record or file is asked when it is read (record-expand.ts, the file store).
 */

/** Where a record's references are: a relation's or a file field's path, found once per schema version. */
export interface ReferenceField {
  /** The field's path in the data (`author`, `meta.cover`); an array's elements are all references. */
  readonly path: readonly string[];
  readonly array: boolean;
  readonly target: { readonly relation: string } | { readonly file: string };
}

/** What the collections ask the rest of Roost, handed at the composition root (services.ts). */
export interface ReferenceLookups {
  readonly users: Pick<UserDirectory, 'namesOf'>;
  /** Whether the file store `store` holds a file at `path`; false for a store that does not exist. */
  fileExists(store: string, path: string): Promise<boolean>;
}

/** The reference fields of a collection, nested objects' included. */
export function referenceFields(collection: CollectionFields): ReferenceField[] {
  const out: ReferenceField[] = [];
  const visit = (fields: readonly Field[], at: readonly string[]) => {
    for (const field of fields) {
      const path = [...at, field.name];
      const one = field.kind === 'array' && field.items ? field.items : field;
      const target = one.relation !== null ? { relation: one.relation } : one.file !== null ? { file: one.file } : null;
      if (target && one.kind === 'text') out.push({ path, array: one !== field, target });
      else if (field.kind === 'object') visit(field.fields, path);
    }
  };
  visit(collection.fields, []);
  return out;
}

/** The ids or paths a record holds at a reference field. */
function referencesAt(data: Record<string, unknown>, field: ReferenceField): string[] {
  let value: unknown = data;
  for (const part of field.path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
    value = (value as Record<string, unknown>)[part];
  }
  const values = field.array && Array.isArray(value) ? value : [value];
  return values.filter((v): v is string => typeof v === 'string');
}

/**
 * Refuses the write (`validation_failure`, every dangling reference by its path) when a reference
 * of `data` that `before` did not hold leads nowhere. `repo` is the write's own, so a record made
 * earlier in the same batch counts.
 */
export async function checkReferences(
  fields: readonly ReferenceField[],
  data: Record<string, unknown>,
  before: Record<string, unknown> | null,
  repo: Pick<RecordsRepo, 'existingIds'>,
  lookups: ReferenceLookups,
  collectionExists: (name: string) => boolean,
): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    const had = before ? new Set(referencesAt(before, field)) : new Set<string>();
    const added = [...new Set(referencesAt(data, field))].filter((v) => !had.has(v));
    if (added.length === 0) continue;
    const name = field.path.join('.');
    const target = field.target;
    if ('file' in target) {
      for (const path of added) {
        if (!(await lookups.fileExists(target.file, path)))
          problems.push([name, `no file "${path}" in the file store ${target.file}`]);
      }
      continue;
    }
    let found: Set<string>;
    if (target.relation === 'users') found = new Set((await lookups.users.namesOf(added)).keys());
    else if (collectionExists(target.relation)) found = await repo.existingIds(target.relation, added);
    else found = new Set();
    const what = target.relation === 'users' ? 'no account' : `no record of ${target.relation}`;
    for (const id of added) if (!found.has(id)) problems.push([name, `${what} has the id "${id}"`]);
  }
  if (problems.length) throw commonErrors.validation_failure({ fields: problems });
}
