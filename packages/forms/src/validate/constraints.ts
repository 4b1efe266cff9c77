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
 * The check of the field's constraints on a converted, non-empty value: its messages, or none.
 * Reads the configuration once; throws a `ConfigurationError` when it cannot (an invalid
 * `pattern`, a `min` of the wrong kind), so a mistake shows when the form is set up.
 *
 * @example
 * constraintCheck({ id: 'age', datatype: 'number', min: 18 })(16, t); // ['Less than the minimum 18']
 */
export function constraintCheck(field: FieldConf): (value: unknown, t: Translate) => string[] {
  const c = constraintsOf(field);
  const datatype = fieldDatatype(field);
  return (value, t) => problemsOf(c, datatype, value, t);
}

function problemsOf(c: Constraints, datatype: string, value: unknown, t: Translate): string[] {
  const problems: string[] = [];
  if (typeof value === 'string' && !DATE_LIKE.has(datatype)) {
    // Lengths in UTF-16 code units, as the browser's minlength and maxlength count.
    if (c.minLength !== undefined && value.length < c.minLength && datatype !== 'password')
      problems.push(t('Shorter than minimum length ${min}', { min: c.minLength }));
    if (c.pattern && !c.pattern.test(value)) problems.push(t('Does not match the required format'));
  }
  if (typeof value === 'number') {
    if (typeof c.min === 'number' && value < c.min) problems.push(t('Less than the minimum ${min}', { min: c.min }));
    if (typeof c.max === 'number' && value > c.max) problems.push(t('More than the maximum ${max}', { max: c.max }));
    if (c.step !== undefined) {
      const k = (value - (typeof c.min === 'number' ? c.min : 0)) / c.step;
      if (Math.abs(k - Math.round(k)) > 1e-9) problems.push(t('Not a multiple of ${step}', { step: c.step }));
    }
  }
  if (typeof value === 'string' && DATE_LIKE.has(datatype)) {
    // The datatypes' own forms (YYYY-MM-DD, HH:MM:SS, YYYY-MM-DDTHH:MM:SS) sort as they read.
    if (typeof c.min === 'string' && value < c.min) problems.push(t('Earlier than ${min}', { min: c.min }));
    if (typeof c.max === 'string' && value > c.max) problems.push(t('Later than ${max}', { max: c.max }));
  }
  return problems;
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
