import type { FieldValidator } from '../conf/field-conf.js';

/** The mark `browserSafe` puts on a validator: the message ids it may return, for the page. */
export interface BrowserSafeMark {
  readonly browserSafe: { readonly messages: readonly string[] };
}

/**
 * Marks a validator safe for the browser: live validation (live/live-spec.ts) runs its source in
 * the page as well, so a mistake shows without asking the server (which still runs it, and
 * decides on submit). It must stand alone (no imports, no variables from outside: its source is
 * all the page gets), be synchronous, and return its message id rather than throw; in the page
 * it gets the value as typed (a number for `number`/`float`, text otherwise) and `{ values, t }`.
 * `messages` lists the ids it may return, which the page gets translated. The validator is
 * marked, not copied, and returned. A page with a Content-Security-Policy needs `'unsafe-eval'`
 * for it; without, the server answers instead.
 *
 * @example
 * const even = browserSafe((v) => (Number(v) % 2 ? 'Must be even' : undefined), ['Must be even']);
 */
export function browserSafe<V extends FieldValidator>(
  validator: V,
  messages: readonly string[] = [],
): V & BrowserSafeMark {
  return Object.assign(validator, { browserSafe: { messages: [...messages] } });
}

/** The mark of a validator, if `browserSafe` put one on it. */
export function browserSafeMark(validator: FieldValidator | undefined): BrowserSafeMark['browserSafe'] | undefined {
  const mark = (validator as Partial<BrowserSafeMark> | undefined)?.browserSafe;
  return mark && Array.isArray(mark.messages) ? mark : undefined;
}
