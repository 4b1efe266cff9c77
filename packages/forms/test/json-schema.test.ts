// JSON Schema both ways: a form's fields as a draft 2020-12 schema that Ajv accepts and that
// holds exactly for the data the form accepts, and forms built from schemas.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { HTMLForm, fieldsFromJsonSchema, formJsonSchema, type FieldConf, type JsonSchema } from '../src/index.js';
import { attr, dom } from './helpers/html.js';

// Strict in every respect, strictRequired included.
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);

const fields: FieldConf[] = [
  { id: 'name', name: 'Name', required: true, size: 40, minLength: 2, description: 'As on your passport' },
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
  { id: 'site', datatype: 'url' },
  { id: 'age', datatype: 'number', min: 18, max: 120 },
  { id: 'price', datatype: 'float', min: 0, step: 0.25, default: 1 },
  { id: 'born', datatype: 'date' },
  { id: 'code', pattern: '[A-Z]{3}' },
  { id: 'tags', datatype: 'lines' },
  { id: 'agree', datatype: 'checkbox' },
  {
    id: 'topics',
    datatype: 'checkbox',
    listItems: [
      { id: 'news', name: 'News' },
      { id: 'offers', name: 'Offers' },
    ],
  },
  {
    id: 'contact',
    datatype: 'list',
    required: true,
    settings: { controlset: true },
    listItems: [
      { id: 'mail', name: 'Mail' },
      { id: 'phone', name: 'Phone', fields: [{ id: 'phone', name: 'Phone number', required: true }] },
    ],
  },
  { id: 'created', datatype: 'date', readonly: true },
  {
    id: 'home',
    datatype: 'group',
    fields: [
      { id: 'street', required: true },
      { id: 'zip', datatype: 'number' },
    ],
  },
  { id: 'others', datatype: 'repeat', maxItems: 2, fields: [{ id: 'street', required: true }] },
];

const valid = {
  name: 'Ada',
  email: 'ada@example.com',
  site: 'https://example.com',
  age: '36',
  price: '1.25',
  born: '1990-12-10',
  code: 'ABC',
  tags: 'a\nb',
  topics: ['news'],
  contact: 'phone',
  phone: '+41 44 000',
  'home.street': 'Main St',
  'home.zip': '8000',
  'others.0.street': 'Side St',
};

describe('JSON Schema from a form', () => {
  test('draft 2020-12 that Ajv compiles in strict mode; titles, constraints, formats, enums, required', async () => {
    const schema = await new HTMLForm({ fields }).jsonSchema('Sign-up');
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    ajv.compile(schema);
    const p = schema.properties as Record<string, JsonSchema>;
    assert.deepEqual(p.name, {
      title: 'Name',
      description: 'As on your passport',
      type: 'string',
      minLength: 2,
      maxLength: 40,
    });
    assert.deepEqual(p.age, { type: 'integer', minimum: 18, maximum: 120 });
    assert.deepEqual(p.price, { default: 1, type: 'number', minimum: 0, multipleOf: 0.25 });
    assert.deepEqual(p.topics, { type: 'array', items: { enum: ['news', 'offers'] } });
    assert.deepEqual([p.email?.format, p.born?.format], ['email', 'date']);
    // An optional field's checks hold for what is not the form's empty ''.
    assert.deepEqual(p.site?.anyOf, [{ const: '' }, { format: 'uri', pattern: '^https?://[^/?#\\s]+' }]);
    assert.deepEqual(p.agree, { type: 'boolean' });
    assert.equal(p.created, undefined, 'readonly fields are not data');
    // A controlled field is required only while its item is chosen (its SHOW rule's `if`/`then`).
    assert.deepEqual(schema.required, ['name', 'email', 'contact']);
    assert.deepEqual(p.others, {
      type: 'array',
      items: { type: 'object', properties: { street: { type: 'string', minLength: 1 } }, required: ['street'] },
      maxItems: 2,
    });
  });

  test('holds for what the form accepts, and fails for what it refuses', async () => {
    const check = ajv.compile(formJsonSchema(fields));
    const [ok, data] = await new HTMLForm({ fields }).validate(valid);
    assert.equal(ok, true);
    assert.equal(check(data), true, JSON.stringify(check.errors));
    for (const [key, bad] of [
      ['age', 17],
      ['code', 'abc'],
      ['email', 'nope'],
      ['topics', ['other']],
      ['price', 1.1],
      ['home', { zip: 1 }],
      ['others', [{ street: 'a' }, { street: 'b' }, { street: 'c' }]],
    ] as const) {
      assert.equal(check({ ...data, [key]: bad }), false, `${key}: ${JSON.stringify(bad)}`);
    }
    const { phone: _phone, ...withoutPhone } = data as Record<string, unknown>;
    assert.equal(check(withoutPhone), false, "the chosen item's required field is required");
  });

  test('a controlled field is required only when its item is chosen, and absent when not (option or not)', () => {
    // Decided in round three: the controlset's fields are SHOW rules on their item, so the export
    // says what the form does; `skipUnselectedControls` no longer changes it (it required phone always).
    for (const options of [{}, { skipUnselectedControls: true }]) {
      const check = ajv.compile(formJsonSchema(fields, options));
      const base = { name: 'Ada', email: 'ada@example.com' };
      assert.equal(check({ ...base, contact: 'mail' }), true);
      assert.equal(check({ ...base, contact: 'mail', phone: '1' }), false, 'hidden: not in the data');
      assert.equal(check({ ...base, contact: 'phone' }), false);
      assert.equal(check({ ...base, contact: 'phone', phone: '1' }), true);
    }
  });
});

describe('a form from a JSON Schema', () => {
  const schema: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email', title: 'E-mail' },
      code: { type: 'string', pattern: '^[A-Z]{3}$', maxLength: 3 },
      part: { type: 'string', pattern: 'x\\d' },
      age: { type: 'integer', minimum: 18, exclusiveMaximum: 121 },
      size: {
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'm', title: 'Medium' },
        ],
      },
      colors: { type: 'array', items: { enum: ['red', 'blue'] } },
      notes: { type: 'array', items: { type: 'string' } },
      day: { type: 'string', format: 'date' },
      subscribed: { type: 'boolean', default: true },
      address: { type: 'object', properties: { street: { type: 'string' } } },
      people: {
        type: 'array',
        maxItems: 5,
        items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      blob: { type: 'object' },
    },
    required: ['email', 'age'],
  };

  test('types, formats, choices, constraints and required become fields', () => {
    const made = fieldsFromJsonSchema(schema);
    const byId = Object.fromEntries(made.map((f) => [f.id, f]));
    assert.deepEqual(byId.email, { id: 'email', name: 'E-mail', required: true, datatype: 'email' });
    assert.deepEqual(byId.code, { id: 'code', size: 3, pattern: '[A-Z]{3}' });
    assert.equal(byId.part?.pattern, '[\\s\\S]*(?:x\\d)[\\s\\S]*', 'JSON Schema patterns match anywhere');
    assert.deepEqual(byId.age, { id: 'age', required: true, datatype: 'number', min: 18, max: 120 });
    assert.deepEqual(byId.size?.listItems, [
      { id: 's', name: 'Small' },
      { id: 'm', name: 'Medium' },
    ]);
    assert.deepEqual([byId.colors?.datatype, byId.notes?.datatype, byId.day?.datatype], ['checkbox', 'lines', 'date']);
    assert.deepEqual([byId.subscribed?.datatype, byId.subscribed?.default], ['bool', true]);
    assert.deepEqual(byId.address, {
      id: 'address',
      datatype: 'group',
      fields: [{ id: 'street' }],
    });
    assert.deepEqual(byId.people?.datatype, 'repeat');
    assert.deepEqual(byId.people?.fields, [{ id: 'name', required: true }]);
    assert.equal(byId.people?.maxItems, 5);
    assert.equal(byId.blob?.datatype, 'json', 'an object without properties is edited whole, as JSON');
  });

  test('the form renders, validates against the schema, and exports the same schema back', async () => {
    const form = new HTMLForm({ fields: fieldsFromJsonSchema(schema) });
    const d = dom(await form.render({}));
    assert.equal(attr(d.byId('upload-email'), 'type'), 'email');
    assert.equal(attr(d.byId('upload-code'), 'pattern'), '[A-Z]{3}');
    assert.equal(attr(d.byId('upload-age'), 'max'), '120');
    const [ok, data] = await form.validate({ email: 'a@b.example', age: '30', colors: ['red'], size: 'm' });
    assert.equal(ok, true);
    assert.equal(ajv.compile(schema)(data), true);
    assert.equal((await form.validate({ email: 'a@b.example', age: '121' }))[0], false);
    const again = formJsonSchema(fieldsFromJsonSchema(formJsonSchema(fields)));
    assert.deepEqual(again, formJsonSchema(fieldsFromJsonSchema(again)), 'a second round trip changes nothing');
  });

  test('round trip: a form from its own exported schema accepts and refuses what the original does', async () => {
    const original: FieldConf[] = [
      { id: 'name', name: 'Name', required: true, size: 20, minLength: 2, pattern: '[A-Za-z ]+' },
      { id: 'email', datatype: 'email', required: true },
      { id: 'age', datatype: 'number', min: 18, max: 120 },
      { id: 'price', datatype: 'float', min: 0, step: 0.5 },
      { id: 'day', datatype: 'date' },
      {
        id: 'size',
        datatype: 'list',
        listItems: [
          { id: 's', name: 'S' },
          { id: 'm', name: 'M' },
        ],
      },
      { id: 'tags', datatype: 'lines' },
      { id: 'home', datatype: 'group', fields: [{ id: 'street', required: true }] },
      { id: 'others', datatype: 'repeat', maxItems: 1, fields: [{ id: 'street' }] },
    ];
    const copy = fieldsFromJsonSchema(formJsonSchema(original));
    const inputs: Record<string, string>[] = [
      { name: 'Ada', email: 'a@b.example', 'home.street': 'x' },
      {
        name: 'Ada Lovelace',
        email: 'a@b.example',
        'home.street': 'x',
        age: '30',
        price: '1.5',
        day: '2026-02-03',
        size: 's',
        tags: 'a\nb',
        'others.0.street': 'a',
      },
      { name: 'A', email: 'a@b.example', 'home.street': 'x' },
      { name: 'Ada 2', email: 'a@b.example', 'home.street': 'x' },
      { name: 'Ada', email: 'nope', 'home.street': 'x' },
      { name: 'Ada', email: 'a@b.example', 'home.street': 'x', age: '17', price: '1.5', day: '2026-02-30' },
      { name: 'Ada', email: 'a@b.example', 'home.street': 'x', age: '30', price: '1.25', size: 'l' },
      { name: 'Ada', email: 'a@b.example', 'home.zip': '1', tags: 'a\nb', size: 'm' },
      { name: 'Ada', email: 'a@b.example', 'home.street': 'x', 'others.0.street': 'a', 'others.1.street': 'b' },
    ];
    const accepted: boolean[] = [];
    for (const input of inputs) {
      const [okA, dataA] = await new HTMLForm({ fields: original }).validate(input);
      accepted.push(okA);
      const [okB, dataB] = await new HTMLForm({ fields: copy }).validate(input);
      assert.deepEqual([okB, okB ? dataB : undefined], [okA, okA ? dataA : undefined], JSON.stringify(input));
    }
    assert.deepEqual(accepted, [true, true, false, false, false, false, false, false, false], 'both outcomes tried');
  });

  test('export → import → export is the identity for every kind of field', () => {
    const items = [
      { id: 'a', name: 'A' },
      { id: 2, name: 'Two' },
    ];
    const every: FieldConf[] = [
      { id: 'string', name: 'String', required: true, size: 20, minLength: 2, pattern: '[A-Za-z ]+' },
      { id: 'optionalPattern', pattern: '\\d+', description: 'Digits' },
      { id: 'text', datatype: 'text', size: 200 },
      { id: 'hidden', datatype: 'hidden' },
      { id: 'password', datatype: 'password', required: true, minLength: 8 },
      { id: 'optionalPassword', datatype: 'password' },
      { id: 'email', datatype: 'email', required: true },
      { id: 'url', datatype: 'url' },
      { id: 'number', datatype: 'number', min: 1, max: 9, step: 1, default: 3 },
      { id: 'float', datatype: 'float', min: 0, step: 0.25, required: true },
      { id: 'bool', datatype: 'bool' },
      { id: 'terms', datatype: 'checkbox', required: true },
      { id: 'newsletter', datatype: 'checkbox' },
      { id: 'date', datatype: 'date', min: '2024-01-01', max: '2024-12-31', required: true },
      { id: 'time', datatype: 'time', min: '08:00:00' },
      { id: 'datetime', datatype: 'datetime', required: true },
      { id: 'list', datatype: 'list', listItems: items, required: true },
      { id: 'radio', datatype: 'radio', listItems: items },
      { id: 'multilist', datatype: 'multilist', listItems: items, required: true },
      { id: 'checkboxes', datatype: 'checkbox', listItems: items },
      { id: 'lines', datatype: 'lines', required: true },
      { id: 'json', datatype: 'json' },
      { id: 'requiredJson', datatype: 'json', required: true },
      { id: 'file', datatype: 'file', size: 1000, required: true },
      { id: 'anyFile', datatype: 'file' },
      {
        id: 'group',
        datatype: 'group',
        fields: [
          { id: 'street', required: true },
          { id: 'zip', datatype: 'number' },
        ],
      },
      {
        id: 'repeat',
        datatype: 'repeat',
        required: true,
        maxItems: 3,
        fields: [
          { id: 'city' },
          { id: 'rooms', datatype: 'repeat', minItems: 2, fields: [{ id: 'no', required: true }] },
        ],
      },
    ];
    const exported = formJsonSchema(every, { title: 'Every field' });
    ajv.compile(exported);
    const fields = fieldsFromJsonSchema(exported);
    assert.deepEqual(formJsonSchema(fields, { title: 'Every field' }), exported);
    const byId = Object.fromEntries(fields.map((f) => [f.id, f]));
    assert.deepEqual(
      ['password', 'file', 'json', 'terms', 'time', 'datetime'].map((id) => byId[id]?.datatype),
      ['password', 'file', 'json', 'checkbox', 'time', 'datetime'],
      'each comes back as its own kind, not as text or a group',
    );
    assert.deepEqual([byId.date?.min, byId.date?.max, byId.file?.size], ['2024-01-01', '2024-12-31', 1000]);
  });

  test('export → import → export is the identity for a controlset: its fields come back as SHOW rules', () => {
    const exported = formJsonSchema(fields);
    assert.ok(Array.isArray(exported.allOf), 'the rule is in the schema');
    const back = fieldsFromJsonSchema(exported);
    assert.deepEqual(formJsonSchema(back), exported);
    // Decided in round three: a controlset is one case of the rules, so its schema reads back as
    // a field with a SHOW rule on the choice (it came back as a controlset before).
    const phone = back.find((f) => f.id === 'phone');
    assert.deepEqual(
      [phone?.required, phone?.rule],
      [true, [{ effect: 'SHOW', condition: { scope: '#/properties/contact', schema: { const: 'phone' } } }]],
    );
    ajv.compile(exported);
  });

  test('what a form cannot express is refused by name, at the top and in a field', () => {
    const base = { type: 'object', properties: { a: { type: 'string' } } };
    const refuse = (schema: JsonSchema, message: RegExp) =>
      assert.throws(() => fieldsFromJsonSchema(schema), { name: 'ConfigurationError', message });
    refuse({ ...base, allOf: [{ required: ['a'] }] }, /The schema: allOf/);
    refuse({ ...base, if: { required: ['a'] } }, /The schema: if/);
    refuse({ ...base, additionalProperties: false }, /The schema: additionalProperties/);
    refuse({ ...base, dependentRequired: { a: ['b'] } }, /The schema: dependentRequired/);
    refuse({ type: 'object', properties: { a: { const: 'x' } } }, /Property "a": const/);
    refuse({ type: 'object', properties: { a: { type: 'string', format: 'ipv4' } } }, /Property "a": format "ipv4"/);
    const array = (p: JsonSchema): JsonSchema => ({ type: 'object', properties: { a: { type: 'array', ...p } } });
    refuse(array({ items: { enum: [1] }, uniqueItems: true }), /Property "a": uniqueItems/);
    refuse(array({ items: { type: 'string', pattern: 'x' } }), /Property "a": items: pattern/);
    refuse(
      { type: 'object', properties: { g: { type: 'object', properties: {}, additionalProperties: false } } },
      /Property "g": additionalProperties/,
    );
  });

  test('what a field cannot express is refused by name', () => {
    const refuse = (properties: JsonSchema, message: RegExp) =>
      assert.throws(() => fieldsFromJsonSchema({ type: 'object', properties }), {
        name: 'ConfigurationError',
        message,
      });
    refuse({ a: { $ref: '#/$defs/x' } }, /Property "a": \$ref/);
    refuse({ b: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, /Property "b": anyOf/);
    refuse({ c: { type: 'number', exclusiveMinimum: 0 } }, /Property "c": an exclusive bound/);
    refuse({ d: { type: 'null' } }, /Property "d": type "null"/);
    assert.throws(() => fieldsFromJsonSchema({ type: 'array' }), /schema of an object/);
  });
});
