// Validation as you type (issue 43, item 9) on the server: the form's own url answers a live check
// of one field as JSON with the messages a submit would give (rules and validators run, no action,
// no event), and the page gets the checks it can make itself with the same messages.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLForm, browserSafe, type FieldConf, type FormInit } from '../src/index.js';
import { attr, dom, text } from './helpers/html.js';

const fields: FieldConf[] = [
  {
    id: 'username',
    name: 'User name',
    required: true,
    minLength: 3,
    validator: async (v) => (v === 'ada' ? 'Name taken' : undefined),
  },
  { id: 'code', name: 'Code', pattern: '[A-Z]{3}' },
  { id: 'born', name: 'Born', datatype: 'date', min: '1900-01-01' },
  {
    id: 'pairs',
    datatype: 'number',
    validator: browserSafe((v) => (Number(v) % 2 ? 'Must be even' : undefined), ['Must be even']),
  },
  {
    id: 'vat',
    rule: { effect: 'SHOW', condition: { scope: '#/properties/code', schema: { const: 'BIZ' } } },
    required: true,
  },
];

const liveCheck = async (name: string, body: Record<string, string>, init: Partial<FormInit> = {}) => {
  const form = new HTMLForm({
    fields,
    liveValidation: true,
    request: { method: 'POST', body: { ...body, roost$validate: name } },
    ...init,
  });
  const fired: string[] = [];
  form.listenEvent('success', () => {
    fired.push('success');
  });
  form.listenEvent('process', () => {
    fired.push('process');
  });
  const { response, html } = await form.process();
  return { response, html, events: fired.length };
};

describe('live validation on the server', () => {
  test('a live check answers JSON with the field’s messages, runs no action and fires no event', async () => {
    const taken = await liveCheck('username', { username: 'ada', code: 'x' });
    assert.equal(taken.response?.status, 200);
    assert.match(taken.response?.headers['Content-Type'] ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse(taken.response?.body ?? ''), {
      field: 'username',
      messages: ['Name taken'],
      inputs: [],
    });
    assert.equal(taken.events, 0);
    assert.equal(taken.html, '');
    const short = await liveCheck('username', { username: 'al' });
    assert.deepEqual(JSON.parse(short.response?.body ?? '').messages, ['Shorter than minimum length 3']);
    const early = await liveCheck('born', { born: '1850-02-03' });
    assert.deepEqual(JSON.parse(early.response?.body ?? '').messages, ['Earlier than 1900-01-01']);
  });

  test("a repeat's answer names each input at fault with its messages, at any depth", async () => {
    const floors = {
      id: 'floors',
      name: 'Floor',
      datatype: 'repeat',
      fields: [
        { id: 'level', name: 'Level', required: true },
        { id: 'rooms', name: 'Room', datatype: 'repeat', fields: [{ id: 'no', name: 'Number', required: true }] },
      ],
    } as const;
    const body = { 'floors.0.level': '', 'floors.0.rooms.0.no': '', 'floors.1.level': 'First' };
    const r = await liveCheck('floors', body, { fields: [floors] });
    assert.deepEqual(JSON.parse(r.response?.body ?? '').faults, [
      { input: 'floors.0.level', messages: ['Floor 1, Level: Required'] },
      { input: 'floors.0.rooms.0.no', messages: ['Floor 1, Room: Room 1, Number: Required'] },
    ]);
  });

  test('a field its rules hide has nothing to say; an unknown field is refused; option off: none', async () => {
    assert.deepEqual(JSON.parse((await liveCheck('vat', { code: 'ABC' })).response?.body ?? '').messages, []);
    assert.deepEqual(JSON.parse((await liveCheck('vat', { code: 'BIZ' })).response?.body ?? '').messages, ['Required']);
    const unknown = await liveCheck('nope', {});
    assert.equal(unknown.response?.status, 400);
    assert.deepEqual(JSON.parse(unknown.response?.body ?? ''), { error: 'Unknown field "nope"' });
    const off = await liveCheck('username', { username: 'ada' }, { liveValidation: false });
    assert.equal(off.response, undefined, 'without the option the key is an ordinary value');
    assert.match(off.html, /<form/);
  });

  test('the page gets the checks it can make, their messages translated by the server', async () => {
    const form = new HTMLForm({ fields, liveValidation: true, locale: 'de', formid: 'f' });
    const html = await form.render({});
    const d = dom(html);
    const spec = JSON.parse(attr(d.tag('form')[0], 'data-roost-live') ?? '{}');
    assert.equal(spec.key, 'roost$validate');
    assert.deepEqual(Object.keys(spec.fields), ['username', 'code', 'born', 'pairs', 'vat']);
    assert.equal(spec.fields.username.requiredMessage, 'Pflichtfeld');
    assert.deepEqual(
      spec.fields.username.checks.map((c: { message: string }) => c.message),
      ['Kürzer als die minimale Länge von 3'],
    );
    // Only what the page cannot check goes to the server: a validator not marked, a date's bounds.
    assert.deepEqual(
      Object.entries(spec.fields).map(([id, f]) => [id, (f as { remote: boolean }).remote]),
      [
        ['username', true],
        ['code', false],
        ['born', true],
        ['pairs', true],
        ['vat', false],
      ],
    );
    assert.match(spec.fields.pairs.validators[0].source, /Must be even/);
    // The same message a submit gives, in the same words.
    const [, , errors] = await form.validate({ username: 'al', code: 'abc' });
    assert.deepEqual(errors.find((e) => e.field === 'username')?.messages, ['Kürzer als die minimale Länge von 3']);
    assert.deepEqual(errors.find((e) => e.field === 'code')?.messages, [spec.fields.code.checks[0].message]);
    // Each checked field has its error box from the start, a polite live region.
    const box = d.byId('f-username-error');
    assert.equal(attr(box, 'aria-live'), 'polite');
    assert.equal(text(box), '');
  });

  test('without the option the page is as it was', async () => {
    const d = dom(await new HTMLForm({ fields, formid: 'f' }).render({}));
    assert.equal(attr(d.tag('form')[0], 'data-roost-live'), undefined);
    assert.deepEqual(
      d.filter((el) => attr(el, 'aria-live') !== undefined || (attr(el, 'id') ?? '').endsWith('-error')),
      [],
    );
  });
});
