/* The controlset as one case of the rules (issue 43, item 10): the fields of a controlset's
   items become top-level fields with a SHOW rule on the controlling field's value, so the
   server's decision (form/form.ts), the page's show/hide (rules-script.ts) and the JSON Schema
   export (rules-schema.ts) are the rules' own. */
import { fieldDatatype, type FieldConf, type ListItem } from '../conf/field-conf.js';
import type { FieldRule } from './rules.js';

/**
 * The condition on the controlling field that shows a field of its items: one of `ids` chosen
 * (a list holding one of them, for a multilist or checkboxes). Items loaded by a callback are
 * not known to the rules (rules.ts `valueKind` reads static items), so a request's text of an
 * id is matched as well.
 */
function chosenSchema(control: FieldConf, ids: ReadonlyArray<string | number>): Record<string, unknown> {
  const known = typeof control.listItems === 'function' ? [...new Set([...ids, ...ids.map(String)])] : [...ids];
  const one = known.length === 1 ? { const: known[0] } : { enum: known };
  const datatype = fieldDatatype(control);
  // Typed, as Ajv's strictTypes asks of `contains` in the export.
  return datatype === 'multilist' || datatype === 'checkbox' ? { type: 'array', contains: one } : one;
}

/**
 * `fields` with the fields of each controlset's items (`settings.controlset`, `items`: the
 * field's list items, loaded) appended right after it, each with a SHOW rule on the items that
 * hold it (added to its own rules) and `settings.controlledBy` naming the controlling field. A
 * field already in the list is not added again: a form's own list is expanded already (form.ts
 * `expandControlsets`).
 *
 * @example
 * withControlsetRules([ship], staticItems);
 * // [ship, { id: 'street', settings: { controlledBy: 'ship' },
 * //   rule: [{ effect: 'SHOW', condition: { scope: '#/properties/ship', schema: { const: 'post' } } }] }]
 */
export function withControlsetRules(
  fields: readonly FieldConf[],
  items: (field: FieldConf) => readonly ListItem[],
): FieldConf[] {
  const out: FieldConf[] = [];
  for (const field of fields) {
    if (out.some((f) => f.id === field.id)) continue;
    out.push(field);
    if (!field.settings?.controlset) continue;
    const holders = new Map<string, { sub: FieldConf; ids: Array<string | number> }>();
    for (const item of items(field)) {
      for (const sub of item.fields ?? []) {
        const entry = holders.get(sub.id) ?? { sub, ids: [] };
        entry.ids.push(item.id);
        holders.set(sub.id, entry);
      }
    }
    for (const { sub, ids } of holders.values()) {
      if (fields.some((f) => f.id === sub.id) || out.some((f) => f.id === sub.id)) continue;
      const show: FieldRule = {
        effect: 'SHOW',
        condition: { scope: `#/properties/${field.id}`, schema: chosenSchema(field, ids) },
      };
      const own = sub.rule === undefined ? [] : Array.isArray(sub.rule) ? sub.rule : [sub.rule];
      // `controlledBy`: shown without a script, as a controlset always was (rule-box.ts).
      out.push({ ...sub, settings: { ...sub.settings, controlledBy: field.id }, rule: [show, ...own] });
    }
  }
  return out;
}
