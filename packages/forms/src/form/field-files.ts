/* The uploads of a form's data at any depth: a file field's value, in a group's fields and in each
   repeat item's (fields/group-widgets.ts). Used to keep uploads in the stash across a reply with
   errors (html-form.ts, form.ts) and across a wizard's steps (wizard/wizard-form.ts). */
import { fieldDatatype, type FieldConf } from '../conf/field-conf.js';
import { isUploadedFile, type UploadedFile } from '../request/form-request.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `data` with each file field's upload replaced by what `swap` gives, at any depth.
 *
 * @example
 * const light = await mapFiles(fields, data, async (file) => ({ ...file, data: undefined }));
 */
export async function mapFiles(
  fields: readonly FieldConf[],
  data: Readonly<Record<string, unknown>>,
  swap: (file: UploadedFile) => Promise<UploadedFile | undefined>,
): Promise<Record<string, unknown>> {
  const out = { ...data };
  for (const field of fields) {
    const value = out[field.id];
    const datatype = fieldDatatype(field);
    const inner = field.fields ?? [];
    if (datatype === 'file' && isUploadedFile(value)) out[field.id] = await swap(value);
    else if (datatype === 'group' && isRecord(value)) out[field.id] = await mapFiles(inner, value, swap);
    else if (datatype === 'repeat' && Array.isArray(value))
      out[field.id] = await Promise.all(value.map((item) => (isRecord(item) ? mapFiles(inner, item, swap) : item)));
  }
  return out;
}

/**
 * Whether a request name (split at its dots) names a file field at any depth: `cv`, `home.photo`
 * in a group, `docs.0.file` in a repeat item.
 *
 * @example
 * namesFile(fields, 'docs.0.file'.split('.')); // true when docs is a repeat with a file field `file`
 */
export function namesFile(fields: readonly FieldConf[], parts: readonly string[]): boolean {
  const [head, ...rest] = parts;
  const field = fields.find((f) => f.id === head);
  if (!field) return false;
  const datatype = fieldDatatype(field);
  if (!rest.length) return datatype === 'file';
  if (datatype === 'group') return namesFile(field.fields ?? [], rest);
  const [index, ...inner] = rest;
  return datatype === 'repeat' && /^\d+$/.test(index ?? '') && namesFile(field.fields ?? [], inner);
}
