import { constraintCheck } from './constraints.js';
import { fieldDatatype, staticItems, type FieldConf, type ListItem } from '../conf/field-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import { checkFieldConf } from '../conf/conf-schema.js';
import type { Widget } from '../fields/widget.js';
import { datatypeFor, type EmptyValue } from './datatypes.js';
import type { Translate } from './messages.js';
import { runStandardSchema } from './standard-schema.js';
import { ValidationError, type InputFault } from './validation-error.js';
import { checkRules, fieldRules, ruleState } from '../rules/rules.js';

/** What a field node's `parse` needs besides the value. */
export interface ParseContext {
  t: Translate;
  form: unknown;
  values: Readonly<Record<string, unknown>>;
  /** Conversion only: skip the required check and custom validators (`extract`). */
  convertOnly?: boolean;
}

/** The outcome of parsing one field. */
export type ParseResult =
  | { ok: true; value: unknown }
  /**
   * `inputs`: of a group or repeat, the paths of the sub-fields at fault (`1.street`); `faults`:
   * the messages of each input at fault, as `messages` words them (live/live-script.ts shows those
   * of the inputs the user touched).
   */
  | { ok: false; messages: string[]; inputs?: string[]; faults?: InputFault[] };

/**
 * A compiled field: conversion, required check and validators behind one async `parse`. Built by
 * `compileField`; a `FieldConf.node` may bring its own.
 *
 * @example
 * const node = compileField({ id: 'age', datatype: 'number', required: true }, { t: createTranslator(), items: [] });
 * await node.parse('42', { t, form: undefined, values: {} }); // { ok: true, value: 42 }
 */
export interface FieldNode {
  parse(value: unknown, ctx: ParseContext): Promise<ParseResult>;
  /** Widget to use for the field (a registered name or a widget object). */
  widget?: string | Widget;
}

/**
 * True for values that count as "nothing entered": absent, null, `''`, `[]` or an empty upload.
 *
 * @example
 * isEmptyValue(''); // true
 */
export function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0 || value.every((v) => v === '' || v === null);
  return false;
}

const emptyOf = (empty: EmptyValue): unknown => (Array.isArray(empty) ? [] : empty);

/**
 * Compiles a field configuration into its node: the datatype's zod conversion (or the field's
 * Standard Schema), the required check and the custom validator.
 *
 * @example
 * const node = compileField({ id: 'email', datatype: 'email' }, { t: createTranslator('de'), items: [] });
 */
export function compileField(field: FieldConf, opts: { t: Translate; items: readonly ListItem[] }): FieldNode {
  checkFieldConf(field);
  const datatype = fieldDatatype(field);
  if (datatype === 'group' || datatype === 'repeat') return groupNode(field, opts, datatype === 'repeat');
  const def = datatypeFor(field, opts.items);
  if (!def && !field.schema)
    throw new ConfigurationError(`Unknown datatype "${field.datatype}" of field "${field.id}"`);
  const schema = def?.schema(field, opts.t, opts.items);
  const constraints = constraintCheck(field);
  const required = Boolean(field.required);
  return {
    async parse(value, ctx) {
      let out: unknown;
      if (isEmptyValue(value)) {
        if (required && !ctx.convertOnly) return { ok: false, messages: [ctx.t('Required')] };
        out = value === undefined ? null : def ? emptyOf(def.empty) : value;
      } else if (field.schema) {
        const r = await runStandardSchema(field.schema, value);
        if (!r.ok) return r;
        out = r.value;
      } else if (schema) {
        const r = await schema.safeParseAsync(value);
        if (!r.success) return { ok: false, messages: r.error.issues.map((i) => i.message) };
        out = r.data;
      }
      if (!ctx.convertOnly && !isEmptyValue(out)) {
        const problems = constraints(out, ctx.t);
        if (problems.length) return { ok: false, messages: problems };
      }
      // A required single checkbox must be checked (e.g. "I accept the terms").
      if (required && out === false && !ctx.convertOnly && def?.empty === false)
        return { ok: false, messages: [ctx.t('Required')] };
      if (field.validator && !ctx.convertOnly && !(out === null && !required)) {
        try {
          const msg = await field.validator(out, { field, form: ctx.form, values: ctx.values, t: ctx.t });
          if (typeof msg === 'string' && msg) return { ok: false, messages: [ctx.t(msg)] };
        } catch (e) {
          if (e instanceof ValidationError) return { ok: false, messages: [ctx.t(e.message, e.mapping)] };
          throw e;
        }
      }
      return { ok: true, value: out };
    },
  };
}

/**
 * A `group` (an object of its fields) or a `repeat` (a list of such objects): each sub-field is
 * compiled like a field of the form, and a failure names where it is ("Address 2, Street:
 * Required"), shown at the group (fields/group-widgets.ts renders it).
 */
function groupNode(field: FieldConf, opts: { t: Translate; items: readonly ListItem[] }, repeated: boolean): FieldNode {
  const subs = field.fields ?? [];
  if (subs.length === 0) throw new ConfigurationError(`Field "${field.id}": a ${fieldDatatype(field)} needs fields`);
  checkRules(subs);
  const nodes = subs.map((sub) => ({
    sub,
    node: compileField(sub, { t: opts.t, items: staticItems(sub) }),
    // A field a rule may require (rules/rules.ts) is checked as required while the rule holds.
    requiredNode: fieldRules(sub).length
      ? compileField({ ...sub, required: true }, { t: opts.t, items: staticItems(sub) })
      : undefined,
  }));
  const parseOne = async (value: unknown, ctx: ParseContext, where: string): Promise<ParseResult> => {
    const data = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    const out: Record<string, unknown> = {};
    const messages: string[] = [];
    const inputs: string[] = [];
    const faults: InputFault[] = [];
    for (const { sub, node, requiredNode } of nodes) {
      // A field its rules hide or disable is not validated and not in the data (conversion keeps it).
      const state = ctx.convertOnly ? undefined : ruleState(sub, subs, (id) => data[id]);
      if (state && !state.active) continue;
      const r = await (state?.required && requiredNode ? requiredNode : node).parse(data[sub.id], ctx);
      if (r.ok) {
        if (r.value !== null && r.value !== undefined) out[sub.id] = r.value;
      } else {
        const say = (m: string) => `${where}${ctx.t(sub.name ?? sub.id)}: ${m}`;
        messages.push(...r.messages.map(say));
        inputs.push(sub.id, ...(r.inputs ?? []).map((path) => `${sub.id}.${path}`));
        // A nested group's or repeat's own messages (not of an input inside) are the sub-field's.
        const inner = r.faults ?? [];
        const own = r.messages.filter((m) => !inner.some((f) => f.messages.includes(m)));
        if (own.length) faults.push({ input: sub.id, messages: own.map(say) });
        faults.push(...inner.map((f) => ({ input: `${sub.id}.${f.input}`, messages: f.messages.map(say) })));
      }
    }
    return messages.length ? { ok: false, messages, inputs, faults } : { ok: true, value: out };
  };
  return {
    async parse(value, ctx) {
      if (!repeated) return parseOne(value, ctx, '');
      const items = Array.isArray(value) ? value : [];
      const name = ctx.t(field.name ?? field.id);
      if (!ctx.convertOnly) {
        const least = Math.max(field.minItems ?? 0, field.required ? 1 : 0);
        if (items.length < least)
          return { ok: false, messages: [ctx.t(least === 1 ? 'Required' : 'At least ${min} items', { min: least })] };
        if (field.maxItems !== undefined && items.length > field.maxItems)
          return { ok: false, messages: [ctx.t('At most ${max} items', { max: field.maxItems })] };
      }
      const out: unknown[] = [];
      const messages: string[] = [];
      const inputs: string[] = [];
      const faults: InputFault[] = [];
      for (const [i, item] of items.entries()) {
        const r = await parseOne(item, ctx, `${name} ${i + 1}, `);
        if (r.ok) out.push(r.value);
        else {
          messages.push(...r.messages);
          inputs.push(...(r.inputs ?? []).map((path) => `${i}.${path}`));
          faults.push(...(r.faults ?? []).map((f) => ({ ...f, input: `${i}.${f.input}` })));
        }
      }
      return messages.length ? { ok: false, messages, inputs, faults } : { ok: true, value: out };
    },
  };
}
