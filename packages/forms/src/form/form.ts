/* The base form: configuration (setup, subsets, options), conversion, extraction and validation.
   Rendering and action processing live in html-form.ts. Over 150 lines because it holds the
   seed's whole `Form` method table in one class; helpers are in their own modules. */
import type { ActionConf } from '../conf/action-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import { fieldDatatype, type FieldConf, type ListItem } from '../conf/field-conf.js';
import type { FormApp, Subsets, TypeConf } from '../conf/subset.js';
import { boolItems, resolveWidget } from '../fields/widgets.js';
import { defaultWidgets, WidgetInvalid, type Widget, type WidgetRegistry } from '../fields/widget.js';
import type { FormClasses } from '../render/form-classes.js';
import { defaultClasses } from '../render/form-classes.js';
import type { FormLayout } from '../render/templates.js';
import {
  isUploadedFile,
  requestValues,
  type FormRequest,
  type FormValues,
  type UploadedFile,
  type ValueSource,
} from '../request/form-request.js';
import { compileField, isEmptyValue, type FieldNode } from '../validate/field-adapter.js';
import { createTranslator, type Translate } from '../validate/messages.js';
import type { FieldError } from '../validate/validation-error.js';
import { FormEvents, type FormListener } from './form-events.js';
import type { DataEventArgs, FieldList, SubsetData } from './form-data.js';
import { formJsonSchema, type JsonSchema } from '../schema/json-schema.js';
import { defaultFormOptions, type FormOptions } from './form-options.js';
import { checkOptions } from './options-schema.js';
import { checkActionConf, checkSubset } from '../conf/conf-schema.js';
import { defaultUploadStash } from '../request/upload-stash.js';
import { checkRules, ruleState } from '../rules/rules.js';
import { withControlsetRules } from '../rules/controlset-rules.js';
import { fileUpload } from '../fields/file-widget.js';
import { namesFile } from './field-files.js';

/**
 * What a form needs from the page that uses it. All optional: the current user, url helpers for
 * redirects, static urls and a translator.
 *
 * @example
 * const view: FormView = { user: currentUser, urls: { obj_url: (obj) => `/items/${(obj as { id: string }).id}` } };
 */
export interface FormView {
  /** The current request; a form without its own `request` uses it. */
  request?: FormRequest;
  /** The object the page shows; a form without its own `context` uses it. */
  context?: unknown;
  user?: unknown;
  /** Resolves a redirect url or placeholder; replaces the built-in placeholder handling. */
  resolveUrl?(url: string, context: unknown): string;
  /** Placeholder resolvers: `obj_url`, `obj_folder_url`, `parent_url`, `page_url`, `page_url_anchor`, ... */
  urls?: Readonly<Record<string, (context: unknown) => string>>;
  staticUrl?(name: string): string;
  translate?: Translate;
  /** Keeps messages for the next page; called with the messages of a redirect (the session's flash). */
  flash?(messages: readonly string[]): void;
}

/** A stored object a form can load its data from (`loadObjData`). */
export interface FormObject {
  id?: unknown;
  data?: Readonly<Record<string, unknown>>;
  meta?: Readonly<Record<string, unknown>>;
  files?: Readonly<Record<string, unknown>>;
}

/**
 * Constructor arguments: the seed's `(view, loadFromType, context, request, app, **kw)` as one
 * object. `fields` written inline (or `as const`) types the form's data (form-data.ts).
 */
export interface FormInit<L extends FieldList = FieldList, S extends Subsets | undefined = Subsets | undefined>
  extends Partial<FormOptions> {
  view?: FormView;
  loadFromType?: string | TypeConf;
  context?: unknown;
  request?: FormRequest;
  app?: FormApp;
  /** The current user when there is no view. */
  user?: unknown;
  fields?: L;
  actions?: ActionConf[];
  /** Named selections of fields and actions; with them, typed data has every field optional (form-data.ts). */
  subsets?: S;
  subset?: string;
  defaultAction?: string | ActionConf;
  /** Widget registry to look names up in first (the default registry is the fallback). */
  widgets?: WidgetRegistry;
  /** `widget.*` layout settings, e.g. `{ item_template: 'field_onecolumn' }`. */
  widget?: Partial<Omit<FormLayout, 'classes'>> & { classes?: Partial<FormClasses> };
}

/**
 * `[result, data, errors]` of `validate` and `validateSchema`: on success the converted data
 * (typed by the field list), on failure the values as submitted, to show them again.
 */
export type ValidateResult<T = Record<string, unknown>> =
  | readonly [result: true, data: T, errors: FieldError[]]
  | readonly [result: false, data: Record<string, unknown>, errors: FieldError[]];
/** `[result, data]` of `extract` and `extractSchema`. */
export type ExtractResult = readonly [result: boolean, data: Record<string, unknown>];

/** A field compiled for validation and rendering. */
export interface CompiledField {
  field: FieldConf;
  node: FieldNode;
  widget: Widget;
  items: readonly ListItem[];
}

/** A listener of the events that carry the form's data (`process`, `success`). */
type DataListener<L extends FieldList, S> = (args: DataEventArgs<L, S>, form: FormEvents) => unknown;

type ConstructorDefaults = {
  defaultActions: readonly ActionConf[];
  defaultSubsets: Subsets;
  defaultOptions: Readonly<FormOptions>;
};

function removeNulls(
  data: Record<string, unknown>,
  removeNull: boolean,
  removeEmpty: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (removeNull && (v === null || v === undefined)) continue;
    if (removeEmpty && (v === '' || (Array.isArray(v) && v.length === 0))) continue;
    out[k] = v;
  }
  return out;
}

/**
 * The base form: field configuration, subsets, conversion, extraction and validation, with events.
 * Use `HTMLForm` to process requests and render; subclass either to add actions.
 *
 * @example
 * const form = new Form({ fields: [{ id: 'age', datatype: 'number', required: true }] });
 * await form.setup();
 * const [ok, data, errors] = await form.validate({ age: '42' }); // true, { age: 42 }, []
 */
export class Form<
  const L extends FieldList = FieldList,
  S extends Subsets | undefined = Subsets | undefined,
> extends FormEvents {
  /** Actions every instance starts with; subclasses override. */
  static defaultActions: readonly ActionConf[] = [];
  static defaultSubsets: Subsets = {};
  static defaultOptions: Readonly<FormOptions> = defaultFormOptions;

  view: FormView | undefined;
  loadFromType: string | TypeConf | undefined;
  context: unknown;
  request: FormRequest | undefined;
  app: FormApp | undefined;
  user: unknown;
  /** Configured fields: ids (resolved against the type configuration) or inline configurations. */
  fields: Array<string | FieldConf>;
  /** Configured actions; subsets select among them by id. */
  actions: ActionConf[];
  subsets: Subsets;
  subset: string | undefined;
  defaultAction: string | ActionConf | undefined;
  options: FormOptions;
  /** Layout: `settings` (`column1_css`..`column3_css`), `item_template`, `action_template`, classes. */
  widget: FormLayout;
  readonly widgets: WidgetRegistry;

  #fields: FieldConf[] | undefined;
  #actions: ActionConf[] | undefined;
  /** The class's default action list while `actions` still is it; actions set on the form win over the type's. */
  #defaultActions: ActionConf[] | undefined;
  #compiled: CompiledField[] | undefined;
  readonly #items = new Map<string, readonly ListItem[]>();
  #translator: { locale: string; catalogs: FormOptions['catalogs']; t: Translate } | undefined;
  #subsetDefaultAction: string | ActionConf | undefined;

  /** The default action of the subset set up (the form's subset or the type's), if it names one. */
  protected get subsetDefaultAction(): string | ActionConf | undefined {
    return this.subset ? this.#subsetDefaultAction : undefined;
  }

  constructor(init: FormInit<L, S> = {}) {
    super();
    const ctor = new.target as unknown as ConstructorDefaults;
    const {
      view,
      loadFromType,
      context,
      request,
      app,
      user,
      fields,
      actions,
      subsets,
      subset,
      defaultAction,
      widgets,
      widget,
      ...options
    } = init;
    this.view = view;
    this.loadFromType = loadFromType;
    this.context = context ?? view?.context;
    this.request = request ?? view?.request;
    this.app = app;
    this.user = user ?? view?.user;
    this.fields = fields ? [...fields] : [];
    this.actions = actions ?? ctor.defaultActions.map((a) => ({ ...a }));
    this.#defaultActions = actions === undefined ? this.actions : undefined;
    this.subsets = subsets ?? ctor.defaultSubsets;
    this.subset = subset;
    this.defaultAction = defaultAction;
    // `widgets` is a registry; a layout or preset given there by mistake belongs in `widget`.
    if (widgets !== undefined && !(widgets instanceof Map))
      throw new ConfigurationError('Option "widgets": a widget registry (a Map); a layout or preset goes in "widget"');
    this.widgets = widgets ?? defaultWidgets;
    this.options = { ...ctor.defaultOptions };
    this.widget = {
      settings: { column1_css: 'col-md-2', column2_css: 'col-md-7', column3_css: 'col-md-3' },
      item_template: 'field',
      action_template: 'form_actions',
      action_css_class: 'btn',
      classes: { ...defaultClasses },
    };
    this.applyOptions({ ...options, widget });
  }

  /** The translator of this form (`options.translate`, the view's, or the built-in catalogs for `options.locale`). */
  get t(): Translate {
    const explicit = this.options.translate ?? this.view?.translate;
    if (explicit) return explicit;
    const { locale, catalogs } = this.options;
    if (this.#translator?.locale !== locale || this.#translator.catalogs !== catalogs) {
      this.#translator = { locale, catalogs, t: createTranslator(locale, catalogs) };
    }
    return this.#translator.t;
  }

  /**
   * Applies settings: `widget` (an object, e.g. `presets.bootstrap5`) and `widget.X` keys set the
   * layout (`widget.item_template`, `widget.settings`, `widget.classes` merge), `useAjax` is an
   * alias of `use_ajax`, form options are set. Every key and value is checked first by the one
   * schema of the options (options-schema.ts): an unknown one or one of the wrong kind throws a
   * `ConfigurationError` with its name.
   *
   * @example
   * form.applyOptions({
   *   formid: 'signup',
   *   'widget.item_template': 'field_onecolumn',
   *   'widget.settings': { column1_css: 'col-3' },
   * });
   */
  applyOptions(settings: Readonly<Record<string, unknown>>): void {
    checkOptions(settings);
    for (const [rawKey, value] of Object.entries(settings)) {
      if (value === undefined) continue;
      const key = rawKey === 'useAjax' ? 'use_ajax' : rawKey;
      if (key === 'widget') {
        // The layout as one object (`widget: presets.bootstrap5`), merged as its `widget.<key>` options.
        for (const [name, part] of Object.entries(value as Record<string, unknown>)) this.#applyLayout(name, part);
      } else if (key.startsWith('widget.')) this.#applyLayout(key.slice('widget.'.length), value);
      else if (key === 'fields' || key === 'actions' || key === 'subsets' || key === 'defaultAction') {
        // Setting these through options mirrors the original, which set any key as an attribute.
        (this as unknown as Record<string, unknown>)[key] = value;
      } else (this.options as unknown as Record<string, unknown>)[key] = value;
    }
  }

  /** One layout key (checked by `checkOptions`): `settings` and `classes` merge, the others replace. */
  #applyLayout(name: string, value: unknown): void {
    if (value === undefined) return;
    const layout = this.widget as unknown as Record<string, unknown>;
    const prev = layout[name];
    layout[name] =
      (name === 'settings' || name === 'classes') && typeof prev === 'object' && typeof value === 'object'
        ? { ...prev, ...value }
        : value;
  }

  /** The type configuration named by `loadFromType`, or undefined. */
  protected typeConf(): TypeConf | undefined {
    const lft = this.loadFromType;
    if (!lft) return undefined;
    if (typeof lft !== 'string') return lft;
    const conf = this.lookupTypeConf(lft);
    if (!conf) throw new ConfigurationError(`Type not found (${lft})`);
    return conf;
  }

  /** Looks a type id up in the app; `ToolForm` overrides this to read tool configurations. */
  protected lookupTypeConf(id: string): TypeConf | undefined {
    return this.app?.getObjectConf?.(id);
  }

  /**
   * Loads fields, actions and subset options (from the subset, the type configuration or the
   * form) and fires `setup`. Throws `ConfigurationError` for an unknown subset or field id.
   *
   * @example
   * await form.setup('edit');
   */
  async setup(subset?: string): Promise<void> {
    this.#fields = undefined;
    this.#actions = undefined;
    this.#compiled = undefined;
    this.#items.clear();
    this.subset = subset;
    const config = this.typeConf();
    if (config?.forms && Object.keys(this.subsets).length === 0) this.subsets = config.forms;
    const given = subset ? this.subsets[subset] : undefined;
    const typed = subset ? config?.forms?.[subset] : undefined;
    if (subset && !given && !typed) throw new ConfigurationError(`Unknown form subset (${subset})`);
    if (subset && given) checkSubset(subset, given);
    if (subset && typed) checkSubset(subset, typed);
    // The class's default subsets (HTMLForm's `edit`) yield to the type's: a subset the type
    // configures wins there key by key; subsets given to the form win over the type's.
    const classDefaults = this.subsets === (this.constructor as unknown as ConstructorDefaults).defaultSubsets;
    const [own, fromType] = classDefaults && typed ? [typed, given] : [given, typed];
    this.#subsetDefaultAction = own?.defaultAction ?? fromType?.defaultAction;

    const source =
      own?.fields ??
      fromType?.fields ??
      (this.fields.length ? this.fields : undefined) ??
      this.defaultFieldSource(config);
    if (source.length === 0 && !this.fieldsOptional()) throw new ConfigurationError('No form fields defined');
    const fields: FieldConf[] = [];
    for (const entry of source) {
      if (typeof entry !== 'string') fields.push(entry);
      else {
        const found =
          config?.data.find((f) => f.id === entry) ??
          this.fields.find((f): f is FieldConf => typeof f !== 'string' && f.id === entry) ??
          this.app?.metaFields?.find((f) => f.id === entry);
        if (!found) throw new ConfigurationError(`Form field lookup failed: ${entry}`);
        fields.push(found);
      }
    }
    this.#fields = await this.expandControlsets(fields);

    // A type (or tool) configuration may bring its own actions; actions given to the form win.
    const ownActions = this.actions !== this.#defaultActions;
    const known = ownActions ? this.actions : [...(config?.actions ?? []), ...this.actions];
    const actionSource =
      own?.actions ?? fromType?.actions ?? (ownActions ? undefined : config?.actions) ?? this.actions;
    this.#actions = actionSource.flatMap((a) => (typeof a === 'string' ? this.resolveActionId(a, known) : [a]));
    for (const action of this.#actions) checkActionConf(action);
    const options = own?.options ?? fromType?.options;
    if (options) this.applyOptions(options);
    await this.signal('setup');
  }

  /** Whether a form without fields is valid (a tool without parameters is); others throw "No form fields defined". */
  protected fieldsOptional(): boolean {
    return false;
  }

  /** Fields when neither the subset nor the form names any: the app's meta fields and the type's data. */
  protected defaultFieldSource(config: TypeConf | undefined): FieldConf[] {
    return [...(this.app?.metaFields ?? []), ...(config?.data ?? [])];
  }

  /** The action configurations of an id used in a subset; unknown ids are skipped (`ToolForm` throws). */
  protected resolveActionId(id: string, known: readonly ActionConf[]): ActionConf[] {
    const found = known.find((x) => x.id === id);
    return found ? [found] : [];
  }

  /** Replaces the field list after setup (subclasses add hidden fields such as `pool_type`). */
  protected setFields(fields: FieldConf[]): void {
    this.#fields = fields;
    this.#compiled = undefined;
  }

  /** Set up with the current subset unless `setup` ran already. */
  protected async ensureSetup(): Promise<void> {
    if (!this.#fields) await this.setup(this.subset);
  }

  /**
   * Appends the fields of list items right after their controlset field, each with a SHOW rule
   * on the item(s) holding it (rules/controlset-rules.ts): the controlset is a case of the rules.
   */
  protected async expandControlsets(fields: FieldConf[]): Promise<FieldConf[]> {
    const items = new Map<string, readonly ListItem[]>();
    for (const field of fields) if (field.settings?.controlset) items.set(field.id, await this.loadListItems(field));
    return withControlsetRules(fields, (field) => items.get(field.id) ?? []);
  }

  /**
   * The list items of a field: static, or from the async callback `(field, context, user)`, loaded
   * once per form instance. `bool` fields without items get Yes/No.
   *
   * @example
   * const items = await form.loadListItems(form.getField('country')!);
   */
  async loadListItems(field: FieldConf): Promise<readonly ListItem[]> {
    const cached = this.#items.get(field.id);
    if (cached) return cached;
    let items: readonly ListItem[];
    if (typeof field.listItems === 'function') items = await field.listItems(field, this.context, this.user);
    else if (field.listItems) items = field.listItems;
    else if (fieldDatatype(field) === 'bool') items = boolItems.map((i) => ({ ...i, name: this.t(i.name) }));
    else items = [];
    this.#items.set(field.id, items);
    return items;
  }

  /**
   * A group's or repeat's fields with their callback `listItems` loaded (at any depth): the
   * nested widgets and conversions read static items only (fields/group-widgets.ts,
   * validate/field-adapter.ts), so a callback there would give an empty select accepting anything.
   */
  protected async withNestedItems(field: FieldConf): Promise<FieldConf> {
    if (!field.fields) return field;
    const fields = await Promise.all(
      field.fields.map(async (sub) => {
        const loaded =
          typeof sub.listItems === 'function'
            ? { ...sub, listItems: [...(await sub.listItems(sub, this.context, this.user))] }
            : sub;
        return this.withNestedItems(loaded);
      }),
    );
    return { ...field, fields };
  }

  /**
   * Compiles fields into nodes (conversion + validators) with their widgets. A field's own `node`
   * is used unless `force` is true.
   *
   * @example
   * const compiled = await form.defaultSchemaFactory(form.getFields());
   */
  async defaultSchemaFactory(fields: readonly FieldConf[], force = false): Promise<CompiledField[]> {
    // A subset's fields may have rules on the fields of another subset (a wizard's earlier step).
    checkRules(fields, this.subset !== undefined);
    const out: CompiledField[] = [];
    for (const given of fields) {
      const field = await this.withNestedItems(given);
      const items = await this.loadListItems(field);
      const node = field.node && !force ? field.node : compileField(field, { t: this.t, items });
      const preferred = field.node && !force ? field.node.widget : undefined;
      out.push({ field, node, widget: resolveWidget(field, items, this.widgets, preferred), items });
    }
    return out;
  }

  /** The compiled fields of this form (cached until the next `setup`). */
  protected async compiled(): Promise<CompiledField[]> {
    await this.ensureSetup();
    this.#compiled ??= await this.defaultSchemaFactory(this.getFields());
    return this.#compiled;
  }

  /**
   * The form's fields after setup; readonly fields are removed unless `removeReadonly` is false.
   *
   * @example
   * form.getFields().map((f) => f.id);
   */
  getFields(removeReadonly = true): FieldConf[] {
    const all = this.#fields ?? this.fields.filter((f): f is FieldConf => typeof f !== 'string');
    return removeReadonly ? all.filter((f) => !f.readonly) : [...all];
  }

  /**
   * The form's actions after setup in configured order; hidden ones removed with `removeHidden`.
   *
   * @example
   * form.getActions(true).map((a) => a.id);
   */
  getActions(removeHidden = false): ActionConf[] {
    const all = this.#actions ?? this.actions;
    return removeHidden ? all.filter((a) => !a.hidden) : [...all];
  }

  /**
   * One field by id, or undefined.
   *
   * @example
   * form.getField('email')?.required;
   */
  getField(fieldid: string): FieldConf | undefined {
    return this.getFields(false).find((f) => f.id === fieldid);
  }

  /**
   * The request values for the form's method (or the given one).
   *
   * @example
   * form.getFormValues(undefined, 'GET');
   */
  getFormValues(request?: FormRequest, method?: ValueSource): FormValues {
    return requestValues(request ?? this.request, method ?? this.options.method);
  }

  /**
   * One request value as a string (the first of repeated values), or undefined. With method
   * `ANY`/`ALL`, POST is tried before GET.
   *
   * @example
   * form.getFormValue('q', undefined, 'GET');
   */
  getFormValue(key: string, request?: FormRequest, method?: ValueSource): string | undefined {
    const v = this.getFormValues(request, method)[key];
    const one = Array.isArray(v) ? v[0] : v;
    return typeof one === 'string' ? one : undefined;
  }

  /**
   * The uploaded file of a field as the library's file object (`filekey` and `tempfile` set), or
   * undefined.
   *
   * @example
   * const file = form.convertFileUpload('avatar');
   */
  convertFileUpload(key: string, method: ValueSource = 'POST'): UploadedFile | undefined {
    const v = this.getFormValues(undefined, method)[key];
    const one = Array.isArray(v) ? v[0] : v;
    return isUploadedFile(one) && (one.size > 0 || one.filename) ? { ...one, filekey: key, tempfile: true } : undefined;
  }

  /**
   * Data of a stored object for the form's fields (`data`, then `meta`, `files` for file fields);
   * passwords are blanked. Fires `loadDataObj(data, obj)`.
   *
   * @example
   * const data = await form.loadObjData({ data: { title: 'Hi' } });
   */
  async loadObjData(
    obj: FormObject | undefined = this.context as FormObject | undefined,
  ): Promise<Record<string, unknown>> {
    await this.ensureSetup();
    const data: Record<string, unknown> = {};
    if (obj) {
      for (const f of this.getFields()) {
        const dt = fieldDatatype(f);
        if (dt === 'password') data[f.id] = '';
        else if (obj.data && f.id in obj.data) data[f.id] = obj.data[f.id];
        else if (obj.meta && f.id in obj.meta) data[f.id] = obj.meta[f.id];
        else if (dt === 'file' && obj.files && f.id in obj.files) data[f.id] = obj.files[f.id];
      }
    }
    await this.signal('loadDataObj', { data, obj });
    return data;
  }

  /**
   * `{id: default}` for every field with a default. Fires `loadDefault(data)`.
   *
   * @example
   * const data = await form.loadDefaultData();
   */
  async loadDefaultData(): Promise<Record<string, unknown>> {
    await this.ensureSetup();
    const data: Record<string, unknown> = {};
    for (const f of this.getFields()) if (f.default !== undefined && f.default !== null) data[f.id] = f.default;
    await this.signal('loadDefault', { data });
    return data;
  }

  /**
   * Reads, converts and checks every field. `fromWidgets`: read through the widgets (request
   * values) or take the values as they are (app data). `only`: the one field of that id (a live
   * check: html-form.ts).
   */
  protected async run(
    data: Readonly<Record<string, unknown>>,
    opts: { fromWidgets: boolean; convertOnly: boolean; only?: string },
  ): Promise<{ ok: boolean; values: Record<string, unknown>; raw: Record<string, unknown>; errors: FieldError[] }> {
    const compiled = await this.compiled();
    if (opts.fromWidgets) data = await this.#restoreKeptUploads(data, compiled);
    const values: Record<string, unknown> = {};
    const raw: Record<string, unknown> = {};
    const errors: FieldError[] = [];
    const fields = compiled.map((c) => c.field);
    const read = (c: CompiledField): unknown =>
      opts.fromWidgets ? c.widget.read(c.field, data as FormValues) : data[c.field.id];
    // A rule's scope not among the fields set up (another subset's) is read from the data by its id.
    const valueAt = (id: string): unknown => {
      const c = compiled.find((entry) => entry.field.id === id);
      return c ? read(c) : data[id];
    };
    for (const entry of compiled) {
      const { field, items } = entry;
      if (opts.only !== undefined && field.id !== opts.only) continue;
      const value: unknown = read(entry);
      // Rules (rules/rules.ts): a hidden or disabled field is not validated and not in the data,
      // but shown again as typed; a field a rule requires is checked as required.
      const state = opts.convertOnly ? undefined : ruleState(field, fields, valueAt);
      if (state && !state.active) {
        raw[field.id] = value;
        continue;
      }
      const node =
        state?.required && !field.required
          ? compileField({ ...field, required: true }, { t: this.t, items })
          : entry.node;
      if (value instanceof WidgetInvalid) {
        errors.push({ field: field.id, messages: [this.t(value.msgid)] });
        raw[field.id] = value.value;
        continue;
      }
      if (value === undefined && opts.convertOnly) continue;
      raw[field.id] = value;
      const r = await node.parse(value, { t: this.t, form: this, values: data, convertOnly: opts.convertOnly });
      if (r.ok) values[field.id] = r.value === undefined && isEmptyValue(value) ? null : r.value;
      else {
        const inputs = r.inputs?.map((path) => `${field.id}.${path}`);
        const faults = r.faults?.map((f) => ({ ...f, input: `${field.id}.${f.input}` }));
        errors.push({
          field: field.id,
          messages: r.messages,
          ...(inputs?.length ? { inputs } : {}),
          ...(faults?.length ? { faults } : {}),
        });
        values[field.id] = value;
      }
    }
    // Form-level checks need every field: a live check of one field (html-form.ts) has no place for them.
    if (!opts.convertOnly && opts.only === undefined && errors.length === 0)
      errors.push(...(await this.validateForm(values)));
    return { ok: errors.length === 0, values, raw, errors };
  }

  /**
   * A file field without a new upload takes the one kept when the form last came back with
   * errors (its `<name>$kept` token: fields/file-widget.ts, request/upload-stash.ts), at any
   * depth (`docs.0.file$kept` in a repeat item: form/field-files.ts).
   */
  async #restoreKeptUploads(
    data: Readonly<Record<string, unknown>>,
    compiled: readonly CompiledField[],
  ): Promise<Readonly<Record<string, unknown>>> {
    let out = data;
    const fields = compiled.map((c) => c.field);
    for (const [key, token] of Object.entries(data)) {
      const name = /^(.+)\$kept$/.exec(key)?.[1];
      if (name === undefined || typeof token !== 'string' || !namesFile(fields, name.split('.'))) continue;
      if (fileUpload.read({ id: name }, data as FormValues) !== undefined) continue;
      const file = await (this.options.uploadStash ?? defaultUploadStash).take(token);
      if (file) out = { ...out, [name]: file };
    }
    return out;
  }

  /**
   * Form-level checks after every field passed (e.g. two fields that must differ). Return errors
   * with `field: ''` for messages about the whole form. Subclasses override; the default has none.
   */
  protected async validateForm(_data: Readonly<Record<string, unknown>>): Promise<FieldError[]> {
    return [];
  }

  /**
   * Validates html widget data (request values): fires `validate(data)`, converts, checks required
   * fields and validators, then fires `process(data)` on success. On failure returns the submitted
   * values (to re-render) and the errors.
   *
   * @example
   * const [ok, data, errors] = await form.validate({ email: 'a@b.example' });
   */
  async validate(data: FormValues, removeNull = true): Promise<ValidateResult<SubsetData<L, S>>> {
    await this.ensureSetup();
    await this.signal('validate', { data });
    const r = await this.run(data, { fromWidgets: true, convertOnly: false });
    if (!r.ok) return [false, r.raw, r.errors];
    const out = removeNulls(r.values, removeNull, false);
    await this.signal('process', { data: out });
    return [true, out as SubsetData<L, S>, []];
  }

  /**
   * The JSON Schema (draft 2020-12) of this form's valid data: its fields after setup, list items
   * loaded (schema/json-schema.ts).
   *
   * @example
   * const schema = await form.jsonSchema('Sign-up');
   */
  async jsonSchema(title?: string): Promise<JsonSchema> {
    await this.ensureSetup();
    const fields = await Promise.all(
      this.getFields().map(async (f) =>
        this.withNestedItems(
          typeof f.listItems === 'function' ? { ...f, listItems: [...(await this.loadListItems(f))] } : f,
        ),
      ),
    );
    return formJsonSchema(fields, { title });
  }

  /**
   * Registers a listener; `process` (and `HTMLForm`'s `success`) get `{ data }` typed by the
   * field list (form-data.ts), so a listener needs no cast.
   *
   * @example
   * form.listenEvent('process', ({ data }) => console.log(data));
   */
  override listenEvent(signal: 'process' | 'success', fn: DataListener<L, S>): void;
  override listenEvent(signal: string, fn: FormListener): void;
  override listenEvent(signal: string, fn: FormListener | DataListener<L, S>): void {
    // The overloads above say which arguments each signal carries; the registry keeps one type.
    super.listenEvent(signal, fn as FormListener);
  }

  /**
   * Validates raw app data (no widgets: values may already be numbers, lists, ...). Fires
   * `validate(data)`. On failure returns the input data.
   *
   * @example
   * const [ok, data] = await form.validateSchema({ age: 42 });
   */
  async validateSchema(
    data: Readonly<Record<string, unknown>>,
    removeNull = true,
  ): Promise<ValidateResult<SubsetData<L, S>>> {
    await this.ensureSetup();
    await this.signal('validate', { data });
    const r = await this.run(data, { fromWidgets: false, convertOnly: false });
    if (!r.ok) return [false, { ...data }, r.errors];
    return [true, removeNulls(r.values, removeNull, false) as SubsetData<L, S>, []];
  }

  /**
   * Converts html widget data without validation (no required check, no validators, no events).
   * Fields that fail conversion keep their submitted value and make the result false.
   *
   * @example
   * const [ok, data] = await form.extract({ age: '42', note: '' }, true, true); // { age: 42 }
   */
  async extract(data: FormValues, removeNull = true, removeEmpty = false): Promise<ExtractResult> {
    const r = await this.run(data, { fromWidgets: true, convertOnly: true });
    return [r.ok, removeNulls(r.values, removeNull, removeEmpty)];
  }

  /**
   * Converts raw app data without validation; on failure returns the input unchanged.
   *
   * @example
   * const [ok, data] = await form.extractSchema({ age: '42' });
   */
  async extractSchema(
    data: Readonly<Record<string, unknown>>,
    removeNull = false,
    removeEmpty = false,
  ): Promise<ExtractResult> {
    const r = await this.run(data, { fromWidgets: false, convertOnly: true });
    if (!r.ok) return [false, { ...data }];
    return [true, removeNulls(r.values, removeNull, removeEmpty)];
  }
}
