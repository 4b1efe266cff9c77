/* One schema of every option a form takes (issue 43, item 7): the constructor, `applyOptions`
   and a subset's `options` are all checked by it, so an unknown or misplaced option, or one of
   the wrong kind, throws a ConfigurationError with its name instead of being ignored. */
import { z } from 'zod';
import { ConfigurationError } from '../conf/configuration-error.js';
import type { FormOptions } from './form-options.js';

const text = z.string();
const flag = z.boolean();
const callable = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'a function');
const redirect = z.union([text, callable]);
const strings = z.record(z.string(), z.string());

/** The layout (`widget` option, `widget.<key>` options): render/templates.ts `FormLayout`. */
const layoutShape = {
  settings: z.record(z.string(), z.unknown()),
  item_template: text,
  action_template: text,
  action_css_class: text,
  classes: strings,
};

/** The form options proper (form-options.ts `FormOptions`), each with the kind it must be. */
const formOptionShape = {
  formid: text,
  css_class: text,
  actionPostfix: text,
  method: z.string().regex(/^(POST|GET|ALL|ANY)$/i, 'POST, GET, ALL or ANY'),
  action: text,
  anchor: text,
  uploadProgressBar: z.enum(['auto', 'none', 'always']),
  use_ajax: flag,
  renderSuccess: flag,
  successResponseBody: z.union([text, callable]),
  redirectSuccess: redirect,
  redirectCancel: redirect,
  startEmpty: flag,
  novalidate: flag,
  footer: text,
  hiddenValues: strings,
  autofill: z.union([text, flag]),
  locale: text,
  catalogs: z.record(z.string(), z.record(z.string(), z.string())),
  translate: callable,
  staticUrl: callable,
  skipUnselectedControls: flag,
  defaults: z.unknown(),
  uploadStash: z.looseObject({ keep: callable, take: callable }),
  liveValidation: flag,
} satisfies Record<keyof FormOptions, z.ZodType>;

/** Every key `applyOptions` takes: the form options, the layout, and what a subset may set. */
const optionsSchema = z
  .strictObject({
    ...formOptionShape,
    // The original's spelling of use_ajax.
    useAjax: flag,
    widget: z.strictObject(layoutShape).partial(),
    ...Object.fromEntries(Object.entries(layoutShape).map(([k, v]) => [`widget.${k}`, v])),
    fields: z.array(z.union([text, z.looseObject({ id: text })])),
    actions: z.array(z.looseObject({ id: text })),
    subsets: z.record(z.string(), z.looseObject({})),
    defaultAction: z.union([text, z.looseObject({ id: text })]),
  })
  .partial();

/** Option keys by kind, for the message that lists what there is. */
const known = (): string => Object.keys(optionsSchema.shape).join(', ');

/**
 * Checks options against the one schema of them; throws a `ConfigurationError` naming each
 * unknown option (with the known ones) and each option of the wrong kind.
 *
 * @example
 * checkOptions({ widgets: presets.bootstrap5 }); // throws: Unknown option "widgets" …
 */
export function checkOptions(options: Readonly<Record<string, unknown>>): void {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const result = optionsSchema.safeParse(defined);
  if (result.success) return;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((k) => `"${where ? `${where}.` : ''}${k}"`).join(', ');
      if (where === 'widget' || issue.keys.some((k) => k.startsWith('widget.')))
        return `Unknown option ${names}: the widget options are ${Object.keys(layoutShape).join(', ')}`;
      return `Unknown option ${names}: the options are ${known()}`;
    }
    return `Option "${where}": ${issue.message}`;
  });
  throw new ConfigurationError(problems.join('; '));
}
