import { attrs, escapeHtml } from '../render/html.js';
import { isUploadedFile } from '../request/form-request.js';
import { inputAttrs } from './input-attrs.js';
import type { Widget } from './widget.js';

/**
 * Formats a byte count for people.
 *
 * @example
 * formatBytes(2048); // '2.0 kB'
 */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * `<input type="file">` plus the name and size of the stored file. An empty upload reads as
 * nothing, so the stored file is kept. `settings.accept` limits the file types.
 *
 * @example
 * const field: FieldConf = { id: 'cv', datatype: 'file', size: 5_000_000, settings: { accept: '.pdf' } };
 */
export const fileUpload: Widget = {
  read: (field, values) => {
    const raw = values[field.id];
    const one = Array.isArray(raw) ? raw[0] : raw;
    // A new upload is a temporary file: on a re-render it is not shown as the stored file.
    if (isUploadedFile(one)) return one.size > 0 || one.filename ? { ...one, tempfile: true } : undefined;
    return undefined;
  },
  render: (input) => {
    const v = input.value;
    const current =
      isUploadedFile(v) && !v.tempfile
        ? `<div${attrs({ class: 'file-current', id: `${input.oid}-current` })}>` +
          `${escapeHtml(input.t('Current file'))}: ${escapeHtml(v.filename)} (${escapeHtml(formatBytes(v.size))})</div>`
        : '';
    // An upload kept while the form came back with errors (request/upload-stash.ts): sent again
    // by its token unless another file is chosen.
    const kept =
      isUploadedFile(v) && v.tempfile && v.kept
        ? `<div${attrs({ class: 'file-current', id: `${input.oid}-kept` })}>` +
          `${escapeHtml(input.t('Kept file'))}: ${escapeHtml(v.filename)} (${escapeHtml(formatBytes(v.size))})</div>` +
          `<input${attrs({ type: 'hidden', name: `${input.field.id}$kept`, value: v.kept })}>`
        : '';
    const accept = typeof input.field.settings?.accept === 'string' ? input.field.settings.accept : undefined;
    const required = Boolean(input.field.required) && !current && !kept;
    return `${current}${kept}<input${inputAttrs(input, { type: 'file', accept, required })}>`;
  },
};
