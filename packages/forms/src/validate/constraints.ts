import { ConfigurationError } from '../conf/configuration-error.js';
import { fieldDatatype, fieldSize, type FieldConf } from '../conf/field-conf.js';
import type { AttrValue } from '../render/html.js';
import type { Translate } from './messages.js';

/**
 * The constraints of a field beyond its datatype (`minLength`, `pattern`, `min`, `max`, `step`):
 * checked here on the server, which stays the authority, and rendered as the HTML attributes of
 * the same names so that the browser checks them first (fields/text-widgets.ts). One reading of
 * the configuration serves both, so the two cannot disagree.
 */
interface Constraints {
  minLength: number | undefined;
  maxLength: number | undefined;
  /** Matched against the whole value, as the browser does (`^(?:pattern)$`, flag `v`). */
  pattern: RegExp | undefined;
  min: number | string | undefined;
  max: number | string | undefined;
  step: number | undefined;
}

const DATE_LIKE = new Set(['date', 'time', 'datetime']);
const NUMERIC = new Set(['number', 'float']);

/** The field's constraints, or a `ConfigurationError` naming what is wrong with them. */
function constraintsOf(field: FieldConf): Constraints {
  const fail = (what: string) => {
    throw new ConfigurationError(`Field "${field.id}": ${what}`);
  };
  const datatype = fieldDatatype(field);
  const minLength = minLengthOf(field);
  if (minLength !== undefined && !(Number.isSafeInteger(minLength) && minLength >= 0))
    fail(`minLength must be a whole number ≥ 0, not ${String(minLength)}`);
  let pattern: RegExp | undefined;
  if (field.pattern !== undefined) {
    try {
      pattern = new RegExp(`^(?:${field.pattern})$`, 'v');
    } catch (e) {
      fail(`pattern is not a regular expression the browser accepts (${(e as Error).message})`);
    }
  }
  for (const [name, bound] of [
    ['min', field.min],
    ['max', field.max],
  ] as const) {
    if (bound === undefined) continue;
    if (NUMERIC.has(datatype) ? typeof bound !== 'number' || !Number.isFinite(bound) : typeof bound !== 'string')
      fail(`${name} must be a ${NUMERIC.has(datatype) ? 'number' : 'string in the datatype’s own form'}`);
  }
  const step = field.step === 'any' ? undefined : field.step;
  if (step !== undefined && !(typeof step === 'number' && step > 0 && Number.isFinite(step)))
    fail(`step must be a number > 0 or "any", not ${String(field.step)}`);
  return { minLength, maxLength: fieldSize(field) || undefined, pattern, min: field.min, max: field.max, step };
}

/** The least length a text field asks for: a password always has one. */
const minLengthOf = (field: FieldConf) =>
  fieldDatatype(field) === 'password' ? passwordMinimum(field) : field.minLength;

/**
 * A password's least length: `minLength`, else the original's `settings.minLength`, 5 by
 * default. The password datatype checks it (validate/datatypes.ts).
 */
export function passwordMinimum(field: FieldConf): number {
  return field.minLength ?? Number(field.settings?.minLength ?? 5);
}

/**
 * One check of a constraint as data: its kind, its argument and its message (id and mapping).
 * The server runs it with `failsCheck`; the live validation of the browser (live/live-spec.ts)
 * gets the same list with the messages translated, and the script carries `failsCheck` itself.
 */
export interface ConstraintCheck {
  check: 'minLength' | 'pattern' | 'min' | 'max' | 'step' | 'earliest' | 'latest';
  arg: number | string;
  /** A step's base: the number `min`, else 0. */
  base?: number;
  msgid: string;
  mapping: Readonly<Record<string, unknown>>;
}

/** The checks of a field's constraints (not its datatype's), in the order their messages show. */
function checksOf(field: FieldConf, c: Constraints, datatype: string): ConstraintCheck[] {
  const out: ConstraintCheck[] = [];
  const add = (check: ConstraintCheck['check'], arg: number | string, msgid: string, mapping: object, base?: number) =>
    out.push({
      check,
      arg,
      msgid,
      mapping: mapping as Record<string, unknown>,
      ...(base === undefined ? {} : { base }),
    });
  if (!DATE_LIKE.has(datatype)) {
    // A password's least length is its datatype's check (validate/datatypes.ts).
    if (c.minLength !== undefined && datatype !== 'password')
      add('minLength', c.minLength, 'Shorter than minimum length ${min}', { min: c.minLength });
    if (c.pattern) add('pattern', `^(?:${field.pattern})$`, 'Does not match the required format', {});
  }
  if (typeof c.min === 'number') add('min', c.min, 'Less than the minimum ${min}', { min: c.min });
  if (typeof c.max === 'number') add('max', c.max, 'More than the maximum ${max}', { max: c.max });
  if (c.step !== undefined)
    add('step', c.step, 'Not a multiple of ${step}', { step: c.step }, typeof c.min === 'number' ? c.min : 0);
  if (DATE_LIKE.has(datatype)) {
    if (typeof c.min === 'string') add('earliest', c.min, 'Earlier than ${min}', { min: c.min });
    if (typeof c.max === 'string') add('latest', c.max, 'Later than ${max}', { max: c.max });
  }
  return out;
}

/**
 * Whether a converted, non-empty value fails one check. Lengths count UTF-16 code units, as the
 * browser's minlength does; a pattern matches the whole value (flag `v`, as the browser's
 * `pattern`); dates, times and date-times compare as text in their own forms, which sort as they
 * read. The browser script carries this function's source (live/live-script.ts), so it uses
 * nothing outside itself.
 *
 * @example
 * failsCheck({ check: 'min', arg: 18, msgid: 'Less than the minimum ${min}', mapping: { min: 18 } }, 16); // true
 */
export function failsCheck(c: ConstraintCheck, value: unknown): boolean {
  if (c.check === 'minLength') return typeof value === 'string' && value.length < Number(c.arg);
  if (c.check === 'pattern') return typeof value === 'string' && !new RegExp(String(c.arg), 'v').test(value);
  if (typeof value === 'number') {
    if (c.check === 'min') return value < Number(c.arg);
    if (c.check === 'max') return value > Number(c.arg);
    if (c.check === 'step') {
      const k = (value - (c.base ?? 0)) / Number(c.arg);
      return Math.abs(k - Math.round(k)) > 1e-9;
    }
  }
  if (typeof value === 'string' && c.check === 'earliest') return value < String(c.arg);
  if (typeof value === 'string' && c.check === 'latest') return value > String(c.arg);
  return false;
}

/**
 * The checks of a field's constraints (`minLength`, `pattern`, `min`, `max`, `step`). Reads the
 * configuration once; throws a `ConfigurationError` when it cannot (an invalid `pattern`, a
 * `min` of the wrong kind), so a mistake shows when the form is set up.
 *
 * @example
 * constraintChecks({ id: 'age', datatype: 'number', min: 18 }); // [{ check: 'min', arg: 18, … }]
 */
export function constraintChecks(field: FieldConf): ConstraintCheck[] {
  return checksOf(field, constraintsOf(field), fieldDatatype(field));
}

/**
 * The check of the field's constraints on a converted, non-empty value: its messages, or none.
 *
 * @example
 * constraintCheck({ id: 'age', datatype: 'number', min: 18 })(16, t); // ['Less than the minimum 18']
 */
export function constraintCheck(field: FieldConf): (value: unknown, t: Translate) => string[] {
  const checks = constraintChecks(field);
  return (value, t) => checks.filter((c) => failsCheck(c, value)).map((c) => t(c.msgid, c.mapping));
}

/**
 * The HTML attributes of the field's constraints for an input of `type` (or a textarea): the
 * browser checks them before it sends the form.
 *
 * @example
 * constraintAttrs({ id: 'code', pattern: '[A-Z]{3}', size: 3 }, 'text'); // { maxlength: 3, pattern: '[A-Z]{3}' }
 */
export function constraintAttrs(field: FieldConf, type: string): Record<string, AttrValue> {
  // The configuration was read (and a bad one refused) when the form compiled the field
  // (`constraintCheck`, validate/field-adapter.ts): rendering only copies it, compiling nothing.
  const set: Record<string, AttrValue> =
    type === 'textarea' || TEXT_INPUTS.has(type)
      ? {
          minlength: minLengthOf(field),
          maxlength: fieldSize(field) || undefined,
          pattern: type === 'textarea' ? undefined : field.pattern,
        }
      : RANGE_INPUTS.has(type)
        ? { min: field.min, max: field.max, step: field.step }
        : {};
  // Only what the field sets: a widget's own defaults (a float's `step="any"`) stay.
  return Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined));
}

/** The input types that take min, max and step. */
const RANGE_INPUTS = new Set(['number', 'date', 'time', 'datetime-local']);

/** The input types that take minlength, maxlength and pattern. */
const TEXT_INPUTS = new Set(['text', 'search', 'url', 'tel', 'email', 'password']);
