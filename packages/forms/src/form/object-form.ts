/* ObjectForm: create children of the context object and edit the context object, with the
   optional type field and the `pepos` sort parameter. */
import type { ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import type { FieldConf } from '../conf/field-conf.js';
import type { Subsets } from '../conf/subset.js';
import { isContentObject, type ContentObject } from '../content/model.js';
import { contentErrorMessage, msgObjectNotFound, msgSaved } from './content-messages.js';
import type { FormInit, FormObject } from './form.js';
import { HTMLForm } from './html-form.js';

export interface ObjectFormInit extends FormInit {
  /** `setup()` adds the hidden `pool_type` field (and `pepos` when the request has one). */
  addTypeField?: boolean;
}

const isFormObject = (v: unknown): v is FormObject => typeof v === 'object' && v !== null;

/**
 * Forms for objects of the content model: `create` makes a child of the context, `edit` stores
 * the context's values. Set up from the object type (`loadFromType`).
 *
 * @example
 * const form = new ObjectForm({ view, context: folder, loadFromType: 'article', addTypeField: true });
 * await form.setup('create');
 * const { result, response } = await form.process({ redirectSuccess: 'obj_url' }); // result: the new object
 */
export class ObjectForm extends HTMLForm {
  static override defaultActions: readonly ActionConf[] = [
    { id: 'default', method: 'startFormRequest', name: 'Initialize', hidden: true },
    { id: 'create', method: 'createObj', name: 'Create', cssClass: 'btn btn-primary' },
    { id: 'defaultEdit', method: 'startObject', name: 'Initialize', hidden: true },
    { id: 'edit', method: 'updateObj', name: 'Save', cssClass: 'btn btn-primary' },
    { id: 'cancel', method: 'cancel', name: 'Cancel', cssClass: 'btn btn-warning' },
  ];
  static override defaultSubsets: Subsets = {
    create: { actions: ['create', 'cancel'], defaultAction: 'default' },
    edit: { actions: ['edit', 'cancel'], defaultAction: 'defaultEdit' },
  };

  addTypeField: boolean;

  constructor(init: ObjectFormInit = {}) {
    const { addTypeField, ...rest } = init;
    super(rest);
    this.addTypeField = addTypeField ?? false;
  }

  /**
   * As `Form.setup`; with `addTypeField` also the hidden `pool_type` field (replacing a readonly
   * one) and, for a sortable context and a request with `pepos`, the hidden `pepos` field.
   *
   * @example
   * await form.setup('create', true);
   */
  override async setup(subset?: string, addTypeField = this.addTypeField): Promise<void> {
    this.addTypeField = addTypeField;
    await super.setup(subset);
    if (addTypeField) this.setFields(this.#withTypeField(this.getFields(false)));
  }

  #withTypeField(fields: FieldConf[]): FieldConf[] {
    const existing = fields.find((f) => f.id === 'pool_type');
    const out =
      existing && !existing.readonly
        ? fields
        : [...fields.filter((f) => f !== existing), { id: 'pool_type', datatype: 'string', hidden: true }];
    if (this.#pepos() !== undefined && !out.some((f) => f.id === 'pepos'))
      out.push({ id: 'pepos', datatype: 'string', hidden: true });
    return out;
  }

  /** The sort parameter of the request (any method), when the context can sort its children. */
  #pepos(): string | undefined {
    const ctx = this.context;
    if (!isContentObject(ctx) || !ctx.insertAtPosition) return undefined;
    return this.getFormValue('pepos', undefined, 'ANY') || undefined;
  }

  /** Adds the type id and the sort parameter to start data. */
  #withTypeData(data: Record<string, unknown>): Record<string, unknown> {
    const conf = this.typeConf();
    if (conf) data.pool_type = conf.id;
    const pepos = this.#pepos();
    if (pepos !== undefined) data.pepos = pepos;
    return data;
  }

  /**
   * Initial render for creation: the default data plus `pool_type` (and `pepos`).
   *
   * @example
   * const [, html] = await form.startForm(action);
   */
  override async startForm(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    return [true, await this.render(this.#withTypeData(await this.startFormData(kw)))];
  }

  /**
   * Initial render for creation with defaults from the request (any method: `?title=x` prefills
   * the form), over `kw.defaults`, over the fields' defaults. The `defaults` option (a dict or
   * `(form) => dict`) replaces all of them. Adds `pool_type` and `pepos`.
   *
   * @example
   * const [, html] = await form.startFormRequest(action, { defaults: { title: 'Untitled' } });
   */
  async startFormRequest(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    let data: Record<string, unknown>;
    const preset = this.options.defaults;
    if (this.options.startEmpty) data = {};
    else if (preset !== undefined && preset !== null) {
      const value: unknown =
        typeof preset === 'function' ? await (preset as (form: ObjectForm) => unknown)(this) : preset;
      data = typeof value === 'object' && value !== null ? { ...value } : {};
    } else {
      const fromKw = typeof kw.defaults === 'object' && kw.defaults !== null ? kw.defaults : {};
      const values = this.getFormValues(undefined, 'ANY');
      const [, extracted] = await this.extract(values, true, true);
      const fromRequest = Object.fromEntries(Object.entries(extracted).filter(([k]) => k in values));
      data = { ...(await this.loadDefaultData()), ...fromKw, ...fromRequest };
    }
    return [true, await this.render(this.#withTypeData(data))];
  }

  /**
   * Initial render for editing: the data of `kw.obj` or the context. Without one the result is
   * false and the html a message.
   *
   * @example
   * const [found, html] = await form.startObject(action);
   */
  async startObject(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const obj = kw.obj ?? this.context;
    if (!isFormObject(obj)) return [false, await this.render({}, [msgObjectNotFound], undefined, true, false)];
    return [true, await this.render(await this.loadObjData(obj))];
  }

  /**
   * Validates and stores the values (plus `kw.values`) in the context object; fires
   * `success(obj)`. The result is the object (or false); redirects resolve against it.
   *
   * @example
   * const [obj, html] = await form.updateObj(action, { values: { reviewed: true }, redirectSuccess: 'obj_url' });
   */
  async updateObj(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw);
    const obj = this.context;
    const saved = isContentObject(obj) && (await obj.update({ ...data, ...kw.values }, this.actionUser(kw)));
    if (!saved) return this.finishFormProcessing(false, data, [msgObjectNotFound], undefined, kw);
    await this.signal('success', { obj });
    return this.finishFormProcessing(obj, data, [msgSaved], undefined, kw);
  }

  /**
   * Validates and creates a child of the context: the type is `kw.pool_type`, else the submitted
   * `pool_type` (which must match the form's type when it has one), else the form's type. Puts it
   * at `pepos` (`first`, `last`, or after a sibling id) and fires `success(obj)`. The result is
   * the new object; redirects resolve against it.
   *
   * @example
   * const [obj] = await form.createObj(action, { values: { source: 'import' }, redirectSuccess: 'obj_url' });
   */
  async createObj(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw);
    const fail = (msg: string): Promise<ActionResult> => this.finishFormProcessing(false, data, [msg], undefined, kw);
    const parent = this.context;
    if (!isContentObject(parent)) return fail(msgObjectNotFound);
    const type = this.#createType(kw, data);
    if (typeof type !== 'string') return fail(type.refused);
    const { pool_type: _type, pepos: _pepos, ...values } = { ...data, ...kw.values };
    const user = this.actionUser(kw);
    const pepos = this.#pepos();
    if (pepos !== undefined && !(await this.#validPosition(parent, pepos))) return fail('Invalid position');
    let created: ContentObject;
    try {
      created = await parent.create(type, values, user);
    } catch (e) {
      return fail(contentErrorMessage(e));
    }
    if (pepos !== undefined) await parent.insertAtPosition?.(created, pepos, user);
    await this.signal('success', { obj: created });
    return this.finishFormProcessing(created, data, [msgSaved], undefined, kw);
  }

  /** The type to create, or why the submitted one is refused. */
  #createType(kw: ActionKw, data: Readonly<Record<string, unknown>>): string | { refused: string } {
    if (typeof kw.pool_type === 'string' && kw.pool_type) return kw.pool_type;
    const own = this.typeConf()?.id;
    const submitted = data.pool_type;
    if (submitted === undefined || submitted === null || submitted === '')
      return own ?? { refused: 'Unknown object type' };
    if (typeof submitted !== 'string') return { refused: 'Unknown object type' };
    // A form set up from one type only creates that type: its fields belong to it.
    if (own && submitted !== own) return { refused: 'Object type not allowed.' };
    return submitted;
  }

  async #validPosition(parent: ContentObject, pepos: string): Promise<boolean> {
    if (pepos === 'first' || pepos === 'last') return true;
    return (await parent.children()).some((c) => c.id === pepos);
  }
}
