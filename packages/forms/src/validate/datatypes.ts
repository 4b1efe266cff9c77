import { z } from 'zod';
import { fieldDatatype, fieldSize, type FieldConf, type ListItem } from '../conf/field-conf.js';
import { isUploadedFile } from '../request/form-request.js';
import { passwordMinimum } from './constraints.js';
import type { Translate } from './messages.js';

/** How a datatype treats an empty optional input: strings stay `''`, lists become `[]`, others null. */
export type EmptyValue = '' | null | false | readonly [];

/**
 * The conversion of one datatype: a zod schema from a non-empty widget value (or an app value,
 * for `validateSchema`) to the app value.
 */
export interface DatatypeDef {
  empty: EmptyValue;
  schema(field: FieldConf, t: Translate, items: readonly ListItem[]): z.ZodType;
}

type Check = { ok: true; value: unknown } | { ok: false; message: string };

/** A zod schema running a conversion function; failures become zod issues with our message. */
function convert(fn: (v: unknown) => Check): z.ZodType {
  return z.unknown().transform((v, ctx) => {
    const r = fn(v);
    if (r.ok) return r.value;
    ctx.addIssue({ code: 'custom', message: r.message });
    return z.NEVER;
  });
}

const firstString = (v: unknown): unknown => (Array.isArray(v) && v.length === 1 ? v[0] : v);

function text(field: FieldConf, t: Translate, trim: boolean): z.ZodType {
  const max = fieldSize(field);
  let s = z.string({ error: t('Invalid value') });
  if (max) s = s.max(max, { error: t('Longer than maximum length ${max}', { max }) });
  return z.preprocess((v) => {
    const one = firstString(v);
    if (typeof one === 'number' || typeof one === 'boolean') return String(one);
    return trim && typeof one === 'string' ? one.trim() : one;
  }, s);
}

const pad = (n: number, len = 2): string => String(n).padStart(len, '0');

function isValidDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/**
 * `YYYY-MM-DD`, `YYYY/MM/DD`, `MM/DD/YYYY`, `MM/DD/YY` → ISO date, or undefined.
 *
 * @example
 * parseDate('12/24/2024'); // '2024-12-24'
 */
export function parseDate(input: string): string | undefined {
  let y: number;
  let m: number;
  let d: number;
  let match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(input);
  if (match) [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  else {
    match = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec(input);
    if (!match) return undefined;
    [m, d, y] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (y < 100) y += 2000;
  }
  return isValidDate(y, m, d) ? `${pad(y, 4)}-${pad(m)}-${pad(d)}` : undefined;
}

/**
 * `HH`, `HH:MM`, `HH:MM:SS` → `HH:MM:SS`, or undefined.
 *
 * @example
 * parseTime('7:05'); // '07:05:00'
 */
export function parseTime(input: string): string | undefined {
  const match = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2})(?:\.\d+)?)?$/.exec(input);
  if (!match) return undefined;
  const [h, m, s] = [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
  return h < 24 && m < 60 && s < 60 ? `${pad(h)}:${pad(m)}:${pad(s)}` : undefined;
}

/**
 * `YYYY-MM-DD[T ]HH:MM[:SS][Z|±HH:MM]` → `YYYY-MM-DDTHH:MM:SS[offset]`, or undefined.
 *
 * @example
 * parseDateTime('2008-06-23 16:55'); // '2008-06-23T16:55:00'
 */
export function parseDateTime(input: string): string | undefined {
  const match = /^(\S+)[T ](\d{1,2}(?::\d{2}){0,2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})?$/i.exec(input);
  if (!match) return undefined;
  const date = parseDate(match[1] ?? '');
  const time = parseTime(match[2] ?? '');
  if (!date || !time) return undefined;
  const zone = match[3] ? (match[3].toUpperCase() === 'Z' ? 'Z' : match[3]) : '';
  return `${date}T${time}${zone}`;
}

const asString = (v: unknown): string | undefined => {
  const one = firstString(v);
  if (typeof one === 'string') return one.trim();
  if (typeof one === 'number') return String(one);
  return undefined;
};

function choice(_field: FieldConf, t: Translate, items: readonly ListItem[], multiple: boolean): z.ZodType {
  const byId = new Map(items.map((i) => [String(i.id), i.id]));
  const one = (v: unknown): Check => {
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string') return { ok: false, message: t('Invalid value') };
    if (items.length === 0) return { ok: true, value: s };
    if (!byId.has(s)) return { ok: false, message: t("'${value}' not in reference list", { value: s }) };
    return { ok: true, value: byId.get(s) };
  };
  return convert((v) => {
    const list = Array.isArray(v) ? v : [v];
    if (!multiple && list.length > 1) return { ok: false, message: t('Only one value allowed') };
    const out: unknown[] = [];
    for (const item of list) {
      const r = one(item);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return { ok: true, value: multiple ? out : out[0] };
  });
}

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);
const bool = (t: Translate): z.ZodType =>
  convert((v) => {
    if (typeof v === 'boolean') return { ok: true, value: v };
    const s = asString(v)?.toLowerCase();
    if (s !== undefined && TRUE.has(s)) return { ok: true, value: true };
    if (s !== undefined && FALSE.has(s)) return { ok: true, value: false };
    return { ok: false, message: t('Invalid boolean') };
  });

const numberDef = (integer: boolean): DatatypeDef => ({
  empty: null,
  schema: (_f, t) =>
    convert((v) => {
      if (typeof v === 'number' && Number.isFinite(v) && (!integer || Number.isInteger(v)))
        return { ok: true, value: v };
      const raw = asString(v) ?? String(v);
      const s = integer ? raw : raw.replace(/^([+-]?\d*),(\d+)$/, '$1.$2');
      const re = integer ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
      const n = Number(s);
      if (!re.test(s) || !Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) {
        return { ok: false, message: t('"${val}" is not a number', { val: raw }) };
      }
      return { ok: true, value: n };
    }),
});

const dateLike = (parse: (s: string) => string | undefined, msg: string): DatatypeDef => ({
  empty: null,
  schema: (_f, t) =>
    convert((v) => {
      const s = v instanceof Date ? v.toISOString() : asString(v);
      const value = s === undefined ? undefined : parse(s.replace(/\.\d{3}Z$/, 'Z'));
      return value ? { ok: true, value } : { ok: false, message: t(msg) };
    }),
});

function linesOf(v: unknown): string[] | undefined {
  if (Array.isArray(v))
    return v
      .filter((x): x is string => typeof x === 'string')
      .map((x) => x.trim())
      .filter(Boolean);
  if (typeof v !== 'string') return undefined;
  return v
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * Every datatype the library converts. `checkbox` with list items is a multi-choice; without
 * items it is a single boolean checkbox (see `datatypeFor`).
 *
 * @example
 * Object.keys(datatypes); // ['string', 'hidden', 'text', ...]
 */
export const datatypes: Readonly<Record<string, DatatypeDef>> = {
  string: { empty: '', schema: (f, t) => text(f, t, true) },
  hidden: { empty: '', schema: (f, t) => text(f, t, true) },
  text: { empty: '', schema: (f, t) => text(f, t, false) },
  password: {
    empty: '',
    schema: (f, t) => {
      const min = passwordMinimum(f);
      const max = fieldSize(f);
      let s = z
        .string({ error: t('Invalid value') })
        .min(min, { error: t('Shorter than minimum length ${min}', { min }) });
      if (max) s = s.max(max, { error: t('Longer than maximum length ${max}', { max }) });
      return z.preprocess(firstString, s);
    },
  },
  email: {
    empty: '',
    schema: (f, t) => {
      const max = fieldSize(f);
      let s = z.email({ error: t('Invalid email address') });
      if (max) s = s.max(max, { error: t('Longer than maximum length ${max}', { max }) });
      return z.preprocess((v) => asString(v) ?? v, s);
    },
  },
  url: {
    empty: '',
    schema: (f, t) => {
      const max = fieldSize(f);
      let s = z.url({ protocol: /^https?$/, error: t('Invalid url') });
      if (max) s = s.max(max, { error: t('Longer than maximum length ${max}', { max }) });
      return z.preprocess((v) => asString(v) ?? v, s);
    },
  },
  number: numberDef(true),
  float: numberDef(false),
  bool: { empty: null, schema: (_f, t) => bool(t) },
  date: dateLike(parseDate, 'Invalid date'),
  time: dateLike(parseTime, 'Invalid time'),
  datetime: dateLike(parseDateTime, 'Invalid date and time'),
  list: { empty: null, schema: (f, t, items) => choice(f, t, items, false) },
  radio: { empty: null, schema: (f, t, items) => choice(f, t, items, false) },
  multilist: { empty: [], schema: (f, t, items) => choice(f, t, items, true) },
  checkbox: { empty: [], schema: (f, t, items) => choice(f, t, items, true) },
  'checkbox-single': { empty: false, schema: (_f, t) => bool(t) },
  lines: {
    empty: [],
    schema: (f, t) => {
      const max = fieldSize(f);
      return convert((v) => {
        const lines = linesOf(v);
        if (!lines) return { ok: false, message: t('Invalid value') };
        if (max && lines.join('\n').length > max)
          return { ok: false, message: t('Longer than maximum length ${max}', { max }) };
        return { ok: true, value: lines };
      });
    },
  },
  json: {
    empty: null,
    schema: (f, t) => {
      const max = fieldSize(f);
      return convert((v) => {
        // A request's one JSON text comes as a list of one string; a list of one number is JSON data.
        const one = Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' ? v[0] : v;
        if (typeof one !== 'string') return { ok: true, value: one };
        if (max && one.length > max) return { ok: false, message: t('Longer than maximum length ${max}', { max }) };
        try {
          return { ok: true, value: JSON.parse(one) as unknown };
        } catch {
          return { ok: false, message: t('Json format error') };
        }
      });
    },
  },
  file: {
    empty: null,
    schema: (f, t) => {
      const max = fieldSize(f);
      return convert((v) => {
        const one = firstString(v);
        if (!isUploadedFile(one)) return { ok: false, message: t('Invalid file') };
        if (max && one.size > max) return { ok: false, message: t('File larger than ${max} bytes', { max }) };
        return { ok: true, value: { ...one, filekey: f.id, tempfile: true } };
      });
    },
  },
};

/**
 * The conversion of a field: by datatype, with `checkbox` without list items as one boolean
 * checkbox. An unknown datatype is a configuration error (thrown by the caller).
 */
export function datatypeFor(field: FieldConf, items: readonly ListItem[]): DatatypeDef | undefined {
  const dt = fieldDatatype(field);
  if (dt === 'checkbox' && items.length === 0 && !field.listItems) return datatypes['checkbox-single'];
  return datatypes[dt];
}
