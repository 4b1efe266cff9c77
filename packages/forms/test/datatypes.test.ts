// Every datatype converts good input and refuses bad input, through Form.validate (widget values).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Form, type FieldConf, type FormValues } from '../src/index.js';

const items = [
  { id: 'a', name: 'A' },
  { id: 'b', name: 'B' },
  { id: 3, name: 'Three' },
];
const file = { filename: 'cv.pdf', mime: 'application/pdf', size: 10, data: new Uint8Array(10) };

interface Case {
  field: Omit<FieldConf, 'id'>;
  good: Array<[input: FormValues[string], expected: unknown]>;
  bad: Array<[input: FormValues[string], message: string]>;
  extra?: (v: unknown) => FormValues;
}

const cases: Record<string, Case> = {
  string: {
    field: { datatype: 'string', size: 5 },
    good: [
      [' abc ', 'abc'],
      [['x'], 'x'],
    ],
    bad: [['abcdef', 'Longer than maximum length 5']],
  },
  text: {
    field: { datatype: 'text', size: 20 },
    good: [[' line 1\nline 2', ' line 1\nline 2']],
    bad: [['x'.repeat(21), 'Longer than maximum length 20']],
  },
  number: {
    field: { datatype: 'number' },
    good: [
      ['42', 42],
      [' -7 ', -7],
    ],
    bad: [
      ['4.5', '"4.5" is not a number'],
      ['x', '"x" is not a number'],
      ['99999999999999999999', '"99999999999999999999" is not a number'],
    ],
  },
  float: {
    field: { datatype: 'float' },
    good: [
      ['4.5', 4.5],
      ['1,25', 1.25],
      ['-1e3', -1000],
    ],
    bad: [
      ['abc', '"abc" is not a number'],
      ['1.2.3', '"1.2.3" is not a number'],
    ],
  },
  bool: {
    field: { datatype: 'bool' },
    good: [
      ['true', true],
      ['false', false],
      ['1', true],
      ['0', false],
      ['on', true],
    ],
    bad: [['maybe', 'Invalid boolean']],
  },
  date: {
    field: { datatype: 'date' },
    good: [
      ['2024-02-29', '2024-02-29'],
      ['2024/3/5', '2024-03-05'],
      ['12/24/2024', '2024-12-24'],
      ['12/24/24', '2024-12-24'],
    ],
    bad: [
      ['2023-02-29', 'Invalid date'],
      ['tomorrow', 'Invalid date'],
    ],
  },
  time: {
    field: { datatype: 'time' },
    good: [
      ['16:55', '16:55:00'],
      ['7', '07:00:00'],
      ['23:59:59', '23:59:59'],
    ],
    bad: [
      ['24:00', 'Invalid time'],
      ['noon', 'Invalid time'],
    ],
  },
  datetime: {
    field: { datatype: 'datetime' },
    good: [
      ['2008-06-23 16:55:20', '2008-06-23T16:55:20'],
      ['2008-06-23T16:55', '2008-06-23T16:55:00'],
      ['2008-06-23T16:55:00Z', '2008-06-23T16:55:00Z'],
      ['2008-06-23T16:55:00+02:00', '2008-06-23T16:55:00+02:00'],
    ],
    bad: [
      ['2008-13-01 10:00', 'Invalid date and time'],
      ['2008-06-23', 'Invalid date and time'],
    ],
  },
  list: {
    field: { datatype: 'list', listItems: items },
    good: [
      ['a', 'a'],
      ['3', 3],
    ],
    bad: [
      ['z', "'z' not in reference list"],
      [['a', 'b'], 'Only one value allowed'],
    ],
  },
  radio: {
    field: { datatype: 'radio', listItems: items },
    good: [['b', 'b']],
    bad: [['z', "'z' not in reference list"]],
  },
  multilist: {
    field: { datatype: 'multilist', listItems: items },
    good: [
      [
        ['a', '3'],
        ['a', 3],
      ],
      ['b', ['b']],
    ],
    bad: [[['a', 'z'], "'z' not in reference list"]],
  },
  checkbox: {
    field: { datatype: 'checkbox', listItems: items },
    good: [
      [
        ['a', 'b'],
        ['a', 'b'],
      ],
    ],
    bad: [['q', "'q' not in reference list"]],
  },
  'checkbox (single)': {
    field: { datatype: 'checkbox' },
    good: [
      ['true', true],
      [undefined, false],
    ],
    bad: [['banana', 'Invalid boolean']],
  },
  email: {
    field: { datatype: 'email' },
    good: [[' ada@example.org ', 'ada@example.org']],
    bad: [
      ['ada@', 'Invalid email address'],
      ['not an email', 'Invalid email address'],
    ],
  },
  url: {
    field: { datatype: 'url' },
    good: [
      ['https://example.org/a?b=1', 'https://example.org/a?b=1'],
      ['http://localhost:3000', 'http://localhost:3000'],
    ],
    bad: [
      ['javascript:alert(1)', 'Invalid url'],
      ['example', 'Invalid url'],
    ],
  },
  password: {
    field: { datatype: 'password', size: 20 },
    good: [['secret1', 'secret1']],
    bad: [
      ['abc', 'Shorter than minimum length 5'],
      ['x'.repeat(21), 'Longer than maximum length 20'],
    ],
    extra: (v) => ({ 'f-confirm': v as string }),
  },
  json: {
    field: { datatype: 'json' },
    good: [
      ['{"a":1}', { a: 1 }],
      ['[1,2]', [1, 2]],
    ],
    bad: [['{a:1}', 'Json format error']],
  },
  lines: {
    field: { datatype: 'lines', size: 10 },
    good: [['a\r\n\r\n b \nc', ['a', 'b', 'c']]],
    bad: [['0123456789\nabc', 'Longer than maximum length 10']],
  },
  file: {
    field: { datatype: 'file', size: 100 },
    good: [[file, { ...file, filekey: 'f', tempfile: true }]],
    bad: [[{ ...file, size: 101 }, 'File larger than 100 bytes']],
  },
  hidden: { field: { datatype: 'hidden' }, good: [[' v ', 'v']], bad: [] },
};

describe('datatypes', () => {
  for (const [name, c] of Object.entries(cases)) {
    test(`${name}: converts good input, refuses bad input`, async () => {
      const form = new Form({ fields: [{ id: 'f', ...c.field }] });
      for (const [input, expected] of c.good) {
        const [ok, data, errors] = await form.validate({ f: input, ...c.extra?.(input) });
        assert.deepEqual(errors, [], `${name} ${JSON.stringify(input)}`);
        assert.equal(ok, true);
        assert.deepEqual(data.f, expected, `${name} ${JSON.stringify(input)}`);
      }
      for (const [input, message] of c.bad) {
        const [ok, , errors] = await form.validate({ f: input, ...c.extra?.(input) });
        assert.equal(ok, false, `${name} should refuse ${JSON.stringify(input)}`);
        assert.deepEqual(errors, [{ field: 'f', messages: [message] }]);
      }
    });
  }

  test('password confirmation mismatch and single password', async () => {
    const form = new Form({ fields: [{ id: 'pw', datatype: 'password' }] });
    const [ok, , errors] = await form.validate({ pw: 'secret1', 'pw-confirm': 'secret2' });
    assert.equal(ok, false);
    assert.deepEqual(errors, [{ field: 'pw', messages: ['Password did not match confirm'] }]);
    const single = new Form({ fields: [{ id: 'pw', datatype: 'password', settings: { single: true, minLength: 8 } }] });
    assert.deepEqual(await single.validate({ pw: 'longenough' }), [true, { pw: 'longenough' }, []]);
    assert.equal((await single.validate({ pw: 'short' }))[0], false);
  });

  test('empty optional values: strings stay "", numbers and dates null, lists []; required fails', async () => {
    const form = new Form({
      fields: [
        { id: 's' },
        { id: 'n', datatype: 'number' },
        { id: 'd', datatype: 'date' },
        { id: 'm', datatype: 'multilist' },
        { id: 'r', datatype: 'email', required: true },
      ],
    });
    const [ok, data, errors] = await form.validate({ s: '', n: '', d: '', m: [], r: '' }, false);
    assert.equal(ok, false);
    assert.deepEqual(errors, [{ field: 'r', messages: ['Required'] }]);
    assert.deepEqual(data, { s: '', n: '', d: '', m: [], r: '' });
    const [, conv] = await form.validate({ s: '', n: '', d: '', m: [], r: 'a@b.example' }, false);
    assert.deepEqual(conv, { s: '', n: null, d: null, m: [], r: 'a@b.example' });
  });

  test('unchecked checkboxes and an empty multi-select count as nothing selected', async () => {
    const form = new Form({
      fields: [
        { id: 'c', datatype: 'checkbox', listItems: items },
        { id: 'agree', datatype: 'checkbox', required: true },
      ],
    });
    const [ok, , errors] = await form.validate({});
    assert.equal(ok, false);
    assert.deepEqual(errors, [{ field: 'agree', messages: ['Required'] }]);
    const [ok2, data2] = await form.validate({ agree: 'true' });
    assert.equal(ok2, true);
    assert.deepEqual(data2, { c: [], agree: true });
  });

  test('app values through validateSchema: a text is not a file, two values are not one', async () => {
    const form = new Form({
      fields: [
        { id: 'f', datatype: 'file' },
        { id: 'l', datatype: 'list', listItems: items },
      ],
    });
    const [ok, , errors] = await form.validateSchema({ f: 'not-a-file', l: ['a', 'b'] });
    assert.equal(ok, false);
    assert.deepEqual(errors, [
      { field: 'f', messages: ['Invalid file'] },
      { field: 'l', messages: ['Only one value allowed'] },
    ]);
  });

  test('an empty upload keeps the stored file (no value)', async () => {
    const form = new Form({ fields: [{ id: 'f', datatype: 'file' }] });
    assert.deepEqual(await form.validate({ f: { filename: '', size: 0 } }), [true, {}, []]);
  });

  test('messages are translated (de)', async () => {
    const form = new Form({
      locale: 'de',
      fields: [
        { id: 'n', datatype: 'number', required: true },
        { id: 's', size: 2 },
        { id: 'e', datatype: 'email' },
      ],
    });
    const [, , errors] = await form.validate({ n: '', s: 'abc', e: 'x' });
    assert.deepEqual(
      errors.map((e) => e.messages[0]),
      ['Pflichtfeld', 'Länger als die maximale Länge von 2', 'Ungültige E-Mail-Adresse'],
    );
    const [, , e2] = await form.validate({ n: 'x' });
    assert.equal(e2[0]?.messages[0], '"x" ist keine Zahl');
  });
});
