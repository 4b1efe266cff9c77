/* makeCustomizedViewForm: a form for a view, put together from the type's form definition, the
   view module's form settings, actions, default settings and the caller's settings, in that order
   (later ones win). */
import type { ActionConf } from '../conf/action-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import type { FormApp, Subsets, TypeConf } from '../conf/subset.js';
import type { FormInit, FormView } from './form.js';
import type { HTMLForm } from './html-form.js';
import { ObjectForm } from './object-form.js';

/** A view module's configuration; its `form` settings apply to every form of the module. */
export interface ViewModuleConf {
  id?: string;
  form?: Readonly<Record<string, unknown>>;
}

export interface CustomizedViewFormOptions<F extends HTMLForm> {
  /** The object type (or its id, looked up in `app`); its `forms` are the subsets. */
  typeconf?: string | TypeConf;
  /** Default `ObjectForm`. */
  formClass?: new (
    init: FormInit,
  ) => F;
  actions?: ActionConf[];
  defaultAction?: string | ActionConf;
  defaultSettings?: Readonly<Record<string, unknown>>;
  loadFromViewModuleConf?: ViewModuleConf;
  app?: FormApp;
}

/**
 * Builds a form for a view: `formSettingsOrSubset` is a subset name of the type's `forms` or a
 * settings dict. Settings apply in the seed's order: the type's subset definition (its
 * `options`), the view module's `form` settings, `actions` and `defaultAction`,
 * `defaultSettings`, the given settings dict. Returns the form and the subset name (or
 * undefined); `setup` is left to the caller.
 *
 * @example
 * const [form, subset] = makeCustomizedViewForm(view, obj, 'edit', { typeconf: 'article', app: content });
 * await form.setup(subset);
 */
export function makeCustomizedViewForm<F extends HTMLForm = ObjectForm>(
  view: FormView | undefined,
  forContext: unknown,
  formSettingsOrSubset: string | Readonly<Record<string, unknown>> | undefined,
  options: CustomizedViewFormOptions<F> = {},
): [form: F, subset: string | undefined] {
  const FormClass = options.formClass ?? (ObjectForm as unknown as new (init: FormInit) => F);
  const typeconf =
    typeof options.typeconf === 'string' ? options.app?.getObjectConf?.(options.typeconf) : options.typeconf;
  if (typeof options.typeconf === 'string' && !typeconf)
    throw new ConfigurationError(`Type not found (${options.typeconf})`);
  const form = new FormClass({ view, context: forContext, loadFromType: typeconf, app: options.app });

  let subset: string | undefined;
  if (typeof formSettingsOrSubset === 'string') {
    subset = formSettingsOrSubset;
    const definition = typeconf?.forms?.[subset];
    if (!definition) throw new ConfigurationError(`Unknown form subset (${subset})`);
    // The subset's options come first; setup() must not apply them again over the later settings.
    if (definition.options) form.applyOptions(definition.options);
    const { options: _applied, ...rest } = definition;
    const forms: Subsets = { ...typeconf?.forms, [subset]: rest };
    form.loadFromType = { ...(typeconf as TypeConf), forms };
    // The class's subset (e.g. ObjectForm's actions and default action of `edit`) stays the base.
    form.subsets = { ...form.subsets, ...forms, [subset]: { ...form.subsets[subset], ...rest } };
    form.subset = subset;
  }
  if (options.loadFromViewModuleConf?.form) form.applyOptions(options.loadFromViewModuleConf.form);
  if (options.actions) form.actions = options.actions;
  if (options.defaultAction) form.defaultAction = options.defaultAction;
  if (options.defaultSettings) form.applyOptions(options.defaultSettings);
  if (formSettingsOrSubset !== undefined && typeof formSettingsOrSubset !== 'string')
    form.applyOptions(formSettingsOrSubset);
  return [form, subset];
}

/** The seed's name. */
export const MakeCustomizedViewForm = makeCustomizedViewForm;
