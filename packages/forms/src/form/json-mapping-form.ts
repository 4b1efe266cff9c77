/* JsonMappingForm: the form's fields stored as one dictionary in one JSON field of the context. */
import type { ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import { isContentObject } from '../content/model.js';
import type { FormValues } from '../request/form-request.js';
import { msgObjectNotFound, msgSaved } from './content-messages.js';
import type { ExtractResult, FormInit, ValidateResult } from './form.js';
import { HTMLForm } from './html-form.js';
import { isDict, jsonFormActions, msgUnreadable, readJsonField } from './json-field.js';

export interface JsonMappingFormInit extends FormInit {
  /** The field of the context's data holding the dictionary. Default `data`. */
  jsonDataField?: string;
  /** Merge form values into the stored dictionary (keeping other keys). Default true. */
  mergeContext?: boolean;
}

/**
 * Maps form fields to one JSON field of the context object, always stored as a dictionary. With
 * `mergeContext`, keys of the stored dictionary that the form does not show are kept.
 *
 * @example
 * const form = new JsonMappingForm({
 *   context: site,
 *   jsonDataField: 'settings',
 *   fields: [{ id: 'theme', datatype: 'string' }],
 * });
 * const { result } = await form.process(); // after `edit$`: the stored dictionary
 */
export class JsonMappingForm extends HTMLForm {
  static override defaultActions: readonly ActionConf[] = jsonFormActions;

  jsonDataField: string;
  mergeContext: boolean;

  constructor(init: JsonMappingFormInit = {}) {
    const { jsonDataField, mergeContext, ...rest } = init;
    super(rest);
    this.jsonDataField = jsonDataField ?? 'data';
    this.mergeContext = mergeContext ?? true;
  }

  /** The stored dictionary (a copy; `{}` when empty or unreadable). */
  protected storedDict(): { dict: Record<string, unknown>; readable: boolean } {
    const { value, readable } = readJsonField(this.context, this.jsonDataField);
    if (value === undefined || value === null) return { dict: {}, readable };
    return isDict(value) ? { dict: { ...value }, readable } : { dict: {}, readable: false };
  }

  #merged(data: Record<string, unknown>): Record<string, unknown> {
    return this.mergeContext && this.context ? { ...this.storedDict().dict, ...data } : data;
  }

  /**
   * Validates; on success the data is merged into the stored dictionary (`mergeContext`).
   *
   * @example
   * const [ok, dict] = await form.validate({ theme: 'dark' }); // { ...stored, theme: 'dark' }
   */
  override async validate(data: FormValues, removeNull = true): Promise<ValidateResult> {
    const [ok, values, errors] = await super.validate(data, removeNull);
    return ok ? [true, this.#merged(values), errors] : [ok, values, errors];
  }

  /**
   * Converts without validation, merged like `validate`.
   *
   * @example
   * const [, dict] = await form.extract({ theme: 'dark' });
   */
  override async extract(data: FormValues, removeNull = true, removeEmpty = false): Promise<ExtractResult> {
    const [ok, values] = await super.extract(data, removeNull, removeEmpty);
    return [ok, this.#merged(values)];
  }

  /**
   * Renders the stored dictionary; a stored value that is not a dictionary (or not JSON) shows a
   * warning and an empty form.
   *
   * @example
   * const [, html] = await form.startObject(action);
   */
  async startObject(_action: ActionConf, _kw: ActionKw = {}): Promise<ActionResult> {
    const { dict, readable } = this.storedDict();
    return [
      true,
      await this.render(dict, readable ? [] : [msgUnreadable], undefined, false, readable ? undefined : false),
    ];
  }

  /**
   * Validates and stores the (merged) dictionary in the context's JSON field; fires
   * `success(data)`. The result is the stored dictionary.
   *
   * @example
   * const [dict, html] = await form.updateObj(action);
   */
  async updateObj(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return this.finishFormProcessing(false, data, [], errors, kw);
    const obj = this.context;
    const saved = isContentObject(obj) && (await obj.update({ [this.jsonDataField]: data }, this.actionUser(kw)));
    if (!saved) return this.finishFormProcessing(false, data, [msgObjectNotFound], undefined, kw);
    await this.signal('success', { data });
    return this.finishFormProcessing(data, data, [msgSaved], undefined, kw);
  }
}
