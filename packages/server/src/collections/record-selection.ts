import { SYSTEM_FIELDS } from './collection-fields.js';
import type { CollectionState } from './collection-state.js';
import { queryError } from './query/index.js';

/**
 * `fields` (docs/collection-queries.md, "Fields"): which parts of each record an answer holds,
 * as dotted paths (`id,title,address.city,expand.author.name`); `*` at a level keeps every
 * member of that level (`*,expand.author.name`). Paths into arrays apply to each element. The
 * first part of a path must be a field of the collection, a system field, `expand` or `*`, so a
 * misspelt name is an error rather than an answer silently missing it.
 */

/** What to keep at one level: a member whole (`true`), or some of its parts. */
export type Selection = ReadonlyMap<string, Selection | true>;

const MAX_PATHS = 32;
const MAX_PARTS = 8;

/** The selection of `text`, or null for every field; an `invalid_fields` failure naming the bad path. */
export function parseSelection(text: string | undefined, state: CollectionState): Selection | null {
  if (text === undefined || text.trim() === '') return null;
  const paths = text.split(',').map((p) => p.trim());
  if (paths.length > MAX_PATHS) throw queryError('invalid_fields', 'fields', `at most ${MAX_PATHS} paths`);
  const top = new Set<string>([...SYSTEM_FIELDS, 'expand', '*', ...state.fields.fields.map((f) => f.name)]);
  const root = new Map<string, Map<string, unknown> | true>();
  for (const path of paths) {
    const parts = path.split('.');
    if (parts.length > MAX_PARTS || parts.some((p) => p === ''))
      throw queryError('invalid_fields', 'fields', `"${path}" is not a field path`);
    if (!top.has(parts[0] as string))
      throw queryError('invalid_fields', 'fields', `"${parts[0]}" is not a field of ${state.name}`);
    let level = root;
    for (const [i, part] of parts.entries()) {
      const last = i === parts.length - 1;
      const here = level.get(part);
      if (here === true) break; // already kept whole
      if (last) {
        level.set(part, true);
        break;
      }
      const next = here ?? new Map<string, Map<string, unknown> | true>();
      level.set(part, next);
      level = next as Map<string, Map<string, unknown> | true>;
    }
  }
  return root as Selection;
}

/** The parts of `value` that `selection` keeps (arrays: of each element). */
export function selectFrom(value: unknown, selection: Selection): unknown {
  if (Array.isArray(value)) return value.map((element) => selectFrom(element, selection));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = selection.has('*') ? { ...source } : {};
  for (const [key, keep] of selection) {
    if (key === '*' || !Object.hasOwn(source, key)) continue;
    out[key] = keep === true ? source[key] : selectFrom(source[key], keep);
  }
  return out;
}
