import { fieldDatatype, type FieldConf } from '../conf/field-conf.js';
import { matchesCondition } from './condition.js';
import { fieldRules, type FieldRule, type RuleEffect } from './rules.js';

type JsonSchema = { [keyword: string]: unknown };

/**
 * A rule's condition as the `if` of the object holding the field: the scope's property (through
 * groups) satisfies the schema. A missing property passes `properties` in JSON Schema; where the
 * form's condition fails for no value (condition.ts: `const`, `enum`, `type`), the property is
 * `required` too, so the two agree on absent values.
 */
function conditionIf(rule: FieldRule): JsonSchema {
  const path = /^#((?:\/properties\/[^/]+)+)$/.exec(rule.condition.scope)?.[1]?.split('/properties/').slice(1) ?? [];
  const absentHolds = matchesCondition(rule.condition.schema, undefined);
  let schema: JsonSchema = typedArrayKeywords(rule.condition.schema);
  for (const [depth, id] of [...path.entries()].reverse()) {
    // Inside a group the object is the group's value: typed, as Ajv's strictTypes asks.
    const typed = depth > 0 ? { type: 'object' } : {};
    schema = { ...typed, properties: { [id]: schema }, ...(absentHolds ? {} : { required: [id] }) };
  }
  return schema;
}

/** The keywords of a condition (condition.ts) that speak of arrays only. */
const ARRAY_KEYWORDS = ['contains', 'minItems', 'maxItems'];

/**
 * A condition whose array keywords come without `type`, in a form Ajv's strictTypes accepts and
 * with the same meaning: those keywords hold for any value that is not an array (condition.ts
 * and JSON Schema agree on that), so `{ contains: c }` becomes `{ anyOf: [{ type: 'array',
 * contains: c }, { not: { type: 'array' } }] }`. A condition with a `type` stays as written.
 */
function typedArrayKeywords(condition: Readonly<JsonSchema>): JsonSchema {
  const arrayPart = Object.entries(condition).filter(([key]) => ARRAY_KEYWORDS.includes(key));
  if ('type' in condition || !arrayPart.length) return { ...condition };
  const rest = Object.fromEntries(Object.entries(condition).filter(([key]) => !ARRAY_KEYWORDS.includes(key)));
  const anyOf = [{ type: 'array', ...Object.fromEntries(arrayPart) }, { not: { type: 'array' } }];
  if (!('anyOf' in rest)) return { ...rest, anyOf };
  return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), { anyOf }] };
}

/** One schema for all of `parts` (`allOf` of several). */
const allOf = (parts: readonly JsonSchema[]): JsonSchema =>
  parts.length === 1 ? (parts[0] as JsonSchema) : { allOf: [...parts] };

/**
 * What a ruled field adds to the schema of the object holding it (the form, a group, an item of
 * a repeat), as the form decides (form/form.ts, validate/field-adapter.ts): while a rule hides or
 * disables it the field is not in the data (`else`: the property is `false`); while it is shown
 * and required (by `required` or a `REQUIRE` rule) it must be there and filled in
 * (`requiredSchema`, its schema as a required field). Undefined for a field without rules, or
 * required and never hidden: it is required as usual.
 *
 * @example
 * ruleConditions(vatField, { minLength: 1, type: 'string' });
 * // [{ if: { properties: { kind: { const: 'b' } }, required: ['kind'] }, else: { properties: { vat: false } } }, …]
 */
export function ruleConditions(field: FieldConf, requiredSchema: JsonSchema): JsonSchema[] | undefined {
  const rules = fieldRules(field);
  if (!rules.length) return undefined;
  const active: Array<[RuleEffect, JsonSchema]> = [];
  const requires: JsonSchema[] = [];
  for (const rule of rules) {
    const cond = conditionIf(rule);
    if (rule.effect === 'SHOW' || rule.effect === 'ENABLE') active.push([rule.effect, cond]);
    else if (rule.effect === 'HIDE' || rule.effect === 'DISABLE') active.push([rule.effect, { not: cond }]);
    else requires.push(cond);
  }
  // A required field that no rule hides: its REQUIRE rules add nothing, it is required as usual.
  if (!active.length && field.required) return undefined;
  // `$comment` names the rule, so the import (rules-import.ts) gives back the rules as written.
  const out: JsonSchema[] = active.map(([effect, cond]) => ({
    $comment: ruleComment(effect, field.id),
    if: cond,
    else: { properties: { [field.id]: false } },
  }));
  // A group's value is always there (json-schema.ts `requiredKey`): required asks nothing of it.
  if (fieldDatatype(field) === 'group' || (!field.required && !requires.length)) return out;
  const shown = active.map(([, cond]) => cond);
  const when = [...shown, ...(field.required ? [] : [requires.length === 1 ? requires[0] : { anyOf: requires }])];
  const then = { properties: { [field.id]: requiredSchema }, required: [field.id] };
  const $comment = ruleComment(field.required ? 'required' : 'REQUIRE', field.id);
  out.push(when.length ? { $comment, if: allOf(when as JsonSchema[]), then } : { $comment, ...then });
  return out;
}

/**
 * The note on a rule's entry: `rule: SHOW "company"` (`required` for the entry of a required
 * field under visibility rules).
 *
 * @example
 * ruleComment('SHOW', 'company'); // 'rule: SHOW "company"'
 */
const ruleComment = (effect: RuleEffect | 'required', id: string): string => `rule: ${effect} ${JSON.stringify(id)}`;
