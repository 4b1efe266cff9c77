import { isDeepStrictEqual } from 'node:util';
import type { FieldConf } from '../conf/field-conf.js';
import type { FieldRule, RuleEffect } from './rules.js';

type JsonSchema = { [keyword: string]: unknown };

const isRecord = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
const keysAre = (v: JsonSchema, ...keys: string[]): boolean =>
  isDeepStrictEqual(Object.keys(v).sort(), [...keys].sort());

/**
 * A rule's condition from the `if` the export wrote (rules-schema.ts `conditionIf`): the nested
 * `properties` give the scope, the innermost schema the condition. Undefined for any other shape.
 */
function conditionOf(schema: unknown): FieldRule['condition'] | undefined {
  const path: string[] = [];
  let at = schema;
  while (isRecord(at) && isRecord(at.properties) && Object.keys(at.properties).length === 1) {
    // Below the top, a group's object carries its type (rules-schema.ts `conditionIf`).
    const typed = path.length ? ['type'] : [];
    if (path.length && at.type !== 'object') return undefined;
    if (!(keysAre(at, ...typed, 'properties') || keysAre(at, ...typed, 'properties', 'required'))) return undefined;
    const [id, inner] = Object.entries(at.properties)[0] as [string, unknown];
    if (at.required !== undefined && !isDeepStrictEqual(at.required, [id])) return undefined;
    path.push(id);
    at = inner;
  }
  if (!path.length || !isRecord(at)) return undefined;
  return { scope: `#/properties/${path.join('/properties/')}`, schema: at };
}

/** The effect and field an entry's `$comment` names (rules-schema.ts `ruleComment`), if it is a rule's. */
function commentOf(entry: unknown): { effect: RuleEffect | 'required'; id: string } | undefined {
  const m = isRecord(entry) && typeof entry.$comment === 'string' ? /^rule: (\w+) (".*")$/.exec(entry.$comment) : null;
  if (!m?.[1] || !m[2] || !/^(SHOW|HIDE|ENABLE|DISABLE|REQUIRE|required)$/.test(m[1])) return undefined;
  return { effect: m[1] as RuleEffect | 'required', id: JSON.parse(m[2]) as string };
}

/**
 * The rules of a field from the entries the export wrote for it (rules-schema.ts
 * `ruleConditions`, in an object's `allOf`, each named by its `$comment`): an `if`/`else` that
 * leaves the field out is a visibility rule (the effect its comment names; `HIDE` and `DISABLE`
 * have a `not` around the condition), the `if`/`then` that requires it its `required` or its
 * `REQUIRE` rules (the conditions beside the visibility ones). Entries without such a comment
 * are returned in `rest`, for the caller to read or refuse; a named entry of another shape
 * throws through `refuse`.
 *
 * @example
 * readRules(fields, schema.allOf, refuse); // { fields: [..., { id: 'vat', rule: [{ effect: 'SHOW', … }] }], rest: [] }
 */
export function readRules(
  fields: FieldConf[],
  entries: readonly unknown[],
  refuse: (what: string) => never,
): { fields: FieldConf[]; rest: unknown[] } {
  const rules = new Map<string, FieldRule[]>();
  const visible = new Map<string, unknown[]>();
  const required = new Set<string>();
  /** Booleans whose required form is `const: true`: a single checkbox (json-schema.ts `nonEmpty`), not a yes/no. */
  const checked = new Set<string>();
  const rest: unknown[] = [];
  for (const entry of entries) {
    const named = commentOf(entry);
    if (!named || !isRecord(entry)) {
      rest.push(entry);
      continue;
    }
    const { effect, id } = named;
    const wrong = () => refuse(`allOf: the entry "${entry.$comment}"`);
    if (!fields.some((f) => f.id === id)) wrong();
    const add = (rule: FieldRule) => rules.set(id, [...(rules.get(id) ?? []), rule]);
    if (effect !== 'REQUIRE' && effect !== 'required') {
      const negated = effect === 'HIDE' || effect === 'DISABLE';
      const inner = negated && isRecord(entry.if) && keysAre(entry.if, 'not') ? entry.if.not : entry.if;
      const condition = negated && inner === entry.if ? undefined : conditionOf(inner);
      const leftOut = isDeepStrictEqual(entry.else, { properties: { [id]: false } });
      if (!condition || !leftOut || !keysAre(entry, '$comment', 'if', 'else')) return wrong();
      add({ effect, condition });
      visible.set(id, [...(visible.get(id) ?? []), entry.if]);
      continue;
    }
    // The conditions beside the visibility ones: none for a required field, else its REQUIRE rules.
    const then = entry.if === undefined ? entry : entry.then;
    if (!isRecord(then) || !isDeepStrictEqual(then.required, [id]) || !isRecord(then.properties)) return wrong();
    if (isDeepStrictEqual(then.properties[id], { const: true })) checked.add(id);
    const when = entry.if;
    const parts =
      when === undefined ? [] : isRecord(when) && keysAre(when, 'allOf') ? (when.allOf as unknown[]) : [when];
    const shown = visible.get(id) ?? [];
    if (!isDeepStrictEqual(parts.slice(0, shown.length), shown)) wrong();
    const own = parts.slice(shown.length);
    const ors = own.length === 1 && isRecord(own[0]) && keysAre(own[0], 'anyOf') ? (own[0].anyOf as unknown[]) : own;
    if (effect === 'required') {
      if (own.length) wrong();
      required.add(id);
    } else for (const or of ors) add({ effect: 'REQUIRE', condition: conditionOf(or) ?? wrong() });
  }
  return {
    fields: fields.map((f) => {
      const own = rules.get(f.id);
      if (!own && !required.has(f.id)) return f;
      return {
        ...f,
        ...(required.has(f.id) ? { required: true } : {}),
        ...(own ? { rule: own } : {}),
        ...(checked.has(f.id) && f.datatype === 'bool' ? { datatype: 'checkbox' } : {}),
      };
    }),
    rest,
  };
}
