import type { UserDirectory } from '../core/user-directory.js';
import type { Field } from './collection-fields.js';
import type { CollectionState } from './collection-state.js';
import { QUERY_LIMITS, queryError } from './query/index.js';
import type { RecordView } from './record-ops.js';

/**
 * `expand` (docs/collection-queries.md, "Expand"): the records that relation fields name, put
 * under the record's `expand` by field name, up to two relations deep (`author,author.org`).
 * Each expanded record is read under its own collection's view rule for the caller, so an
 * expansion never shows what a get of that record would refuse: a record the caller may not
 * view, or one that is gone, is left out. A relation to `users` expands to the account's id and
 * name, what every item's and file's owner already shows.
 */

export interface ExpandNode {
  /** The relation field, at the top of its record (an array of relations expands to an array). */
  readonly field: string;
  readonly array: boolean;
  /** The related collection, or `users`. */
  readonly target: string;
  readonly children: readonly ExpandNode[];
}

/** The most relation paths one `expand` may name. */
const MAX_PATHS = 8;

/**
 * The tree of `text` (`author,author.org,tags`) for `state`'s records; an `invalid_expand`
 * failure naming the first path that is not one.
 */
export function parseExpand(
  text: string | undefined,
  state: CollectionState,
  stateOf: (name: string) => CollectionState | undefined,
): ExpandNode[] {
  if (text === undefined || text.trim() === '') return [];
  const paths = text.split(',').map((p) => p.trim());
  if (paths.length > MAX_PATHS) throw queryError('invalid_expand', 'expand', `at most ${MAX_PATHS} paths`);
  const roots: ExpandNode[] = [];
  for (const path of paths) {
    const parts = path.split('.');
    if (parts.length > QUERY_LIMITS.relationHops)
      throw queryError(
        'invalid_expand',
        'expand',
        `"${path}" follows more than ${QUERY_LIMITS.relationHops} relations`,
      );
    let level = roots;
    let collection: CollectionState | undefined = state;
    for (const [i, name] of parts.entries()) {
      const shown = parts.slice(0, i + 1).join('.');
      if (!collection) throw queryError('invalid_expand', 'expand', `"${shown}": an account has no relations`);
      const field: Field | undefined = collection.fields.fields.find((f) => f.name === name);
      const one: Field | null | undefined = field?.kind === 'array' ? field.items : field;
      if (!field || !one || one.relation === null || one.kind !== 'text')
        throw queryError('invalid_expand', 'expand', `"${shown}" is not a relation field of ${collection.name}`);
      const target: string = one.relation;
      let node = level.find((n) => n.field === name);
      if (!node) {
        if (target !== 'users' && !stateOf(target))
          throw queryError(
            'invalid_expand',
            'expand',
            `"${shown}" names the collection ${target}, which does not exist`,
          );
        node = { field: name, array: one !== field, target, children: [] };
        level.push(node);
      }
      level = node.children as ExpandNode[];
      collection = target === 'users' ? undefined : stateOf(target);
    }
  }
  return roots;
}

export interface ExpandSources {
  /** The records of `collection` with these ids that the caller may view (its view rule). */
  records(collection: string, ids: readonly string[]): Promise<RecordView[]>;
  users: Pick<UserDirectory, 'namesOf'>;
}

/** Puts under each view's `expand` what `nodes` name (the views are changed in place). */
export async function expandRecords(
  views: readonly RecordView[],
  nodes: readonly ExpandNode[],
  sources: ExpandSources,
): Promise<void> {
  for (const node of nodes) {
    const ids = new Set<string>();
    for (const view of views) for (const id of idsAt(view, node)) ids.add(id);
    if (ids.size === 0) continue;
    const found = new Map<string, unknown>();
    if (node.target === 'users') {
      for (const [id, name] of await sources.users.namesOf(ids)) found.set(id, { id, name });
    } else {
      const related = await sources.records(node.target, [...ids]);
      if (node.children.length) await expandRecords(related, node.children, sources);
      for (const record of related) found.set(record.id, record);
    }
    for (const view of views) {
      const value = node.array
        ? idsAt(view, node).flatMap((id) => (found.has(id) ? [found.get(id)] : []))
        : found.get(idsAt(view, node)[0] ?? '');
      if (value === undefined) continue;
      view.expand ??= {};
      (view.expand as Record<string, unknown>)[node.field] = value;
    }
  }
}

function idsAt(view: RecordView, node: ExpandNode): string[] {
  const value = view[node.field];
  if (node.array) return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return typeof value === 'string' ? [value] : [];
}
