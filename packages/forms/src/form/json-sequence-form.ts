/* JsonSequenceForm: a list of items (dictionaries) in one JSON field of the context, each item
   edited with the form's fields. Items are addressed by their 1-based position. */
import type { ActionConf, ActionKw, ActionResult } from '../conf/action-conf.js';
import { isContentObject } from '../content/model.js';
import { hiddenValueInputs } from '../render/form-renderer.js';
import { attrs, escapeHtml } from '../render/html.js';
import { msgObjectNotFound, msgSaved } from './content-messages.js';
import type { FormInit } from './form.js';
import { HTMLForm } from './html-form.js';
import { isDict, jsonFormActions, msgUnreadable, readJsonField } from './json-field.js';

export interface JsonSequenceFormInit extends FormInit {
  /** The field of the context's data holding the list. Default `data`. */
  jsonDataField?: string;
  /** Item key that must be unique among items ("Item exists!"); empty for none. Default `name`. */
  jsonUniqueID?: string;
  /** Items with this key set are read-only: not listed, not editable, not deletable. Default `readonly`. */
  readonlyKey?: string;
  /**
   * The label of an item in the list (plain text, escaped). Default: its
   * unique id value, else its first field value, else `#<position>`.
   */
  itemLabel?: (item: Readonly<Record<string, unknown>>, position: number) => string;
}

const msgNotFound = 'Item not found';

/**
 * Edits a list stored in one JSON field. The default action shows an empty form (add), the item
 * at `?cc397785=<n>` (edit), or deletes the item posted as `aa876352=<n>`; `edit$` stores the
 * item (appended, or replacing item n). Below the form, the items are listed with edit links and
 * delete buttons; read-only items are not rendered.
 *
 * @example
 * const form = new JsonSequenceForm({
 *   context: page,
 *   jsonDataField: 'links',
 *   fields: [
 *     { id: 'name', required: true },
 *     { id: 'url', datatype: 'url' },
 *   ],
 * });
 * const { result, html } = await form.process();
 */
export class JsonSequenceForm extends HTMLForm {
  static override defaultActions: readonly ActionConf[] = jsonFormActions;

  jsonDataField: string;
  jsonUniqueID: string;
  readonlyKey: string;
  itemLabel: ((item: Readonly<Record<string, unknown>>, position: number) => string) | undefined;
  /** Request key naming the item to delete (POST only: a link must not delete). */
  delKey = 'aa876352';
  /** Request key (and hidden field) naming the item being edited. */
  editKey = 'cc397785';

  constructor(init: JsonSequenceFormInit = {}) {
    const { jsonDataField, jsonUniqueID, readonlyKey, itemLabel, ...rest } = init;
    super(rest);
    this.itemLabel = itemLabel;
    this.jsonDataField = jsonDataField ?? 'data';
    this.jsonUniqueID = jsonUniqueID ?? 'name';
    this.readonlyKey = readonlyKey ?? 'readonly';
  }

  /** Adds the hidden edit-position field. */
  override async setup(subset?: string): Promise<void> {
    await super.setup(subset);
    const fields = this.getFields(false);
    if (!fields.some((f) => f.id === this.editKey))
      this.setFields([...fields, { id: this.editKey, datatype: 'string', hidden: true }]);
  }

  /** The stored list (a copy; `[]` when empty or unreadable). */
  protected storedItems(): { items: unknown[]; readable: boolean } {
    const { value, readable } = readJsonField(this.context, this.jsonDataField);
    if (value === undefined || value === null) return { items: [], readable };
    return Array.isArray(value) ? { items: [...value], readable } : { items: [], readable: false };
  }

  /** Items the form may show and change: dictionaries without the read-only mark. */
  #editable(item: unknown): item is Record<string, unknown> {
    return isDict(item) && !item[this.readonlyKey];
  }

  /** A 1-based position from a request value; 0 for none or anything that is not a positive integer. */
  #position(raw: unknown): number {
    return typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  }

  async #store(items: unknown[], kw: ActionKw): Promise<boolean> {
    const obj = this.context;
    return isContentObject(obj) && obj.update({ [this.jsonDataField]: items }, this.actionUser(kw));
  }

  /**
   * Add, edit or delete by request: `aa876352=<n>` in the POST body deletes item n (fires
   * `delete(data)` with the remaining list), `cc397785=<n>` (any method) loads item n into the
   * form; otherwise an empty form. Unknown or read-only positions answer "Item not found".
   *
   * @example
   * const [, html] = await form.startObject(action);
   */
  async startObject(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const { items, readable } = this.storedItems();
    const warn = readable ? [] : [msgUnreadable];
    const del = this.#position(this.getFormValue(this.delKey, undefined, 'POST'));
    if (del) {
      if (!this.#editable(items[del - 1]))
        return [false, await this.render({}, [...warn, msgNotFound], undefined, false, false)];
      const rest = items.filter((_, i) => i !== del - 1);
      if (!(await this.#store(rest, kw)))
        return [false, await this.render({}, [msgObjectNotFound], undefined, false, false)];
      await this.signal('delete', { data: rest });
      return [true, await this.render({}, ['Item deleted!'])];
    }
    const edit = this.#position(this.getFormValue(this.editKey, undefined, 'ANY'));
    if (edit) {
      const item = items[edit - 1];
      if (!this.#editable(item)) return [false, await this.render({}, [...warn, msgNotFound], undefined, false, false)];
      return [true, await this.render({ ...item, [this.editKey]: String(edit) }, warn)];
    }
    return [true, await this.render({}, warn, undefined, false, readable ? undefined : false)];
  }

  /**
   * Validates and stores the item: a new item is appended (refused with "Item exists!" when
   * another item has the same `jsonUniqueID` value), an edited one (hidden `cc397785=<n>`)
   * replaces item n. Fires `success(data)` with the whole list and shows an empty form. The
   * result is the item. Never redirects.
   *
   * @example
   * const [item, html] = await form.updateObj(action);
   */
  async updateObj(_action: ActionConf, kw: ActionKw = {}): Promise<ActionResult> {
    const [ok, data, errors] = await this.validate(this.getFormValues());
    if (!ok) return [false, await this.render(data, [], errors)];
    const { [this.editKey]: rawPosition, ...item } = data;
    const position = this.#position(rawPosition);
    const { items } = this.storedItems();
    if (position && !this.#editable(items[position - 1]))
      return [false, await this.render(data, [msgNotFound], undefined, false, false)];
    const uid = this.jsonUniqueID;
    const clash =
      uid && item[uid] !== undefined && items.some((x, i) => i !== position - 1 && isDict(x) && x[uid] === item[uid]);
    if (clash) return [false, await this.render(data, ['Item exists!'], undefined, false, false)];
    const next = [...items];
    if (position) next[position - 1] = item;
    else next.push(item);
    if (!(await this.#store(next, kw)))
      return [false, await this.render(data, [msgObjectNotFound], undefined, false, false)];
    await this.signal('success', { data: next });
    return [item, await this.render({}, [msgSaved])];
  }

  /** The list of items follows the form. */
  protected override renderAfterForm(): string {
    return this.renderItemList();
  }

  /**
   * The items with an edit link and a delete button each (a small POST form, so no link deletes).
   *
   * @example
   * const list = form.renderItemList();
   */
  renderItemList(): string {
    const { items } = this.storedItems();
    const { action, formid } = this.options;
    const sep = action.includes('?') ? '&' : '?';
    const rows = items.flatMap((item, i) => {
      if (!this.#editable(item)) return [];
      const n = i + 1;
      const label = this.itemLabel ? this.itemLabel(item, n) : this.#label(item, n);
      const editLink = attrs({ href: `${action}${sep}${this.editKey}=${n}`, class: 'roost-sequence-edit' });
      const edit = `<a${editLink}>${escapeHtml(this.t('Edit'))}</a>`;
      const delForm = attrs({ method: 'post', action: action || undefined, class: 'roost-sequence-delete' });
      const delButton = attrs({
        type: 'submit',
        name: this.delKey,
        value: String(n),
        class: 'btn btn-link',
        'aria-label': `${this.t('Delete')}: ${label}`,
      });
      const del =
        `<form${delForm}>${hiddenValueInputs(this.options.hiddenValues)}` +
        `<button${delButton}>${escapeHtml(this.t('Delete'))}</button></form>`;
      return [`<li${attrs({ id: `${formid}-item-${n}` })}><span>${escapeHtml(label)}</span> ${edit} ${del}</li>`];
    });
    return rows.length
      ? `<ul${attrs({ class: 'roost-sequence', 'aria-label': this.t('Items') })}>${rows.join('')}</ul>`
      : '';
  }

  /** An item's label: its unique id value, else its first field value, else its position. */
  #label(item: Record<string, unknown>, n: number): string {
    const first = this.getFields().find((f) => f.id !== this.editKey && item[f.id] !== undefined && item[f.id] !== '');
    const byId = this.jsonUniqueID ? item[this.jsonUniqueID] : undefined;
    const v = byId !== undefined && byId !== '' ? byId : first ? item[first.id] : undefined;
    return v === undefined || v === null || v === '' ? `#${n}` : typeof v === 'string' ? v : JSON.stringify(v);
  }
}
