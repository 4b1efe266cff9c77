// Rules (issue 43, item 10) on the server: the form validates, leaves out and requires fields as
// their rules say, at the top, in groups and in each item of a repeat; a rule that cannot be read
// throws when the form compiles; the page draws the state of the data it shows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  ConfigurationError,
  HTMLForm,
  fieldsFromJsonSchema,
  formJsonSchema,
  type FieldConf,
  type FieldRule,
  type FormValues,
} from '../src/index.js';
import { attr, dom, hasAttr, inside } from './helpers/html.js';

const when = (scope: string, schema: Record<string, unknown>, effect: FieldRule['effect']): FieldRule => ({
  effect,
  condition: { scope: `#/properties/${scope.split('.').join('/properties/')}`, schema },
});
const kinds = [
  { id: 'private', name: 'Private' },
  { id: 'business', name: 'Business' },
];
const fields: FieldConf[] = [
  { id: 'kind', datatype: 'list', listItems: kinds },
  { id: 'company', required: true, rule: when('kind', { const: 'business' }, 'SHOW') },
  { id: 'vat', rule: when('kind', { const: 'business' }, 'REQUIRE') },
  { id: 'nickname', rule: when('kind', { const: 'business' }, 'HIDE') },
  { id: 'age', datatype: 'number', min: 18, rule: when('kind', { const: 'private' }, 'ENABLE') },
  { id: 'shares', datatype: 'number', rule: when('age', { type: 'number', minimum: 65 }, 'DISABLE') },
];

describe('rules on the server', () => {
  test('a hidden or disabled field is not validated and not in the data; REQUIRE requires', async () => {
    const form = new HTMLForm({ fields });
    assert.deepEqual(await form.validateSchema({ kind: 'private', company: 'x', nickname: 'Al', age: 70, shares: 3 }), [
      true,
      { kind: 'private', nickname: 'Al', age: 70 },
      [],
    ]);
    const [ok, , errors] = await form.validateSchema({ kind: 'business', nickname: 7, age: 'not checked' });
    assert.equal(ok, false);
    assert.deepEqual(
      errors.map((e) => [e.field, e.messages]),
      [
        ['company', ['Required']],
        ['vat', ['Required']],
      ],
    );
    // Age disabled (not private): its value is not checked, and `shares` reads no age.
    assert.deepEqual(await form.validateSchema({ kind: 'business', company: 'ACME', vat: 'DE1', age: 3, shares: 2 }), [
      true,
      { kind: 'business', company: 'ACME', vat: 'DE1', shares: 2 },
      [],
    ]);
  });

  test('request values: a rule reads the value as sent, and a submit without the field is fine', async () => {
    const form = new HTMLForm({ fields });
    const [ok, data] = await form.validate({ kind: 'private', age: '30', shares: '5', company: 'ignored' });
    assert.equal(ok, true);
    assert.deepEqual(data, { kind: 'private', age: 30, shares: 5 });
  });

  test('in a group and in each item of a repeat, a rule reads the fields beside it there', async () => {
    const office: FieldConf[] = [
      {
        id: 'type',
        datatype: 'list',
        listItems: [
          { id: 'hq', name: 'HQ' },
          { id: 'branch', name: 'Branch' },
        ],
      },
      { id: 'city', required: true, rule: when('type', { const: 'hq' }, 'HIDE') },
      { id: 'staff', datatype: 'group', fields: [{ id: 'count', datatype: 'number' }] },
      { id: 'canteen', datatype: 'checkbox', rule: when('staff.count', { type: 'number', minimum: 50 }, 'REQUIRE') },
    ];
    const form = new HTMLForm({
      fields: [{ id: 'company', datatype: 'group', fields: [{ id: 'offices', datatype: 'repeat', fields: office }] }],
    });
    const [ok, data, errors] = await form.validate({
      'company.offices.0.type': 'hq',
      'company.offices.0.city': 'dropped',
      'company.offices.0.staff.count': '10',
      'company.offices.1.type': 'branch',
      'company.offices.1.staff.count': '80',
    });
    assert.equal(ok, false, JSON.stringify(data));
    assert.deepEqual(errors[0]?.messages, [
      'offices: offices 2, city: Required',
      'offices: offices 2, canteen: Required',
    ]);
    const [ok2, data2] = await form.validate({
      'company.offices.0.type': 'hq',
      'company.offices.0.city': 'dropped',
      'company.offices.1.type': 'branch',
      'company.offices.1.city': 'Bern',
      'company.offices.1.staff.count': '80',
      'company.offices.1.canteen': 'true',
    });
    assert.equal(ok2, true);
    assert.deepEqual(data2, {
      company: {
        offices: [
          { type: 'hq', staff: {}, canteen: false },
          { type: 'branch', city: 'Bern', staff: { count: 80 }, canteen: true },
        ],
      },
    });
  });

  test('the page shows the state of its data: hidden and disabled fieldsets, required inputs', async () => {
    const d = dom(await new HTMLForm({ fields, formid: 'f' }).render({ kind: 'business', age: 70 }));
    const boxes = d.filter((el) => el.tagName === 'fieldset' && attr(el, 'class') === 'roost-rule');
    const boxOf = (id: string) => boxes.find((b) => inside(b, (el) => attr(el, 'id') === `f-${id}`).length);
    const state = (id: string) => ['hidden', 'disabled'].filter((a) => hasAttr(boxOf(id), a));
    assert.deepEqual(state('company'), []);
    assert.deepEqual(state('nickname'), ['hidden', 'disabled']);
    assert.deepEqual(state('age'), ['disabled'], 'disabled, in sight');
    assert.equal(hasAttr(d.byId('f-vat'), 'required'), true, 'required by its rule');
    assert.equal(boxOf('kind'), undefined, 'no rule, no box');
    const spec = JSON.parse(attr(boxOf('vat'), 'data-roost-rules') ?? '{}');
    assert.deepEqual(spec.rules, [
      { effect: 'REQUIRE', name: 'kind', kind: 'choice', ids: ['private', 'business'], schema: { const: 'business' } },
    ]);
  });

  test('in a subset (a step of a wizard), a rule may read a field of another step, from the data', async () => {
    const form = new HTMLForm({
      fields,
      subsets: { first: { fields: ['kind'] }, second: { fields: ['company'] } },
      formid: 'f',
    });
    await form.setup('second');
    assert.deepEqual((await form.validate({ kind: 'business' }))[2], [{ field: 'company', messages: ['Required'] }]);
    assert.deepEqual(await form.validate({ kind: 'private', company: 'x' }), [true, {}, []]);
    // The page cannot read the other step's field: the rule comes decided.
    const d = dom(await form.render({ kind: 'business' }));
    const box = d.find((el) => el.tagName === 'fieldset' && attr(el, 'class') === 'roost-rule');
    assert.equal(hasAttr(box, 'hidden'), false);
    assert.equal(JSON.parse(attr(box, 'data-roost-rules') ?? '{}').rules[0].holds, true);
    // Without a subset, the same scope is a mistake.
    const whole = new HTMLForm({ fields: fields.filter((f) => f.id !== 'kind').slice(0, 1) });
    await assert.rejects(whole.validate({}), /names no field beside it/);
  });

  test('a rule that cannot be read throws when the form compiles, naming the field', async () => {
    const bad: Array<[FieldRule | Record<string, unknown>, RegExp]> = [
      [{ effect: 'SHOUT', condition: { scope: '#/properties/kind', schema: {} } }, /effect must be one of/],
      [{ effect: 'SHOW', condition: { scope: 'kind', schema: {} } }, /scope must read "#\/properties\/<id>"/],
      [{ effect: 'SHOW', condition: { scope: '#/properties/nope', schema: {} } }, /names no field beside it/],
      [{ effect: 'SHOW', condition: { scope: '#/properties/kind', schema: { cosnt: 1 } } }, /keyword "cosnt"/],
    ];
    for (const [rule, message] of bad) {
      const form = new HTMLForm({ fields: [{ id: 'kind' }, { id: 'x', rule: rule as FieldRule }] });
      await assert.rejects(form.validate({}), (e: Error) => e instanceof ConfigurationError && message.test(e.message));
    }
  });

  test('JSON Schema: export → import → export is the identity with rules at every depth, effects as written', () => {
    const office: FieldConf[] = [
      { id: 'type', datatype: 'list', listItems: [{ id: 'hq', name: 'HQ' }] },
      {
        id: 'city',
        required: true,
        rule: [when('type', { const: 'hq' }, 'HIDE'), when('type', { enum: ['x'] }, 'DISABLE')],
      },
      { id: 'staff', datatype: 'group', fields: [{ id: 'count', datatype: 'number' }] },
      { id: 'canteen', datatype: 'checkbox', rule: when('staff.count', { type: 'number', minimum: 50 }, 'REQUIRE') },
    ];
    const all: FieldConf[] = [
      ...fields,
      { id: 'note', required: true, rule: when('kind', { const: 'private' }, 'REQUIRE') },
      {
        id: 'both',
        rule: [when('kind', { const: 'a' }, 'REQUIRE'), when('age', { type: 'integer', maximum: 3 }, 'REQUIRE')],
      },
      { id: 'offices', datatype: 'repeat', fields: office },
    ];
    const exported = formJsonSchema(all);
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.compile(exported);
    const back = fieldsFromJsonSchema(exported);
    assert.deepEqual(formJsonSchema(back), exported);
    const byId = Object.fromEntries(back.map((f) => [f.id, f]));
    const effects = (f: FieldConf | undefined) => [f?.required ?? false, [f?.rule ?? []].flat().map((r) => r.effect)];
    assert.deepEqual(
      ['company', 'vat', 'nickname', 'age', 'shares', 'note', 'both'].map((id) => effects(byId[id])),
      [
        [true, ['SHOW']],
        [false, ['REQUIRE']],
        [false, ['HIDE']],
        [false, ['ENABLE']],
        [false, ['DISABLE']],
        [true, []],
        [false, ['REQUIRE', 'REQUIRE']],
      ],
    );
    assert.deepEqual(byId.company?.rule, [when('kind', { const: 'business' }, 'SHOW')]);
    const item = Object.fromEntries((byId.offices?.fields ?? []).map((f) => [f.id, f]));
    assert.deepEqual(item.city?.rule, office[1]?.rule);
    assert.deepEqual(item.canteen?.rule, [office[3]?.rule]);
  });

  test('JSON Schema: an entry named as a rule but of another shape is refused by name', () => {
    const exported = formJsonSchema(fields);
    const allOf = [...(exported.allOf as object[])];
    allOf[0] = { ...allOf[0], else: { properties: { company: true } } };
    assert.throws(() => fieldsFromJsonSchema({ ...exported, allOf }), {
      name: 'ConfigurationError',
      message: /allOf: the entry "rule: SHOW "company""/,
    });
  });
});

test('JSON Schema: an array condition without its type exports as Ajv strict takes it, the same meaning', async () => {
  const fields: FieldConf[] = [
    {
      id: 'via',
      datatype: 'checkbox',
      listItems: [
        { id: 'post', name: 'Post' },
        { id: 'mail', name: 'Mail' },
      ],
    },
    { id: 'street', required: true, rule: when('via', { contains: { const: 'post' }, minItems: 1 }, 'SHOW') },
  ];
  const ajv = new Ajv2020({ strict: true });
  const check = ajv.compile(formJsonSchema(fields));
  const form = new HTMLForm({ fields });
  const cases: Array<[FormValues, boolean]> = [
    [{ via: ['post'], street: 'Main St 1' }, true],
    [{ via: ['post'] }, false],
    [{ via: ['mail'] }, true],
    [{ via: ['mail'], street: 'not kept' }, true],
  ];
  for (const [values, accepted] of cases) {
    const [ok, data] = await form.validate(values);
    assert.equal(ok, accepted, JSON.stringify(values));
    assert.equal(check(ok ? data : values), accepted, `Ajv on ${JSON.stringify(ok ? data : values)}`);
  }
});

describe('a controlset is one case of the rules', () => {
  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  // Checkboxes as the control (a controlset worked for a select only before: its own script),
  // a field held by two items, and a controlled field with its own rule.
  const channels: FieldConf[] = [
    {
      id: 'via',
      datatype: 'checkbox',
      settings: { controlset: true },
      listItems: [
        { id: 'post', name: 'Post', fields: [{ id: 'street', required: true }] },
        { id: 'courier', name: 'Courier', fields: [{ id: 'street', required: true }, { id: 'floor' }] },
        { id: 'mail', name: 'E-mail', fields: [{ id: 'cc', rule: when('street', { const: 'x' }, 'HIDE') }] },
      ],
    },
  ];

  test('its item fields get SHOW rules on the choice, before their own rules', async () => {
    const form = new HTMLForm({ fields: channels });
    await form.setup();
    const rules = Object.fromEntries(form.getFields().map((f) => [f.id, [f.rule ?? []].flat()]));
    assert.deepEqual(rules, {
      via: [],
      street: [when('via', { type: 'array', contains: { enum: ['post', 'courier'] } }, 'SHOW')],
      floor: [when('via', { type: 'array', contains: { const: 'courier' } }, 'SHOW')],
      cc: [when('via', { type: 'array', contains: { const: 'mail' } }, 'SHOW'), when('street', { const: 'x' }, 'HIDE')],
    });
  });

  test('the form and Ajv on its export accept and refuse alike, a field not chosen left out', async () => {
    const form = new HTMLForm({ fields: channels });
    const check = ajv.compile(await form.jsonSchema());
    const cases: Array<[FormValues, Record<string, unknown> | false]> = [
      [
        { via: ['mail'], street: 'ignored', cc: 'a@b.ch' },
        { via: ['mail'], cc: 'a@b.ch' },
      ],
      [{ via: ['post'] }, false],
      [
        { via: ['post', 'courier'], street: 'Main St', floor: '2' },
        { via: ['post', 'courier'], street: 'Main St', floor: '2' },
      ],
      [
        { via: ['mail', 'post'], street: 'x', cc: 'hidden by its own rule' },
        { via: ['mail', 'post'], street: 'x' },
      ],
    ];
    for (const [values, expected] of cases) {
      const [ok, data] = await form.validate(values);
      assert.deepEqual(ok ? data : false, expected, JSON.stringify(values));
      if (ok) assert.equal(check(data), true, JSON.stringify(check.errors));
    }
    assert.equal(check({ via: ['post'] }), false, "Ajv requires the chosen item's street too");
    assert.equal(check({ via: ['mail'], floor: '2' }), false, 'and refuses the field of an item not chosen');
  });

  test("a controlset whose items come from a callback reads the request's text of an id", async () => {
    const form = new HTMLForm({
      fields: [
        {
          id: 'plan',
          datatype: 'list',
          settings: { controlset: true },
          listItems: async () => [
            { id: 1, name: 'Basic' },
            { id: 2, name: 'Team', fields: [{ id: 'seats', datatype: 'number', required: true }] },
          ],
        },
      ],
    });
    assert.equal((await form.validate({ plan: '2' }))[0], false, 'chosen: seats is required');
    assert.deepEqual(await form.validate({ plan: '1', seats: 'x' }), [true, { plan: 1 }, []]);
  });
});
