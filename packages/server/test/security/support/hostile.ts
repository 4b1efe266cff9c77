import fc from 'fast-check';

/**
 * Input that breaks naive servers, as fast-check arbitraries: injection strings, traversal,
 * prototype keys, unicode edge cases (lone surrogates, NUL, direction marks, the largest code
 * point), wrong types, huge and deeply nested values.
 */

/** Fixed strings worth trying everywhere. */
export const NASTY_STRINGS: readonly string[] = [
  // SQL and LIKE patterns
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  '1; select pg_sleep(5) --',
  "%' --",
  '%',
  '_',
  '\\',
  "admin'--",
  // paths
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f',
  '%252e%252e%252f',
  '/etc/passwd',
  '//',
  '/./',
  'a/../b',
  'C:\\x',
  '~root',
  // prototype keys and JavaScript words
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  // numbers as text
  '-1',
  '0',
  '1e400',
  '9'.repeat(400),
  '0x10',
  '1.5',
  ' 1 ',
  // unicode edge cases
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  '\u202e',
  'x\u200by',
  '\ufeff',
  '\uffff',
  '\u{10ffff}',
  '😀',
  'e\u0301',
  'İ',
  'ß',
  '\r\n',
  '\t',
  // markup, templates and format strings
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '%s%n%x',
  // Roost's own words
  'admins',
  'sys:everyone',
  'sys:owner',
  'sys:noone',
  '@ping',
  '@write',
  'api',
  '*',
  '',
  ' ',
];

const codeUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
);

/** Random text of any code point, lone surrogates and control characters included. */
export const anyText = (maxLength = 40) => fc.string({ unit: codeUnit, maxLength });

/** Big strings (cheap to make): near and over the usual limits. */
export const hugeText = fc
  .constantFrom(300, 513, 4097, 70_000, 300_000)
  .chain((n) => fc.constantFrom('x', 'é', '😀', '\ud800').map((c) => c.repeat(n)));

/** Names that are members of every plain object: a lookup by them finds a function, not nothing. */
export const PROTOTYPE_WORDS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
] as const;

export const hostileString = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_WORDS) },
  { weight: 3, arbitrary: anyText() },
  { weight: 1, arbitrary: hugeText },
);

/**
 * Objects or arrays nested `depth` levels deep, built directly (fast-check would be slow at this
 * depth); the value prints as a short description in fast-check's reports, which would
 * otherwise overflow the stack printing it.
 */
export const deeplyNested = fc.tuple(fc.integer({ min: 20, max: 4000 }), fc.boolean()).map(([depth, asArray]) => {
  let value: object = asArray ? [1] : { a: 1 };
  for (let i = 1; i < depth; i++) value = asArray ? [value] : { a: value };
  Object.defineProperty(value, fc.toStringMethod, {
    value: () => `<${depth} nested ${asArray ? 'arrays' : 'objects'}>`,
  });
  return value;
});

/** JSON text nested deeper than a JSON.stringify could write it. */
const deepJsonText = fc
  .tuple(fc.integer({ min: 1000, max: 200_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => {
    const close = open === '[' ? ']' : '}';
    return `{"key":${open.repeat(depth)}1${close.repeat(depth)}}`;
  });

const hostileKey = fc.oneof(fc.constantFrom(...PROTOTYPE_WORDS, '', 'a.b', '[0]'), anyText(12));

/** A value of any JSON type (and the types JSON cannot carry are left to `rawBodies`). */
/** A value of any JSON type, mostly text (where most checks are), sometimes deep or huge. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 8, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.integer() },
    {
      weight: 1,
      arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, -0, Number.MAX_VALUE, Number.MIN_VALUE),
    },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }) },
    { weight: 1, arbitrary: deeplyNested },
  ),
})).value;

/** An object of hostile members, some under the names the operation reads. */
export function hostileObject(fields: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fields.length > 0 ? fc.oneof(fc.constantFrom(...fields), hostileKey) : hostileKey;
  return fc.dictionary(key, hostileValue, { maxKeys: 6 });
}

/**
 * A valid call's values with some members replaced by hostile ones, some dropped, and hostile
 * members added: most runs stay close enough to valid to reach past the first check.
 */
export function mutated(
  template: Record<string, unknown>,
  fields: readonly string[],
): fc.Arbitrary<Record<string, unknown>> {
  const names = [...new Set([...fields, ...Object.keys(template)])];
  if (names.length === 0) return hostileObject(fields);
  return fc
    .tuple(
      fc.subarray(names, { minLength: 1 }),
      fc.array(hostileValue, { minLength: names.length, maxLength: names.length }),
      fc.subarray(names),
      hostileObject([]),
    )
    .map(([replaced, values, dropped, extra]) => {
      const out: Record<string, unknown> = { ...template };
      for (const [i, name] of replaced.entries()) out[name] = values[i];
      for (const name of dropped) if (!replaced.includes(name)) delete out[name];
      // Own members named like prototype keys, as a JSON body would carry them.
      for (const [k, v] of Object.entries(extra))
        if (!(k in out))
          Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

/** Bodies that are not a JSON object, or not JSON at all, or not what the content type says. */
export const rawBodies: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '1',
    '"text"',
    '[]',
    '[{"key":"k"}]',
    '{',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"__proto__":{"admin":true},"key":"k","value":1}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '{"a":1,"a":2}',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '<xml/>',
    'a=1&b=2',
    '--boundary\r\n\r\n--boundary--',
  ),
  deepJsonText,
  anyText(200),
);

export const ODD_CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'text/xml',
  'application/xml',
  'application/octet-stream',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded; charset=latin1',
  'application/json, text/html',
  'image/png',
  '*/*',
  'application/',
];

/** Printable ASCII (what a header may carry). */
export const headerText = (maxLength = 60) =>
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });
