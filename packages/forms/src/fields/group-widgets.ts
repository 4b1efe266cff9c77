import { staticItems, type FieldConf } from '../conf/field-conf.js';
import type { FormValues } from '../request/form-request.js';
import { attrs, cls, escapeHtml } from '../render/html.js';
import { textValue, type Widget, type WidgetRenderInput } from './widget.js';
import { ruleBox } from '../rules/rule-box.js';
import { ruledField, ruleState } from '../rules/rules.js';

/**
 * Groups rendered inline, as deform and react-jsonschema-form do: a `group` field holds an
 * object of its `fields` (request names `address.street`), a `repeat` field a list of them
 * (`addresses.0.street`, `addresses.1.street`, …). Add and remove work without JavaScript (submit
 * buttons `<id>$add` and `<id>$remove`, which `HTMLForm.process` answers by showing the form
 * again: html-form.ts) and with it (render/assets.ts clones the item `<template>`).
 */

/**
 * The placeholders of an item's index and position in the template a script clones, one pair per
 * depth of repeats: cloning an outer item replaces its own pair only, so the template of a repeat
 * inside it keeps its placeholders for its own Add (render/assets.ts reads them from the box).
 */
const placeholders = (depth: number): { index: string; position: string } =>
  depth === 0
    ? { index: '__index__', position: '__position__' }
    : { index: `__index${depth}__`, position: `__position${depth}__` };

/** How many repeats hold a field: its request name has one item index (or placeholder) per repeat. */
const repeatDepth = (fieldId: string): number =>
  fieldId.split('.').filter((part) => /^(\d+|__index\d*__)$/.test(part)).length;

/** A sub-field under the group's name: its request name, its id in the page. */
const nested = (sub: FieldConf, prefix: string): FieldConf => ({ ...sub, id: `${prefix}.${sub.id}` });

/**
 * The item indexes present in the request under `prefix.<n>.`, in the order the request lists
 * them (the page's order, which the script's Move up and Move down change: render/assets.ts), gaps
 * not kept. The index names an item, its place in the request orders it.
 */
function indexesOf(values: FormValues, prefix: string): number[] {
  const found = new Set<number>();
  const head = `${prefix}.`;
  for (const key of Object.keys(values)) {
    if (!key.startsWith(head)) continue;
    const n = /^(\d{1,4})\./.exec(key.slice(head.length))?.[1];
    if (n !== undefined) found.add(Number(n));
  }
  return [...found];
}

/**
 * The indexes after a Move up or Move down pressed without JavaScript (`<id>$up` or `<id>$down`
 * with the item's index): the item swaps places with its neighbour; at either end nothing moves.
 */
function moved(indexes: readonly number[], values: FormValues, fieldId: string): number[] {
  const out = [...indexes];
  for (const [button, step] of [
    ['up', -1],
    ['down', 1],
  ] as const) {
    const pressed = textValue(values[`${fieldId}$${button}`]);
    const at = pressed === undefined ? -1 : out.indexOf(Number(pressed));
    const to = at + step;
    if (at < 0 || to < 0 || to >= out.length) continue;
    [out[at], out[to]] = [out[to] as number, out[at] as number];
  }
  return out;
}

/**
 * The group widgets over a way to find a sub-field's widget (the form's registry lives in
 * fields/widgets.ts, which registers these: a function breaks the import cycle).
 */
export function groupWidgets(widgetOf: (field: FieldConf) => Widget): { group: Widget; repeat: Widget } {
  const readGroup = (field: FieldConf, values: FormValues, prefix: string): Record<string, unknown> | undefined => {
    const out: Record<string, unknown> = {};
    let seen = false;
    for (const sub of field.fields ?? []) {
      const value = widgetOf(sub).read(nested(sub, prefix), values);
      if (value !== undefined) seen = true;
      out[sub.id] = value;
    }
    return seen ? out : undefined;
  };

  const renderGroup = (input: WidgetRenderInput, prefix: string, oid: string, value: unknown): string => {
    const data = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    const subs = input.field.fields ?? [];
    return subs
      .map((configured) => {
        // A rule in a group or item reads the fields beside it there (rules/rules.ts).
        const valueAt = (id: string) => data[id];
        const state = ruleState(configured, subs, valueAt);
        const sub = ruledField(configured, state);
        const subOid = `${oid}-${sub.id}`;
        const widget = widgetOf(sub);
        const html = widget.render({
          ...input,
          field: nested(sub, prefix),
          oid: subOid,
          value: data[sub.id],
          items: staticItems(sub),
          invalid: input.invalidInputs?.has(`${prefix}.${sub.id}`) ?? false,
          describedBy: undefined,
        });
        const label = `<label${attrs({
          id: `${subOid}-label`,
          for: widget.group ? undefined : subOid,
          class: cls('roost-group-label', Boolean(sub.required) && input.classes.required),
        })}>${escapeHtml(input.t(sub.name ?? sub.id))}</label>`;
        const item = `<div${attrs({ class: 'roost-group-field' })}>${label}${html}</div>`;
        const where = { field: configured, fields: subs, prefix: `${prefix}.`, oid: subOid, state, valueAt };
        return ruleBox(item, { ...where, classes: input.classes });
      })
      .join('');
  };

  const group: Widget = {
    group: true,
    read: (field, values) => readGroup(field, values, field.id),
    render: (input) =>
      `<div${attrs({ id: input.oid, class: 'roost-group', role: 'group', 'aria-labelledby': `${input.oid}-label` })}>` +
      `${renderGroup(input, input.field.id, input.oid, input.value)}</div>`,
  };

  const repeat: Widget = {
    group: true,
    read: (field, values) => {
      const remove = textValue(values[`${field.id}$remove`]);
      const add = values[`${field.id}$add`] !== undefined;
      const indexes = moved(indexesOf(values, field.id), values, field.id).filter((n) => String(n) !== remove);
      const items = indexes.map((n) => readGroup(field, values, `${field.id}.${n}`) ?? {});
      // Add stops at maxItems, as the script's Add does (render/assets.ts).
      if (add && (field.maxItems === undefined || items.length < field.maxItems)) items.push({});
      const changed =
        remove !== undefined || add || ['up', 'down'].some((b) => values[`${field.id}$${b}`] !== undefined);
      return items.length || changed ? items : undefined;
    },
    render: (input) => {
      const given: unknown[] = Array.isArray(input.value) ? input.value : [];
      // minItems empty items from the start, so a form asking for one address shows its inputs.
      const missing = Math.max(0, (input.field.minItems ?? 0) - given.length);
      const items = [...given, ...Array.from({ length: missing }, () => ({}))];
      const { index, position } = placeholders(repeatDepth(input.field.id));
      const name = input.t(input.field.name ?? input.field.id);
      const item = (value: unknown, n: string, position: string) => {
        const remove = attrs({
          type: 'submit',
          name: `${input.field.id}$remove`,
          value: n,
          formnovalidate: true,
          class: cls(input.classes.button, 'roost-repeat-remove'),
          'data-roost-repeat-remove': true,
        });
        // Move up and Move down: submit buttons as Remove is, moved in place by the script.
        const move = (dir: 'up' | 'down', label: string) =>
          `<button${attrs({
            type: 'submit',
            name: `${input.field.id}$${dir}`,
            value: n,
            formnovalidate: true,
            class: cls(input.classes.button, `roost-repeat-${dir}`),
            [`data-roost-repeat-${dir}`]: true,
          })}>${escapeHtml(input.t(label))}</button>`;
        return (
          `<fieldset${attrs({ class: 'roost-repeat-item', 'data-roost-item': true })}>` +
          `<legend>${escapeHtml(`${name} ${position}`)}</legend>` +
          renderGroup(input, `${input.field.id}.${n}`, `${input.oid}-${n}`, value) +
          `<button${remove}>${escapeHtml(input.t('Remove'))}</button>` +
          `${move('up', 'Move up')}${move('down', 'Move down')}</fieldset>`
        );
      };
      const add = attrs({
        type: 'submit',
        name: `${input.field.id}$add`,
        value: '1',
        formnovalidate: true,
        class: cls(input.classes.button, 'roost-repeat-add'),
        'data-roost-repeat-add': true,
        disabled: input.field.maxItems !== undefined && items.length >= input.field.maxItems,
      });
      const box = attrs({
        id: input.oid,
        class: 'roost-repeat',
        role: 'group',
        'aria-labelledby': `${input.oid}-label`,
        'data-roost-repeat': input.field.id,
        'data-roost-next': items.length,
        'data-roost-index': index,
        'data-roost-position': position,
        'data-roost-max': input.field.maxItems,
        'data-roost-label': name,
      });
      return (
        `<div${box}>` +
        items.map((v, i) => item(v, String(i), String(i + 1))).join('') +
        `<template data-roost-repeat-template>${item({}, index, position)}</template>` +
        `<button${add}>${escapeHtml(input.t('Add'))}</button>` +
        // Where the script announces a move (render/assets.ts); screen readers only.
        // (aria-live, not role=status: an ajax reply focuses the first role=status, a message).
        `<div${attrs({
          class: 'roost-sr-only',
          'aria-live': 'polite',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a message id, filled in by the script
          'data-roost-announce': input.t('${item} moved to position ${position} of ${count}'),
        })}></div></div>`
      );
    },
  };
  return { group, repeat };
}
