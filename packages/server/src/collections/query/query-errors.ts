import { defineErrors, type RoostError } from '../../core/errors.js';

/**
 * The bounds of one query, in one place: the service checks input against them and
 * docs/collection-queries.md states them. A filter is parsed, checked and compiled per request,
 * and evaluated for every change of a live query: each bound caps that work.
 */
export const QUERY_LIMITS = Object.freeze({
  /** Characters (UTF-16 units) of a filter's text. */
  filterLength: 4096,
  /** Parentheses inside parentheses. */
  filterDepth: 16,
  /** Comparisons in one filter. */
  filterComparisons: 64,
  /** Fields of a sort, not counting the `id` added as the last tie-breaker. */
  sortFields: 8,
  /** Characters of a cursor. */
  cursorLength: 4096,
  /** Relations one field path may follow (`author.org.name` follows two). */
  relationHops: 2,
});

/** Codes of collection queries, with their default messages (listed in docs/errors.md). */
export const queryErrors = defineErrors({
  invalid_filter: { kind: 'invalid', message: 'The filter is not valid.' },
  filter_too_long: { kind: 'invalid', message: `A filter may have at most ${QUERY_LIMITS.filterLength} characters.` },
  filter_too_deep: {
    kind: 'invalid',
    message: `A filter may nest parentheses at most ${QUERY_LIMITS.filterDepth} levels deep.`,
  },
  filter_too_complex: {
    kind: 'invalid',
    message: `A filter may have at most ${QUERY_LIMITS.filterComparisons} comparisons.`,
  },
  invalid_sort: { kind: 'invalid', message: 'The sort is not valid.' },
  sort_too_long: { kind: 'invalid', message: `A sort may name at most ${QUERY_LIMITS.sortFields} fields.` },
  invalid_cursor: { kind: 'invalid', message: 'The cursor is not valid for this query.' },
  invalid_expand: { kind: 'invalid', message: 'The expand is not valid.' },
  invalid_fields: { kind: 'invalid', message: 'The fields are not valid.' },
});

type QueryErrorCode = Exclude<keyof typeof queryErrors, 'codes'>;

/** The error `code` with the reason under the parameter `field` (`filter`, `sort`, `cursor`). */
export function queryError(code: QueryErrorCode, field: string, reason: string): RoostError {
  const message = `${queryErrors.codes[code].message.replace(/\.$/, '')}: ${reason}.`;
  return queryErrors[code]({ fields: [[field, reason]], message });
}

/**
 * Where in `text` the UTF-16 offset `at` is, as a reader counts: the 1-based code point.
 * Only called on the way to an error.
 */
export function positionIn(text: string, at: number): number {
  let position = 1;
  for (let i = 0; i < at && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // The low half of a surrogate pair is not a character of its own.
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))) continue;
    position++;
  }
  return position;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
