import type { FieldConf } from '../conf/field-conf.js';
import type { FormClasses } from '../render/form-classes.js';
import { attrs } from '../render/html.js';
import { browserRules, type RuleState } from './rules.js';

/** Where a ruled field is rendered: the fields beside it, their request names' prefix, its input id. */
export interface RuleBoxContext {
  field: FieldConf;
  fields: readonly FieldConf[];
  /** `''` at the top, `company.` in a group, `offices.0.` in an item of a repeat. */
  prefix: string;
  oid: string;
  state: RuleState;
  classes: FormClasses;
  /** A value beside the field by id, as the page shows it (for a scope not on the page). */
  valueAt: (id: string) => unknown;
}

/**
 * A ruled field's html in a `fieldset` that holds its state: `hidden` while a rule hides it,
 * `disabled` while hidden or disabled, so the browser neither checks nor sends its inputs (the
 * server leaves it out too: form/form.ts). The script (render/assets.ts) updates both as values
 * change; without it the state follows the data of the last submit, but for a controlset's field
 * (`openWithoutScript`), which shows. A field without rules is returned as it is.
 *
 * @example
 * ruleBox('<div id="item-vat">…</div>', { field, fields, prefix: '', oid: 'upload-vat', state, classes, valueAt });
 */
export function ruleBox(html: string, ctx: RuleBoxContext): string {
  const open = openWithoutScript(ctx.field);
  const page = { label: `${ctx.oid}-label`, requiredClass: ctx.classes.required, valueAt: ctx.valueAt, open };
  const spec = browserRules(ctx.field, ctx.fields, ctx.prefix, page);
  if (spec === undefined) return html;
  const a = attrs({
    class: 'roost-rule',
    'data-roost-rules': spec,
    hidden: !open && !ctx.state.shown,
    disabled: !open && !ctx.state.active,
  });
  return `<fieldset${a}>${html}</fieldset>`;
}

/**
 * Whether a ruled field shows without a script whatever its rules say: a controlset's field
 * (rules/controlset-rules.ts), so a page without JavaScript lets the user choose an item and fill
 * in its fields in one submit, as the controlset always did; the server still leaves out the
 * fields of the items not chosen. Its input renders without `required` (the browser would refuse
 * a submit for a field of another item); the script requires it while it shows.
 *
 * @example
 * openWithoutScript({ id: 'phone', settings: { controlledBy: 'contact' } }); // true
 */
export const openWithoutScript = (field: FieldConf): boolean => typeof field.settings?.controlledBy === 'string';
