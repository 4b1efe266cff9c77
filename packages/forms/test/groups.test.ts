// Nested and repeating groups rendered inline: a group's value is an object of its fields, a
// repeat's a list of them; items are added and removed by submit buttons without JavaScript.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLForm, formRequestFromWeb, type FieldConf } from '../src/index.js';
import { attr, dom } from './helpers/html.js';

const address: FieldConf[] = [
  { id: 'street', name: 'Street', required: true },
  { id: 'zip', name: 'ZIP', datatype: 'number' },
];
const fields: FieldConf[] = [
  { id: 'name', name: 'Name', required: true },
  { id: 'home', name: 'Home', datatype: 'group', fields: address },
  { id: 'others', name: 'Address', datatype: 'repeat', fields: address, maxItems: 3 },
];
const actions = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'send', method: 'processForm', name: 'Send' },
];
const post = (body: Record<string, string>) =>
  formRequestFromWeb(
    new Request('http://localhost/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    }),
  );

describe('groups', () => {
  test('rendered inline: a group under its name, each repeat item with its Remove, one Add', async () => {
    const d = dom(
      await new HTMLForm({ fields, actions }).render({ others: [{ street: 'A' }, { street: 'B', zip: 1 }] }),
    );
    assert.equal(attr(d.byId('upload-home-street'), 'name'), 'home.street');
    assert.equal(attr(d.byId('upload-others-1-zip'), 'name'), 'others.1.zip');
    assert.equal(attr(d.byId('upload-others-1-zip'), 'value'), '1');
    const removes = d.tag('button').filter((b) => attr(b, 'name') === 'others$remove');
    assert.deepEqual(
      removes.map((b) => [attr(b, 'value'), attr(b, 'formnovalidate')]),
      [
        ['0', ''],
        ['1', ''],
        ['__index__', ''],
      ],
    );
    assert.equal(d.tag('button').filter((b) => attr(b, 'name') === 'others$add').length, 1);
    assert.equal(d.tag('label').filter((l) => attr(l, 'for') === 'upload-home-street').length, 1);
  });

  test('validate: objects and lists of objects, converted; a failure says which item and field', async () => {
    const form = new HTMLForm({ fields, actions });
    const [ok, data] = await form.validate({
      name: 'Ada',
      'home.street': 'Main St 1',
      'home.zip': '8000',
      'others.0.street': 'Side St 2',
      'others.3.street': 'Back St 3',
      'others.3.zip': '8001',
    });
    assert.equal(ok, true);
    assert.deepEqual(data, {
      name: 'Ada',
      home: { street: 'Main St 1', zip: 8000 },
      others: [{ street: 'Side St 2' }, { street: 'Back St 3', zip: 8001 }],
    });
    const [bad, , errors] = await form.validate({ name: 'Ada', 'home.zip': 'x', 'others.0.zip': '1' });
    assert.equal(bad, false);
    assert.deepEqual(Object.fromEntries(errors.map((e) => [e.field, e.messages])), {
      home: ['Street: Required', 'ZIP: "x" is not a number'],
      others: ['Address 1, Street: Required'],
    });
    const many = Object.fromEntries([0, 1, 2, 3].map((n) => [`others.${n}.street`, `S${n}`]));
    const [tooMany, , why] = await form.validate({ name: 'Ada', 'home.street': 'x', ...many });
    assert.deepEqual([tooMany, why], [false, [{ field: 'others', messages: ['At most 3 items'] }]]);
  });

  test('without JavaScript: Add and Remove show the form again with the values kept, nothing processed', async () => {
    const seen: unknown[] = [];
    const run = async (body: Record<string, string>) => {
      const form = new HTMLForm({ fields, actions, request: await post(body) });
      form.listenEvent('success', ({ data }) => seen.push(data));
      return dom((await form.process()).html);
    };
    const added = await run({ name: 'Ada', 'others.0.street': 'One', others$add: '1' });
    assert.equal(attr(added.byId('upload-name'), 'value'), 'Ada');
    assert.equal(attr(added.byId('upload-others-0-street'), 'value'), 'One');
    assert.ok(added.byId('upload-others-1-street'), 'a second, empty item');
    const removed = await run({ name: 'Ada', 'others.0.street': 'One', 'others.1.street': 'Two', others$remove: '0' });
    assert.equal(attr(removed.byId('upload-others-0-street'), 'value'), 'Two', 'renumbered from 0');
    assert.equal(removed.byId('upload-others-1-street'), undefined);
    assert.deepEqual(seen, []);
  });

  test('without JavaScript: Add and Remove of a repeat in a group or in a repeat keep everything typed', async () => {
    const nested: FieldConf[] = [
      { id: 'name' },
      {
        id: 'company',
        datatype: 'group',
        fields: [{ id: 'cname' }, { id: 'offices', datatype: 'repeat', fields: [{ id: 'city' }] }],
      },
      {
        id: 'floors',
        datatype: 'repeat',
        fields: [{ id: 'level' }, { id: 'rooms', datatype: 'repeat', fields: [{ id: 'no' }] }],
      },
    ];
    const run = async (body: Record<string, string>) => {
      const form = new HTMLForm({ fields: nested, actions, request: await post(body) });
      const { html, action } = await form.process();
      return { d: dom(html), action: action.id };
    };
    const inGroup = await run({ name: 'Ada', 'company.cname': 'ACME', 'company.offices$add': '1' });
    assert.equal(attr(inGroup.d.byId('upload-name'), 'value'), 'Ada');
    assert.equal(attr(inGroup.d.byId('upload-company-cname'), 'value'), 'ACME');
    assert.equal(attr(inGroup.d.byId('upload-company-offices-0-city'), 'name'), 'company.offices.0.city');
    const inRepeat = await run({
      name: 'Ada',
      'floors.0.level': 'Ground',
      'floors.0.rooms.0.no': 'G1',
      'floors.1.level': 'First',
      'floors.0.rooms$add': '1',
    });
    assert.equal(attr(inRepeat.d.byId('upload-floors-0-level'), 'value'), 'Ground');
    assert.equal(attr(inRepeat.d.byId('upload-floors-1-level'), 'value'), 'First');
    assert.equal(attr(inRepeat.d.byId('upload-floors-0-rooms-0-no'), 'value'), 'G1');
    assert.equal(attr(inRepeat.d.byId('upload-floors-0-rooms-1-no'), 'name'), 'floors.0.rooms.1.no');
    const removed = await run({
      'floors.0.level': 'Ground',
      'floors.0.rooms.0.no': 'G1',
      'floors.0.rooms.1.no': 'G2',
      'floors.0.rooms$remove': '0',
    });
    assert.equal(attr(removed.d.byId('upload-floors-0-rooms-0-no'), 'value'), 'G2');
    assert.equal(removed.d.byId('upload-floors-0-rooms-1-no'), undefined);
    // The inner template keeps its own placeholder when the outer one is cloned (render/assets.ts).
    const inner = removed.d.tag('button').filter((b) => attr(b, 'name') === 'floors.__index__.rooms$remove');
    assert.deepEqual(
      inner.map((b) => attr(b, 'value')),
      ['__index1__'],
    );
  });

  test('maxItems holds Add (disabled at the limit); minItems renders its items from the start', async () => {
    const limited: FieldConf[] = [{ id: 'others', datatype: 'repeat', fields: address, minItems: 2, maxItems: 3 }];
    const start = dom(await new HTMLForm({ fields: limited, actions }).render({}));
    assert.ok(start.byId('upload-others-1-street'), 'two items to begin with');
    const addOf = (d: ReturnType<typeof dom>) => d.tag('button').find((b) => attr(b, 'name') === 'others$add');
    assert.equal(attr(addOf(start), 'disabled'), undefined);
    const body = { 'others.0.street': 'A', 'others.1.street': 'B', 'others.2.street': 'C', others$add: '1' };
    const full = dom((await new HTMLForm({ fields: limited, actions, request: await post(body) }).process()).html);
    assert.equal(attr(full.byId('upload-others-2-street'), 'value'), 'C');
    assert.equal(full.byId('upload-others-3-street'), undefined, 'no fourth item');
    assert.equal(attr(addOf(full), 'disabled'), '');
  });

  test('callback listItems inside a group or a repeat: loaded, rendered, and checked', async () => {
    const sizes = async () => [
      { id: 's', name: 'Small' },
      { id: 'm', name: 'Medium' },
    ];
    const sized: FieldConf[] = [
      { id: 'box', datatype: 'group', fields: [{ id: 'size', datatype: 'list', listItems: sizes }] },
      { id: 'boxes', datatype: 'repeat', fields: [{ id: 'size', datatype: 'list', listItems: sizes }] },
    ];
    const form = new HTMLForm({ fields: sized, actions });
    const d = dom(await form.render({ boxes: [{}] }));
    const options = (id: string) =>
      d
        .tag('option')
        .filter((o) => o.parentNode && attr(o.parentNode as never, 'id') === id)
        .map((o) => attr(o, 'value'));
    assert.deepEqual(options('upload-box-size'), ['s', 'm']);
    assert.deepEqual(options('upload-boxes-0-size'), ['s', 'm']);
    const [ok, data] = await form.validate({ 'box.size': 'm', 'boxes.0.size': 's' });
    assert.deepEqual([ok, data], [true, { box: { size: 'm' }, boxes: [{ size: 's' }] }]);
    const [bad, , errors] = await form.validate({ 'box.size': 'xl', 'boxes.0.size': 'xxl' });
    assert.equal(bad, false);
    assert.deepEqual(
      errors.map((e) => e.field),
      ['box', 'boxes'],
    );
    const schema = await form.jsonSchema();
    const props = schema.properties as Record<string, { properties?: Record<string, unknown> }>;
    assert.deepEqual(props.box?.properties?.size, { enum: ['s', 'm'] });
  });

  test('the inputs at fault inside a group or a repeat carry aria-invalid, the others not', async () => {
    const form = new HTMLForm({ fields, actions });
    const [ok, data, errors] = await form.validate({
      name: 'Ada',
      'home.zip': '1',
      'others.4.street': 'Fine St',
      'others.7.zip': 'x',
    });
    assert.equal(ok, false);
    assert.deepEqual(
      errors.map((e) => [e.field, e.inputs]),
      [
        ['home', ['home.street']],
        ['others', ['others.1.street', 'others.1.zip']],
      ],
    );
    const d = dom(await form.render(data, [], errors));
    const invalid = (id: string) => attr(d.byId(id), 'aria-invalid');
    assert.deepEqual(
      [
        'upload-home-street',
        'upload-home-zip',
        'upload-others-0-street',
        'upload-others-1-street',
        'upload-others-1-zip',
      ].map(invalid),
      ['true', undefined, undefined, 'true', 'true'],
    );
  });

  test('a group without fields is a configuration error', async () => {
    await assert.rejects(
      new HTMLForm({ fields: [{ id: 'g', datatype: 'group' }] }).validate({}),
      /"g": a group needs fields/,
    );
  });

  test('an upload in a repeat item is kept when the form comes back with errors (its token in the page)', async () => {
    const docs: FieldConf[] = [
      { id: 'title', name: 'Title', required: true },
      { id: 'docs', name: 'Document', datatype: 'repeat', fields: [{ id: 'file', name: 'File', datatype: 'file' }] },
    ];
    const file = { filename: 'a.txt', mime: 'text/plain', size: 2, data: new Uint8Array([104, 105]) };
    const error = await new HTMLForm({
      fields: docs,
      actions,
      request: { method: 'POST', body: { 'docs.0.file': file, send$: '' } },
    }).process();
    const kept = dom(error.html).find((e) => attr(e, 'name') === 'docs.0.file$kept');
    assert.ok(attr(kept, 'value'), 'the page carries the token');
    const body = { title: 'T', 'docs.0.file$kept': attr(kept, 'value'), send$: '' };
    const ok = await new HTMLForm({ fields: docs, actions, request: { method: 'POST', body } }).process();
    const got = (ok.result as { docs?: Array<{ file?: { data?: Uint8Array } }> }).docs?.[0]?.file;
    assert.deepEqual([...(got?.data ?? [])], [104, 105]);
  });
});
