/* Live validation (issue 43, item 9): what the page needs to check a field as the user leaves it,
   with the server's own rules and messages. Checks the browser can make exactly (required, the
   constraints of text and numbers, validators marked `browserSafe`) come with their messages
   translated by the server; anything else (a datatype's format, a date's bounds, any other
   validator, a group) is asked of the server through the form's own url (html-form.ts answers
   `roost$validate`), which runs the field's node as a submit does. */
import { fieldDatatype, type FieldConf } from '../conf/field-conf.js';
import type { CompiledField } from '../form/form.js';
import { constraintChecks, type ConstraintCheck } from '../validate/constraints.js';
import type { Translate } from '../validate/messages.js';
import { valueKind, type ValueKind } from '../rules/rules.js';
import { browserSafeMark } from './browser-safe.js';

/** The request key of a live check: its value names the field to check (html-form.ts). */
export const LIVE_KEY = 'roost$validate';

/** A field as live validation sees it in the page. */
interface LiveField {
  /** Request name and element id of its input (or its group's box): errors go to `<oid>-error`. */
  name: string;
  oid: string;
  kind: ValueKind;
  ids?: Array<string | number>;
  /** Text the server trims before checking it (validate/datatypes.ts). */
  trim: boolean;
  /** One checkbox: unchecked is empty. */
  single: boolean;
  requiredMessage: string;
  checks: Array<ConstraintCheck & { message: string }>;
  validators: Array<{ source: string; catalog: Record<string, string> }>;
  /** Whether the server has more to check than the page can. */
  remote: boolean;
}

/** The form's live validation spec: the key, classes and each field's part. */
export interface LiveSpec {
  key: string;
  invalidClass: string;
  /** The class of a field's label and item while it shows an error (templates.ts). */
  errorClass: string;
  fields: Record<string, LiveField>;
}

/** Datatypes whose conversion the page need not repeat: text is text. */
const PLAIN = new Set(['string', 'text']);
/** Datatypes live validation leaves to the submit: an upload on every blur would be a waste. */
const SKIPPED = new Set(['file', 'hidden']);

function liveField(field: FieldConf, oid: string, t: Translate): LiveField {
  const datatype = fieldDatatype(field);
  const checks = constraintChecks(field).filter((c) => c.check !== 'earliest' && c.check !== 'latest');
  const mark = browserSafeMark(field.validator);
  const ownCheck = Boolean(field.schema || field.node);
  return {
    name: field.id,
    oid,
    ...valueKind(field),
    trim: datatype === 'string',
    single: datatype === 'checkbox' && !field.listItems,
    requiredMessage: t('Required'),
    checks: checks.map((c) => ({ ...c, message: t(c.msgid, c.mapping) })),
    validators:
      field.validator && mark
        ? [
            {
              source: field.validator.toString(),
              catalog: Object.fromEntries(mark.messages.map((id) => [id, t(id)])),
            },
          ]
        : [],
    remote:
      !PLAIN.has(datatype) ||
      ownCheck ||
      (field.validator !== undefined && !mark) ||
      constraintChecks(field).length !== checks.length,
  };
}

/**
 * The live validation spec of a form's fields (the form tag's `data-roost-live`, read by
 * live/live-script.ts), or undefined when the option is off.
 *
 * @example
 * liveSpec(await form.compiled(), 'upload', form.t, { invalidClass: 'is-invalid', errorClass: 'error' });
 */
export function liveSpec(
  fields: readonly CompiledField[],
  formid: string,
  t: Translate,
  classes: { invalidClass: string; errorClass: string },
): LiveSpec {
  const out: Record<string, LiveField> = {};
  for (const { field, widget } of fields) {
    if (SKIPPED.has(fieldDatatype(field)) || widget.hidden || field.hidden) continue;
    out[field.id] = liveField(field, `${formid}-${field.id}`, t);
  }
  return { key: LIVE_KEY, ...classes, fields: out };
}
