import type { ActionConf } from './action-conf.js';
import type { FieldConf } from './field-conf.js';

/**
 * A named selection of fields and actions of a form. Field and action entries are ids (looked up
 * in the type configuration and the form's actions) or inline configurations.
 *
 * @example
 * const subsets: Subsets = {
 *   edit: { fields: ['title', 'body'], actions: ['save', 'cancel'], defaultAction: 'default' },
 * };
 */
export interface Subset {
  fields?: Array<string | FieldConf>;
  actions?: Array<string | ActionConf>;
  defaultAction?: string | ActionConf;
  /** Applied with `applyOptions` after setup. */
  options?: Readonly<Record<string, unknown>>;
}

/** Subset name to subset. */
export type Subsets = Readonly<Record<string, Subset>>;

/**
 * An object or tool type's configuration that a form can load its fields and subsets from
 * (`loadFromType`).
 *
 * @example
 * const article: TypeConf = {
 *   id: 'article',
 *   data: [{ id: 'title', datatype: 'string', required: true }],
 *   forms: { edit: { fields: ['title'] } },
 * };
 */
export interface TypeConf {
  id: string;
  name?: string;
  data: FieldConf[];
  forms?: Subsets;
  /** Actions of forms set up from this type (ids in subsets resolve here first); actions given to a form win. */
  actions?: ActionConf[];
}

/**
 * What a form needs from the application: type configurations by id and the meta fields shared by
 * all types. All members are optional.
 *
 * @example
 * const app: FormApp = { getObjectConf: (id) => types[id], metaFields: [{ id: 'title', datatype: 'string' }] };
 */
export interface FormApp {
  getObjectConf?(id: string): TypeConf | undefined;
  getToolConf?(id: string): TypeConf | undefined;
  /** Meta fields of every object; used when a form has no other field source. */
  metaFields?: FieldConf[];
}
