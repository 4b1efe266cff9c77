// The JSON Schema export means what the form means (issue 43, item 3): for generated forms and
// generated data, Ajv (draft 2020-12, strict, strictRequired too) on the exported schema accepts
// a value exactly when the form accepts it as it is — `validateSchema` succeeds and gives the
// value back unchanged. Values the form accepts only by converting them ('7:05' for a time, ' a '
// trimmed, '36' for a number) are not its data, so the schema refuses them and so does this test.
// Forms with rules (item 10) are generated too, and each schema survives its import unchanged.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { HTMLForm, fieldsFromJsonSchema, formJsonSchema, type FieldConf } from '../src/index.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);

/** A field without its id, and the values to try on it (`ABSENT`: the key left out). */
interface Kind {
  conf: Omit<FieldConf, 'id'>;
  values: fc.Arbitrary<unknown>;
}
const ABSENT = Symbol('absent');

const required = fc.boolean();
/** Text without white space (the form trims it, so padded text is never its data) or astral characters. */
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', 'Z', '1', '9', '-', 'é'), maxLength: 8 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const withAbsent = (arb: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: arb }, fc.constant(ABSENT));

const textKind: fc.Arbitrary<Kind> = fc
  .record({
    datatype: fc.constantFrom('string', 'text', 'password'),
    required,
    pattern: maybe(fc.constantFrom('[A-Z]{3}', '\\d+', 'a|b', '[a-z]+-\\d')),
    minLength: maybe(fc.integer({ min: 1, max: 4 })),
    size: maybe(fc.integer({ min: 2, max: 6 })),
  })
  .map((conf) => ({
    conf,
    values: withAbsent(fc.oneof(word, fc.constantFrom('', 'ABC', 'AB', '12', 'a', 'b', 'xa', 'ab-1', 'abcdefg'))),
  }));

const addressKind: fc.Arbitrary<Kind> = fc
  .record({ datatype: fc.constantFrom('email', 'url'), required })
  .map((conf) => ({
    conf,
    values: withAbsent(
      fc.constantFrom(
        '',
        'ada@example.com',
        'a.b@c.org',
        'nope',
        'a@b',
        '@x.org',
        'https://example.com',
        'http://a.b/c?d=1',
        'ftp://x.y',
        'https://',
      ),
    ),
  }));

const integerKind: fc.Arbitrary<Kind> = fc
  .record({
    required,
    step: maybe(fc.constantFrom(1, 2, 5)),
    min: maybe(fc.integer({ min: -2, max: 2 })),
    max: maybe(fc.integer({ min: 3, max: 30 })),
  })
  // multipleOf counts from 0: a minimum that is a multiple of the step keeps the two the same.
  .map(({ step, min, ...rest }) => ({
    conf: { ...rest, datatype: 'number', step, min: min !== undefined && step ? min * step : min },
    values: withAbsent(fc.oneof(fc.integer({ min: -40, max: 40 }), fc.constant(1.5))),
  }));

const floatKind: fc.Arbitrary<Kind> = fc
  .record({
    required,
    // Steps a binary fraction holds exactly, so Ajv's division agrees with the form's tolerance.
    step: maybe(fc.constantFrom(0.25, 0.5, 1)),
    min: maybe(fc.constantFrom(-1, 0, 0.5)),
    max: maybe(fc.constantFrom(2, 4.75)),
  })
  .map(({ step, min, ...rest }) => ({
    conf: { ...rest, datatype: 'float', step, min: min !== undefined && step ? Math.ceil(min / step) * step : min },
    values: withAbsent(fc.integer({ min: -24, max: 48 }).map((n) => n * 0.125)),
  }));

const boolKind: fc.Arbitrary<Kind> = fc
  .record({ datatype: fc.constantFrom('bool', 'checkbox'), required })
  .map((conf) => ({ conf, values: withAbsent(fc.boolean()) }));

const dateLike = (datatype: string, values: string[], bounds: string[]): fc.Arbitrary<Kind> =>
  fc
    .record({ required, min: maybe(fc.constantFrom(...bounds)), max: maybe(fc.constantFrom(...bounds)) })
    .map((conf) => ({ conf: { ...conf, datatype }, values: withAbsent(fc.constantFrom(...values)) }));

const dateKind = dateLike(
  'date',
  ['2024-01-31', '2024-02-29', '2023-02-29', '2024-13-01', '2023-12-31', '2025-06-01', 'x', ''],
  ['2024-01-01', '2024-06-30'],
);
const timeKind = dateLike(
  'time',
  ['00:00:00', '23:59:59', '24:00:00', '12:30:00', '12:60:00', '07:05', '7:05:00', 'x', ''],
  ['08:00:00', '17:30:00'],
);
const dateTimeKind = dateLike(
  'datetime',
  ['2024-01-31T10:00:00', '2024-01-31T25:00:00', '2024-02-30T10:00:00', '2024-01-31 10:00:00', 'x', ''],
  ['2024-01-01T00:00:00', '2024-06-30T12:00:00'],
);
// An offset is the form's data too; bounds compare as text there (validate/constraints.ts), so
// offsets are tried on unbounded fields only.
const zonedKind: fc.Arbitrary<Kind> = required.map((r) => ({
  conf: { datatype: 'datetime', required: r },
  values: withAbsent(fc.constantFrom('2024-01-31T10:00:00Z', '2024-01-31T10:00:00+01:00', '2024-01-31T10:00:00z')),
}));

const items = [
  { id: 'a', name: 'A' },
  { id: 'b', name: 'B' },
  { id: 'c', name: 'C' },
];
const choiceKind: fc.Arbitrary<Kind> = fc
  .record({ datatype: fc.constantFrom('list', 'radio'), required })
  .map((conf) => ({ conf: { ...conf, listItems: items }, values: withAbsent(fc.constantFrom('a', 'c', 'd', '', 1)) }));
const choicesKind: fc.Arbitrary<Kind> = fc
  .record({ datatype: fc.constantFrom('multilist', 'checkbox'), required })
  .map((conf) => ({
    conf: { ...conf, listItems: items },
    values: withAbsent(fc.array(fc.constantFrom('a', 'b', 'd'), { maxLength: 3 })),
  }));
const linesKind: fc.Arbitrary<Kind> = required.map((r) => ({
  conf: { datatype: 'lines', required: r },
  values: withAbsent(fc.array(fc.constantFrom('x', 'yz', ''), { maxLength: 3 })),
}));
const jsonKind: fc.Arbitrary<Kind> = required.map((r) => ({
  conf: { datatype: 'json', required: r },
  // Not strings: the form reads a string as JSON text, so a string is never given back as it is.
  values: withAbsent(
    fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constantFrom(null, [5], [''], []),
      fc.array(fc.oneof(fc.integer(), fc.constantFrom('', null))),
    ),
  ),
}));

const simpleKind = fc.oneof(
  textKind,
  addressKind,
  integerKind,
  floatKind,
  boolKind,
  dateKind,
  timeKind,
  dateTimeKind,
  zonedKind,
  choiceKind,
  choicesKind,
  linesKind,
  jsonKind,
);

/**
 * Rules (issue 43, item 10) on fields beside them: for each field but the first, maybe one rule
 * of any effect whose scope is an earlier field and whose condition is `const` (or its `not`) of
 * a value tried on that field, so the conditions hold and fail about as often. `kinds[j]` is the
 * kind of field j, undefined for a group or repeat (no scope).
 */
const EFFECTS = ['SHOW', 'HIDE', 'ENABLE', 'DISABLE', 'REQUIRE'] as const;
const withRules = <T extends { conf: Omit<FieldConf, 'id'>; value: unknown }>(
  list: T[],
  kinds: readonly (Kind | undefined)[],
) =>
  fc
    .tuple(
      ...list.map((_, i) => {
        const scopes = kinds.slice(0, i).flatMap((k, j) => (k ? [{ k, j }] : []));
        if (!scopes.length) return fc.constant(undefined);
        const rule = fc
          .record({ effect: fc.constantFrom(...EFFECTS), at: fc.constantFrom(...scopes), negate: fc.boolean() })
          .chain(({ effect, at, negate }) =>
            at.k.values
              .filter((v) => v !== ABSENT)
              .map((v) => ({
                effect,
                condition: { scope: `#/properties/f${at.j}`, schema: negate ? { not: { const: v } } : { const: v } },
              })),
          );
        return fc.option(rule, { nil: undefined, freq: 2 });
      }),
    )
    .map((rules) =>
      list.map((entry, i) => ({ conf: rules[i] ? { ...entry.conf, rule: rules[i] } : entry.conf, value: entry.value })),
    );

/** Fields with ids `f0`, `f1`, … and one value each (or none), some with rules. */
const fieldsWithValues = (kind: fc.Arbitrary<Kind>, most: number) =>
  fc
    .array(
      kind.chain((k) => k.values.map((value) => ({ conf: k.conf, value, kind: k }))),
      { minLength: 1, maxLength: most },
    )
    .chain((list) =>
      withRules(
        list,
        list.map((e) => e.kind),
      ),
    );

const build = (list: { conf: Omit<FieldConf, 'id'>; value: unknown }[]) => ({
  fields: list.map(({ conf }, i) => ({ ...conf, id: `f${i}` }) as FieldConf),
  data: Object.fromEntries(list.flatMap(({ value }, i) => (value === ABSENT ? [] : [[`f${i}`, value]]))),
});

// A group's value is always there, an object (the form gives one even when nothing was typed).
const groupKind: fc.Arbitrary<{ conf: Omit<FieldConf, 'id'>; value: unknown }> = fieldsWithValues(simpleKind, 3).map(
  (list) => {
    const { fields, data } = build(list);
    return { conf: { datatype: 'group', fields }, value: data };
  },
);
const repeatKind: fc.Arbitrary<{ conf: Omit<FieldConf, 'id'>; value: unknown }> = fc
  .record({
    kinds: fc.array(simpleKind, { minLength: 1, maxLength: 2 }),
    required,
    minItems: maybe(fc.integer({ min: 0, max: 2 })),
    maxItems: maybe(fc.integer({ min: 2, max: 3 })),
  })
  .chain(({ kinds, ...conf }) =>
    fc
      .tuple(
        withRules(
          kinds.map((k) => ({ conf: k.conf, value: undefined })),
          kinds,
        ),
        fc.array(fc.tuple(...kinds.map((k) => k.values)), { maxLength: 4 }),
      )
      .map(([ruled, rows]) => ({
        conf: { ...conf, datatype: 'repeat', fields: ruled.map((k, i) => ({ ...k.conf, id: `f${i}` }) as FieldConf) },
        value: rows.map((row) => build(row.map((value, i) => ({ conf: kinds[i]?.conf ?? {}, value }))).data),
      })),
  );

describe('JSON Schema export: the form and Ajv accept exactly the same data', () => {
  test('generated forms and data (fast-check)', async () => {
    const field = fc.oneof(
      { weight: 6, arbitrary: simpleKind.chain((k) => k.values.map((value) => ({ conf: k.conf, value, kind: k }))) },
      { weight: 1, arbitrary: groupKind.map((g) => ({ ...g, kind: undefined })) },
      { weight: 1, arbitrary: repeatKind.map((r) => ({ ...r, kind: undefined })) },
    );
    const fields = fc.array(field, { minLength: 1, maxLength: 4 }).chain((list) =>
      withRules(
        list,
        list.map((e) => e.kind),
      ),
    );
    const seen = { accepted: 0, refused: 0, ruled: 0 };
    await fc.assert(
      fc.asyncProperty(fields, async (list) => {
        const { fields, data } = build(list);
        const schema = formJsonSchema(fields);
        const check = ajv.compile(schema);
        assert.deepEqual(formJsonSchema(fieldsFromJsonSchema(schema)), schema, 'export → import → export');
        const [ok, out] = await new HTMLForm({ fields }).validateSchema(data);
        const formAccepts = ok && isDeepStrictEqual(out, data);
        seen[formAccepts ? 'accepted' : 'refused'] += 1;
        if (JSON.stringify(fields).includes('"rule"')) seen.ruled += 1;
        assert.equal(
          check(data),
          formAccepts,
          `${JSON.stringify(fields)}\n${JSON.stringify(data)}\nform: ${ok} ${JSON.stringify(out)}\n` +
            `ajv: ${JSON.stringify(check.errors)}`,
        );
      }),
      { numRuns: 300 },
    );
    // Both answers are tried often (the property would hold trivially with one of them only), and
    // forms with rules (at the top, in groups and repeats) too.
    assert.ok(seen.accepted >= 20 && seen.refused >= 20 && seen.ruled >= 100, JSON.stringify(seen));
  });
});
