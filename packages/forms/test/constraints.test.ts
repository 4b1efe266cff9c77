// Field constraints beyond the datatype (minLength, pattern, min, max, step): the server checks
// them, and the same configuration renders the attributes the browser checks first.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLForm, type FieldConf } from '../src/index.js';
import { attr, dom } from './helpers/html.js';

const fields: FieldConf[] = [
  { id: 'code', name: 'Code', pattern: '[A-Z]{3}-\\d+', size: 8, minLength: 5 },
  { id: 'bio', name: 'Bio', datatype: 'text', minLength: 10, size: 200 },
  { id: 'email', name: 'E-mail', datatype: 'email', size: 40 },
  { id: 'age', name: 'Age', datatype: 'number', min: 18, max: 120 },
  { id: 'price', name: 'Price', datatype: 'float', min: 0.5, step: 0.25 },
  { id: 'ratio', name: 'Ratio', datatype: 'float' },
  { id: 'day', name: 'Day', datatype: 'date', min: '2026-01-01', max: '2026-12-31' },
  { id: 'pw', name: 'Password', datatype: 'password', minLength: 12 },
];
const form = () => new HTMLForm({ fields });

describe('field constraints', () => {
  test('rendered for the browser: minlength, maxlength, pattern, min, max, step and the input types', async () => {
    const d = dom(await form().render({}));
    const a = (id: string, name: string) => attr(d.byId(`upload-${id}`), name);
    assert.deepEqual(
      ['type', 'minlength', 'maxlength', 'pattern'].map((n) => a('code', n)),
      ['text', '5', '8', '[A-Z]{3}-\\d+'],
    );
    assert.deepEqual([a('bio', 'minlength'), a('bio', 'maxlength')], ['10', '200']);
    assert.deepEqual([a('email', 'type'), a('email', 'maxlength')], ['email', '40']);
    assert.deepEqual(
      ['type', 'min', 'max', 'step'].map((n) => a('age', n)),
      ['number', '18', '120', '1'],
    );
    assert.deepEqual([a('price', 'min'), a('price', 'step')], ['0.5', '0.25']);
    assert.equal(a('ratio', 'step'), 'any', "a float without step keeps the widget's own");
    assert.deepEqual(
      ['type', 'min', 'max'].map((n) => a('day', n)),
      ['date', '2026-01-01', '2026-12-31'],
    );
    assert.equal(a('pw', 'minlength'), '12');
    assert.equal(attr(d.byId('upload-pw-confirm'), 'minlength'), undefined);
  });

  test('checked on the server with a message each; empty optional values pass', async () => {
    const [ok, , errors] = await form().validate({
      code: 'ab-1',
      bio: 'short',
      email: `${'a'.repeat(40)}@example.com`,
      age: '17',
      price: '0.6',
      day: '2027-01-01',
      pw: 'too-short',
      'pw-confirm': 'too-short',
    });
    assert.equal(ok, false);
    assert.deepEqual(Object.fromEntries(errors.map((e) => [e.field, e.messages])), {
      code: ['Shorter than minimum length 5', 'Does not match the required format'],
      bio: ['Shorter than minimum length 10'],
      email: ['Longer than maximum length 40'],
      age: ['Less than the minimum 18'],
      price: ['Not a multiple of 0.25'],
      day: ['Later than 2026-12-31'],
      pw: ['Shorter than minimum length 12'],
    });
    const [fine, data] = await form().validate({
      code: 'ABC-12',
      bio: 'long enough now',
      age: '120',
      price: '1.25',
      day: '2026-06-30',
      pw: 'a long secret phrase',
      'pw-confirm': 'a long secret phrase',
    });
    assert.equal(fine, true);
    assert.deepEqual([data.age, data.price, data.email], [120, 1.25, undefined]);
  });

  test('the whole value must match the pattern, as in the browser (anchored, flag v)', async () => {
    for (const [value, ok] of [
      ['ABC-1', true],
      ['xABC-1', false],
      ['ABC-1x', false],
      ['ABC-', false],
    ] as const) {
      const [valid] = await new HTMLForm({ fields: [{ id: 'code', pattern: '[A-Z]{3}-\\d+' }] }).validate({
        code: value,
      });
      assert.equal(valid, ok, value);
    }
  });

  test('a constraint that cannot be read fails when the form is set up, naming the field', async () => {
    const bad: Array<[FieldConf, RegExp]> = [
      [{ id: 'a', pattern: '(' }, /Field "a": pattern/],
      [{ id: 'b', datatype: 'number', min: '3' as unknown as number }, /Field "b": min must be a number/],
      [{ id: 'c', datatype: 'date', max: 20260101 }, /Field "c": max must be a string/],
      [{ id: 'd', datatype: 'number', step: 0 }, /Field "d": step must be a number > 0/],
      [{ id: 'e', minLength: -1 }, /Field "e": minLength/],
    ];
    for (const [field, message] of bad) {
      await assert.rejects(new HTMLForm({ fields: [field] }).validate({}), { name: 'ConfigurationError', message });
    }
  });
});
