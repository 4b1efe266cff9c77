import { skipsValidation, type ActionConf } from '../conf/action-conf.js';
import type { FieldConf } from '../conf/field-conf.js';
import type { FormClasses } from './form-classes.js';
import { attrs, cls, escapeHtml, textOrHtml } from './html.js';
import type { Translate } from '../validate/messages.js';

/** Layout settings of a form (`widget.*` options). */
export interface FormLayout {
  /** `column1_css`, `column2_css`, `column3_css` and any widget-wide setting. */
  settings: Record<string, unknown>;
  item_template: string;
  action_template: string;
  /** Button class when an action has none. */
  action_css_class: string;
  classes: FormClasses;
}

/** What an item template receives: the rendered widget plus the field's label, help and errors. */
export interface ItemContext {
  field: FieldConf;
  oid: string;
  widgetHtml: string;
  hidden: boolean;
  group: boolean;
  label: string;
  /** Help text html (escaped unless the field holds html), or ''. */
  help: string;
  errors: string[];
  layout: FormLayout;
  /**
   * Live validation checks this field (live/live-spec.ts): its error box is there even when
   * empty, a polite live region the script fills, so a screen reader hears a new message.
   */
  live?: boolean;
}

/** What an action template receives. */
export interface ActionsContext {
  formid: string;
  /** `actionPostfix` of the form. */
  postfix: string;
  actions: ActionConf[];
  layout: FormLayout;
  t: Translate;
}

/** Renders one field item. */
export type ItemTemplate = (ctx: ItemContext) => string;
/** Renders the action buttons. */
export type ActionTemplate = (ctx: ActionsContext) => string;

const col = (layout: FormLayout, n: 1 | 2 | 3, fallback: string): string => {
  const v = layout.settings[`column${n}_css`];
  return typeof v === 'string' ? v : fallback;
};

function errorBlock(ctx: ItemContext, c: FormClasses): string {
  if (!ctx.errors.length && !ctx.live) return '';
  const messages = ctx.errors.map((e) => `<div>${escapeHtml(e)}</div>`).join('');
  const a = attrs({ id: `${ctx.oid}-error`, class: c.errorMessage, 'aria-live': ctx.live ? 'polite' : undefined });
  return `<div${a}>${messages}</div>`;
}

function labelTag(ctx: ItemContext, className: string): string {
  const c = ctx.layout.classes;
  const a = attrs({
    id: `${ctx.oid}-label`,
    class: cls(className, Boolean(ctx.field.required) && c.required, ctx.errors.length > 0 && c.error),
    for: ctx.group ? undefined : ctx.oid,
  });
  return `<label${a}>${textOrHtml(ctx.label, ctx.field.html)}</label>`;
}

const hiddenItem = (ctx: ItemContext): string => `<div${attrs({ id: `item-${ctx.field.id}` })}>${ctx.widgetHtml}</div>`;

/** The default three-column item: label | widget + errors | help text. */
const fieldTemplate: ItemTemplate = (ctx) => {
  if (ctx.hidden) return hiddenItem(ctx);
  const c = ctx.layout.classes;
  const help = ctx.help ? `<div${attrs({ id: `${ctx.oid}-help`, class: c.help })}>${ctx.help}</div>` : '';
  return (
    `<div${attrs({ id: `item-${ctx.field.id}`, class: cls(c.item, ctx.errors.length > 0 && c.error) })}>` +
    labelTag(ctx, cls(c.label, col(ctx.layout, 1, 'col-md-2'))) +
    `<div${attrs({ class: col(ctx.layout, 2, 'col-md-7') })}>${ctx.widgetHtml}${errorBlock(ctx, c)}</div>` +
    `<div${attrs({ class: col(ctx.layout, 3, 'col-md-3') })}>${help}</div>` +
    `</div>`
  );
};

/** One column: label, optional `settings.preface` html, widget, errors, help text. */
const fieldOneColumnTemplate: ItemTemplate = (ctx) => {
  if (ctx.hidden) return hiddenItem(ctx);
  const c = ctx.layout.classes;
  const preface =
    typeof ctx.field.settings?.preface === 'string' ? `<div class="preface">${ctx.field.settings.preface}</div>` : '';
  const help = ctx.help ? `<p${attrs({ id: `${ctx.oid}-help`, class: c.helpOneColumn })}>${ctx.help}</p>` : '';
  return (
    `<div${attrs({ id: `item-${ctx.field.id}`, class: cls(ctx.errors.length > 0 && c.error, c.itemOneColumn) })}>` +
    labelTag(ctx, c.labelOneColumn) +
    preface +
    ctx.widgetHtml +
    errorBlock(ctx, c) +
    help +
    `</div>`
  );
};

/** The request name of an action's button: its id and the postfix, blanks as `_`. */
export const actionKey = (action: ActionConf, postfix: string): string => `${action.id}${postfix}`.replace(/\s/g, '_');

function buttons(ctx: ActionsContext): string {
  return ctx.actions
    .filter((a) => !a.hidden)
    .map((a) => {
      const key = actionKey(a, ctx.postfix);
      const b = attrs({
        id: `${ctx.formid}${key}`,
        name: key,
        type: 'submit',
        class: a.cssClass || ctx.layout.action_css_class || ctx.layout.classes.button,
        value: key,
        formnovalidate: skipsValidation(a),
      });
      return `<button${b}><span>${escapeHtml(ctx.t(a.name ?? a.id))}</span></button>`;
    })
    .join(' ');
}

/** `html` under the widget column of the three-column layout (the buttons, the progress bar). */
export function underWidgets(layout: FormLayout, html: string): string {
  return (
    '<div class="row">' +
    `<div${attrs({ class: col(layout, 1, 'col-md-2') })}></div>` +
    `<div${attrs({ class: col(layout, 2, 'col-md-7') })}>${html}</div></div>`
  );
}

/** Buttons under the widget column of the three-column layout. */
const formActionsTemplate: ActionTemplate = (ctx) =>
  `<div${attrs({ class: ctx.layout.classes.actions })}>${underWidgets(ctx.layout, buttons(ctx))}</div>`;

/** Buttons in one column. */
const formActionsOneColumnTemplate: ActionTemplate = (ctx) =>
  `<div${attrs({ class: ctx.layout.classes.actions })}><div class="">${buttons(ctx)}</div></div>`;

/**
 * Item templates by name (`widget.item_template`); add your own.
 *
 * @example
 * itemTemplates.compact = (ctx) => `<p>${ctx.widgetHtml}</p>`;
 */
export const itemTemplates: Record<string, ItemTemplate> = {
  field: fieldTemplate,
  field_onecolumn: fieldOneColumnTemplate,
};

/**
 * Action templates by name (`widget.action_template`); add your own.
 *
 * @example
 * actionTemplates.plain = (ctx) => ctx.actions.map((a) => a.id).join();
 */
export const actionTemplates: Record<string, ActionTemplate> = {
  form_actions: formActionsTemplate,
  form_actions_onecolumn: formActionsOneColumnTemplate,
};
