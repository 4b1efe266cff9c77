import type { FieldConf } from '../conf/field-conf.js';
import type { UploadedFile } from '../request/form-request.js';

/** The fields a form takes: configurations, or ids of its type's fields. */
export type FieldList = ReadonlyArray<string | FieldConf>;

/** The id of a list item (its type as written: `3` stays a number). */
type ItemId<F> = F extends { listItems: ReadonlyArray<infer I> }
  ? I extends { id: infer V }
    ? V
    : never
  : string | number;

/**
 * The value a valid field holds after conversion (validate/datatypes.ts): numbers for `number`
 * and `float`, a boolean for `bool` and a checkbox without items, item ids for choices, lines
 * as a list, an upload for `file`; dates and times stay strings in their ISO form.
 */
type ValueOf<F> = F extends { datatype: 'group'; fields: infer S extends FieldList }
  ? FormData<S>
  : F extends { datatype: 'repeat'; fields: infer S extends FieldList }
    ? FormData<S>[]
    : F extends { datatype: 'number' | 'float' }
      ? number
      : F extends { datatype: 'bool' }
        ? boolean
        : F extends { datatype: 'list' | 'radio' }
          ? ItemId<F>
          : F extends { datatype: 'multilist' }
            ? ItemId<F>[]
            : F extends { datatype: 'checkbox'; listItems: unknown }
              ? ItemId<F>[]
              : F extends { datatype: 'checkbox' }
                ? boolean
                : F extends { datatype: 'lines' }
                  ? string[]
                  : F extends { datatype: 'json' }
                    ? unknown
                    : F extends { datatype: 'file' }
                      ? UploadedFile
                      : string;

/** The fields of a controlset's items: their data is top-level form data, present when chosen. */
type ItemFields<F> = F extends { listItems: ReadonlyArray<infer I> }
  ? I extends { fields: ReadonlyArray<infer S> }
    ? S
    : never
  : never;

type Configured<L extends FieldList> = Extract<L[number], FieldConf>;
type Shown<F> = F extends { readonly: true } ? never : F;
/** A field with a rule may be hidden or disabled, and then is not in the data (rules/rules.ts). */
type Ruled = { rule: object };
type RequiredOnes<L extends FieldList> = Shown<Exclude<Extract<Configured<L>, { required: true | 1 }>, Ruled>>;
type OptionalOnes<L extends FieldList> =
  | Shown<Exclude<Configured<L>, { required: true | 1 }>>
  | Shown<Extract<Extract<Configured<L>, { required: true | 1 }>, Ruled>>
  | Extract<ItemFields<Configured<L>>, FieldConf>;

type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * The data of a valid form, from its field list written `as const` or inline in `new HTMLForm`:
 * required fields are present, the others may be missing (or null with `removeNull` off). A
 * field list the compiler cannot see through (`FieldConf[]`) gives `Record<string, unknown>`.
 *
 * @example
 * const form = new HTMLForm({ fields: [{ id: 'age', datatype: 'number', required: true }] });
 * const [ok, data] = await form.validate(values);
 * if (ok) data.age; // number
 */
export type FormData<L extends FieldList> = string extends Configured<L>['id']
  ? Record<string, unknown>
  : Flat<
      { [F in RequiredOnes<L> as F['id']]: ValueOf<F> } & {
        [F in OptionalOnes<L> as F['id']]?: ValueOf<F> | null;
      }
    >;

/**
 * The data of a valid form given `subsets` (`S`): a subset shows some of the fields only (one
 * step of a sign-up), so no field is sure to be there, the required ones of another step neither.
 *
 * @example
 * const form = new HTMLForm({ fields, subsets: { step1: { fields: ['name'] }, step2: { fields: ['age'] } } });
 * // form.validate(...) gives Partial<FormData<typeof fields>>
 */
export type SubsetData<L extends FieldList, S> = undefined extends S ? FormData<L> : Partial<FormData<L>>;

/**
 * What a `process` or `success` listener receives: `{ data }` typed by the field list, or, for
 * a list the compiler cannot see through, the untyped arguments of every event (a subclass may
 * fire `success` with `{ obj }`: object-form.ts).
 */
export type DataEventArgs<L extends FieldList, S = undefined> = string extends Configured<L>['id']
  ? Readonly<Record<string, unknown>>
  : { readonly data: SubsetData<L, S> };
