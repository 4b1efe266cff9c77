/* Rules (issue 43, item 10): a field shown, hidden, enabled, disabled or required from another
   field's value, declared as data in JSON Forms' shape (`{ effect, condition: { scope, schema } }`).
   One reading serves the server (form/form.ts and validate/field-adapter.ts skip a hidden or
   disabled field and require a field a rule requires), the page (render/form-renderer.ts and
   fields/group-widgets.ts wrap a ruled field in a fieldset the script updates) and the JSON
   Schema export (rules-schema.ts). */
import { ConfigurationError } from '../conf/configuration-error.js';
import { fieldDatatype, staticItems, type FieldConf } from '../conf/field-conf.js';
import { checkCondition, matchesCondition } from './condition.js';

/** What a rule does while its condition holds (`REQUIRE`: the field must be filled in). */
export type RuleEffect = 'SHOW' | 'HIDE' | 'ENABLE' | 'DISABLE' | 'REQUIRE';

/**
 * A rule of a field, as JSON Forms writes it. `scope` names a field beside this one (in the same
 * group, or the same item of a repeat) as `#/properties/<id>`, or one inside a group beside it as
 * `#/properties/<group>/properties/<id>`; `schema` is a JSON Schema its value must satisfy
 * (condition.ts lists the keywords).
 *
 * @example
 * const rule: FieldRule = { effect: 'SHOW', condition: { scope: '#/properties/kind', schema: { const: 'business' } } };
 */
export interface FieldRule {
  effect: RuleEffect;
  condition: { scope: string; schema: Readonly<Record<string, unknown>> };
}

const EFFECTS: ReadonlySet<string> = new Set(['SHOW', 'HIDE', 'ENABLE', 'DISABLE', 'REQUIRE']);

/** A field's rules as a list (`rule` takes one or several). */
export function fieldRules(field: FieldConf): readonly FieldRule[] {
  if (!field.rule) return [];
  return Array.isArray(field.rule) ? (field.rule as readonly FieldRule[]) : [field.rule as FieldRule];
}

/** `#/properties/a/properties/b` → `['a', 'b']`, or undefined for any other form. */
function scopePath(scope: string): string[] | undefined {
  const m = /^#((?:\/properties\/[^/]+)+)$/.exec(scope);
  return m?.[1]?.split('/properties/').slice(1);
}

/** The field a scope path names among `fields` (through groups), or undefined. */
function scopeField(fields: readonly FieldConf[], path: readonly string[]): FieldConf | undefined {
  const [head, ...rest] = path;
  const field = fields.find((f) => f.id === head);
  if (!field || !rest.length) return field;
  return fieldDatatype(field) === 'group' ? scopeField(field.fields ?? [], rest) : undefined;
}

/**
 * Checks the rules of `fields` (one level: a group's are checked when it compiles): a known
 * effect, a scope naming another field beside them, a condition of known keywords. A mistake
 * throws a `ConfigurationError` naming the field, when the form compiles its fields. `partial`:
 * the fields are a subset's (a step of a wizard), so a scope may name a field of another step;
 * its value is then read from the data by its id.
 *
 * @example
 * const rule = { effect: 'SHOW', condition: { scope: '#/properties/kind', schema: { const: 'b' } } } as const;
 * checkRules([{ id: 'vat', rule }]);
 * // throws: Field "vat": rule scope "#/properties/kind" names no field beside it
 */
export function checkRules(fields: readonly FieldConf[], partial = false): void {
  for (const field of fields) {
    const where = `Field "${field.id}"`;
    for (const rule of fieldRules(field)) {
      if (typeof rule !== 'object' || rule === null || !EFFECTS.has(rule.effect))
        throw new ConfigurationError(`${where}: a rule's effect must be one of ${[...EFFECTS].join(', ')}`);
      const scope = rule.condition?.scope;
      const path = typeof scope === 'string' ? scopePath(scope) : undefined;
      if (!path) throw new ConfigurationError(`${where}: rule scope must read "#/properties/<id>"`);
      const target = scopeField(fields, path);
      if ((!target && !partial) || target === field)
        throw new ConfigurationError(`${where}: rule scope "${scope}" names no field beside it`);
      checkCondition(rule.condition.schema, where);
    }
  }
}

/** How a field's value reads for a condition, in the browser as on the server (`ruleValue`). */
export type ValueKind = 'text' | 'number' | 'bool' | 'choice' | 'choices' | 'other';

const TEXT_KINDS = new Set(['string', 'text', 'email', 'url', 'password', 'hidden', 'date', 'time', 'datetime']);

/** The kind of a field's value and, for choices, its item ids (their types kept: `3` stays a number). */
export function valueKind(field: FieldConf): { kind: ValueKind; ids?: Array<string | number> } {
  const datatype = fieldDatatype(field);
  const ids = staticItems(field).map((i) => i.id);
  if (datatype === 'number' || datatype === 'float') return { kind: 'number' };
  if (datatype === 'bool' || (datatype === 'checkbox' && !field.listItems)) return { kind: 'bool' };
  if (datatype === 'list' || datatype === 'radio') return { kind: 'choice', ids };
  if (datatype === 'multilist' || datatype === 'checkbox') return { kind: 'choices', ids };
  return { kind: TEXT_KINDS.has(datatype) ? 'text' : 'other' };
}

/**
 * A value as a condition reads it: the form's data as it is, or an input's text in that form (a
 * number's text as the number, `true`/`false` as booleans, a choice's text as its item id). Absent
 * is no value (`undefined`), and so is `''` but for a text (the form keeps it) and for choices
 * (none chosen: `[]`). The browser script carries
 * this function's source (render/assets.ts), so it uses nothing outside itself.
 *
 * @example
 * ruleValue('3', 'choice', [3, 4]); // 3
 */
export function ruleValue(value: unknown, kind: ValueKind, ids?: ReadonlyArray<string | number>): unknown {
  if (value === undefined || value === null) return undefined;
  if (kind === 'choices') {
    const list = value === '' ? [] : Array.isArray(value) ? value : [value];
    return list.map((v) => ruleValue(v, 'choice', ids));
  }
  if (value === '' && kind !== 'text') return undefined;
  if (typeof value !== 'string') return value;
  if (kind === 'number') {
    const n = Number(value.trim().replace(',', '.'));
    return value.trim() !== '' && Number.isFinite(n) ? n : value;
  }
  if (kind === 'bool') {
    const word = value.toLowerCase();
    if (['true', '1', 'on', 'yes'].indexOf(word) >= 0) return true;
    if (['false', '0', 'off', 'no'].indexOf(word) >= 0) return false;
    return value;
  }
  if (kind === 'choice') {
    const hit = (ids ?? []).filter((id) => String(id) === value);
    return hit.length ? hit[0] : value;
  }
  return value;
}

/** A field's state under its rules; without rules, shown, enabled and required as configured. */
export interface RuleState {
  /** Shown and enabled: validated and in the data. Else left out, and not validated. */
  active: boolean;
  shown: boolean;
  enabled: boolean;
  required: boolean;
}

/**
 * The state of `field` from the values beside it: `valueAt(id)` gives a field's value (the
 * form's data, or what a widget read from the request), a scope inside a group is read from the
 * group's object.
 *
 * @example
 * ruleState(vatField, fields, (id) => data[id]); // { active: false, shown: false, enabled: true, required: false }
 */
export function ruleState(field: FieldConf, fields: readonly FieldConf[], valueAt: (id: string) => unknown): RuleState {
  let shown = true;
  let enabled = true;
  let required = Boolean(field.required);
  for (const rule of fieldRules(field)) {
    const holds = matchesCondition(rule.condition.schema, scopeValue(fields, rule.condition.scope, valueAt));
    if (rule.effect === 'SHOW') shown &&= holds;
    else if (rule.effect === 'HIDE') shown &&= !holds;
    else if (rule.effect === 'ENABLE') enabled &&= holds;
    else if (rule.effect === 'DISABLE') enabled &&= !holds;
    else required ||= holds;
  }
  return { active: shown && enabled, shown, enabled, required };
}

/** The value a rule's scope names, as a condition reads it (`ruleValue`). */
function scopeValue(fields: readonly FieldConf[], scope: string, valueAt: (id: string) => unknown): unknown {
  const path = scopePath(scope) ?? [];
  const target = scopeField(fields, path);
  let value = valueAt(path[0] ?? '');
  for (const part of path.slice(1)) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  const { kind, ids } = target ? valueKind(target) : { kind: 'other' as const, ids: undefined };
  return ruleValue(value, kind, ids);
}

/**
 * What the browser script needs to keep a ruled field in step (render/assets.ts): per rule the
 * request name of the field its scope names (under `prefix`, the group's or item's name), how
 * its value reads, the condition; the field's own `required`, its label's id and the class that
 * marks a required label. A rule whose scope is not on the page (a field of another step of a
 * subset) comes decided (`holds`, from `valueAt`), as the page cannot read it. Undefined for a
 * field without rules.
 *
 * @example
 * const page = { label: 'upload-vat-label', requiredClass: 'required', valueAt: (id: string) => data[id] };
 * browserRules(vatField, fields, '', page);
 */
export function browserRules(
  field: FieldConf,
  fields: readonly FieldConf[],
  prefix: string,
  page: { label: string; requiredClass: string; valueAt: (id: string) => unknown; open?: boolean },
): string | undefined {
  const rules = fieldRules(field);
  if (!rules.length) return undefined;
  return JSON.stringify({
    required: Boolean(field.required),
    // Rendered without `required` (rule-box.ts `openWithoutScript`): the script sets it.
    ...(page.open ? { open: true } : {}),
    label: page.label,
    requiredClass: page.requiredClass,
    rules: rules.map((rule) => {
      const path = scopePath(rule.condition.scope) ?? [];
      const target = scopeField(fields, path);
      const value = scopeValue(fields, rule.condition.scope, page.valueAt);
      return {
        effect: rule.effect,
        name: `${prefix}${path.join('.')}`,
        ...(target ? valueKind(target) : { kind: 'other', holds: matchesCondition(rule.condition.schema, value) }),
        schema: rule.condition.schema,
      };
    }),
  });
}

/** A field as a rule in force makes it: `required` when a rule requires it. */
export function ruledField(field: FieldConf, state: RuleState): FieldConf {
  return state.required && !field.required ? { ...field, required: true } : field;
}
