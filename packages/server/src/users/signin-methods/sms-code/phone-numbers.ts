import { parsePhoneNumberWithError, type CountryCode, type NumberType } from 'libphonenumber-js/max';

/** The kinds of number a text may go to: a mobile, or one whose kind the metadata cannot tell apart (US). */
const TEXTABLE: ReadonlySet<NumberType> = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

/** The longest text accepted as a number before parsing (a formatted E.164 number with spaces and dashes). */
const TYPED_MAX = 40;

/** What the settings say about numbers (`users.sms`, core/config-sms.ts). */
export interface NumberRules {
  /** The countries numbers may be in; empty: any. */
  countries: readonly string[];
  /** The country of a number written without `+`. */
  defaultCountry?: string | undefined;
}

/**
 * A typed phone number in E.164 (`+491701234567`), or the reason it is refused: `invalid` (not a
 * number of any plan, or not one that exists in its country's plan), `not_mobile` (a fixed line,
 * a premium-rate or shared-cost number: texts to those are how SMS pumping fraud earns), or
 * `country` (outside `users.sms.countries`). Parsed and checked by libphonenumber-js with its
 * full metadata (docs/decisions.md, "SMS codes"), never by a pattern of ours.
 */
export function normalisePhone(typed: string, rules: NumberRules): { phone: string } | { refused: string } {
  if (typed.length > TYPED_MAX) return { refused: 'invalid' };
  let parsed: ReturnType<typeof parsePhoneNumberWithError>;
  try {
    parsed = parsePhoneNumberWithError(typed, { defaultCountry: rules.defaultCountry as CountryCode | undefined });
  } catch {
    return { refused: 'invalid' };
  }
  if (!parsed.isValid() || parsed.ext) return { refused: 'invalid' };
  const type = parsed.getType();
  if (type === undefined || !TEXTABLE.has(type)) return { refused: 'not_mobile' };
  if (rules.countries.length > 0 && !rules.countries.includes(parsed.country ?? '')) return { refused: 'country' };
  return { phone: parsed.number };
}
