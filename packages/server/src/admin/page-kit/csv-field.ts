/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. A leading `=`,
 * `+`, `-`, `@`, tab or carriage return gets a `'` in front, so a spreadsheet shows the text
 * instead of running it as a formula (OWASP "CSV injection"). The users' export
 * (pages/tools-page.ts) and the records' (collection-pages/record-export.ts) write with it.
 */
export function csvField(value: unknown): string {
  let text = Array.isArray(value) ? value.join(' ') : value === null || value === undefined ? '' : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** What a spreadsheet would run as a formula at the start of a cell. */
export const FORMULA_START = /^[=+\-@\t\r]/;
