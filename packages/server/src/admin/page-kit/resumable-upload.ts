import { escapeHtml } from '@roost/forms';

/**
 * Where the admin's upload forms send files by tus when the page has JavaScript: the script
 * (admin/upload-script.ts, /static/roost-uploads.js) finds the forms inside these areas by their
 * `data-` attributes. Without JavaScript the forms post the file as they always did.
 */
const SCRIPT = '<script type="module" src="/static/roost-uploads.js"></script>';

/** The file store page's upload form (`html`), its file sent to the directory `dir` of `store`. */
export function resumableUploadArea(html: string, target: { store: string; dir: string }): string {
  return (
    `<div data-resumable-upload data-store="${escapeHtml(target.store)}" data-dir="${escapeHtml(target.dir)}">` +
    `${html}</div>${SCRIPT}`
  );
}

/**
 * The record form (`html`) of `collection`, whose file fields' uploads go to their stores by tus
 * (the fields of stores without resumable uploads are left to the form).
 */
export function resumableRecordArea(
  html: string,
  collection: string,
  fields: ReadonlyArray<{ name: string; store: string }>,
): string {
  if (fields.length === 0) return html;
  const map = JSON.stringify(Object.fromEntries(fields.map((f) => [f.name, f.store])));
  return (
    `<div data-resumable-record data-collection="${escapeHtml(collection)}" data-file-fields="${escapeHtml(map)}">` +
    `${html}</div>${SCRIPT}`
  );
}
