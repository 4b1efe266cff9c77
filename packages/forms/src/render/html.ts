/**
 * Escapes text for HTML element content and attribute values.
 *
 * @example
 * escapeHtml('<b>"x"</b>'); // '&lt;b&gt;&quot;x&quot;&lt;/b&gt;'
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Attribute values: `false`/`undefined`/`null` drop the attribute, `true` writes it bare. */
export type AttrValue = string | number | boolean | undefined | null;

/**
 * Builds an attribute string with a leading space, escaping every value.
 *
 * @example
 * attrs({ id: 'a', required: true, hidden: false }); // ' id="a" required'
 */
export function attrs(record: Readonly<Record<string, AttrValue>>): string {
  let out = '';
  for (const [k, v] of Object.entries(record)) {
    if (v === undefined || v === null || v === false) continue;
    out += v === true ? ` ${k}` : ` ${k}="${escapeHtml(v)}"`;
  }
  return out;
}

/**
 * Joins css class names, skipping empty ones.
 *
 * @example
 * cls('form-control', false, 'is-invalid'); // 'form-control is-invalid'
 */
export function cls(...names: Array<string | false | undefined | null>): string {
  return names.filter((n): n is string => Boolean(n)).join(' ');
}

/**
 * Text or trusted HTML: escapes unless `trusted` is true.
 *
 * @example
 * textOrHtml('<b>x</b>', false); // '&lt;b&gt;x&lt;/b&gt;'
 */
export function textOrHtml(value: unknown, trusted: boolean | undefined): string {
  return trusted ? String(value ?? '') : escapeHtml(value);
}
