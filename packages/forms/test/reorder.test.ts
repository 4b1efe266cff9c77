// Reordering repeat items without JavaScript: each item's Move up and Move down are submit buttons
// (as Remove is) that swap it with its neighbour and show the form again, nothing validated; the
// items' order is the order the request lists them (the page's order, which the script changes in
// place: browser-wizard.test.ts), at any depth. Requests are real urlencoded bodies.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLForm, formRequestFromWeb, type FieldConf } from '../src/index.js';
import { attr, dom, text } from './helpers/html.js';

const fields: FieldConf[] = [
  { id: 'name', name: 'Name', required: true },
  {
    id: 'floors',
    name: 'Floor',
    datatype: 'repeat',
    fields: [
      { id: 'level', name: 'Level', required: true },
      { id: 'rooms', name: 'Room', datatype: 'repeat', fields: [{ id: 'no', name: 'Number' }] },
    ],
  },
];
const actions = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'send', method: 'processForm', name: 'Send' },
];
const post = (body: ReadonlyArray<[string, string]>) =>
  formRequestFromWeb(
    new Request('http://localhost/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([...body]).toString(),
    }),
  );
const typed: Array<[string, string]> = [
  ['name', 'Ada'],
  ['floors.0.level', 'Ground'],
  ['floors.0.rooms.0.no', 'G1'],
  ['floors.0.rooms.1.no', 'G2'],
  ['floors.1.level', 'First'],
  ['floors.2.level', 'Second'],
];
const levels = (html: string) =>
  dom(html)
    .filter((e) => /^floors\.\d+\.level$/.test(attr(e, 'name') ?? ''))
    .map((e) => attr(e, 'value'));

describe('reordering repeat items', () => {
  test('each item has Move up and Move down, submit buttons that skip validation, named by the item', async () => {
    const d = dom(await new HTMLForm({ fields, actions }).render({ floors: [{ level: 'A' }, { level: 'B' }] }));
    // (The item template's buttons, named by `__index__`, are not items.)
    const ups = d.tag('button').filter((b) => attr(b, 'name') === 'floors$up' && attr(b, 'value') !== '__index__');
    assert.deepEqual(
      ups.map((b) => [attr(b, 'value'), attr(b, 'type'), attr(b, 'formnovalidate'), text(b)]),
      [
        ['0', 'submit', '', 'Move up'],
        ['1', 'submit', '', 'Move up'],
      ],
    );
    assert.equal(d.tag('button').filter((b) => attr(b, 'name') === 'floors$down').length, 3);
    const live = d.find((e) => attr(e, 'data-roost-announce') !== undefined);
    assert.equal(attr(live, 'aria-live'), 'polite');
  });

  test('Move up without JavaScript: the item swaps with the one before, all kept, nothing validated', async () => {
    const form = new HTMLForm({ fields, actions, request: await post([...typed, ['floors$up', '2']]) });
    const r = await form.process();
    assert.equal(r.result, undefined, 'no action ran');
    assert.deepEqual(levels(r.html), ['Ground', 'Second', 'First']);
    assert.equal(
      dom(r.html)
        .find((e) => attr(e, 'name') === 'name')
        ?.attrs.find((a) => a.name === 'value')?.value,
      'Ada',
    );
  });

  test('Move down at the end and Move up at the start change nothing', async () => {
    const down = await new HTMLForm({
      fields,
      actions,
      request: await post([...typed, ['floors$down', '2']]),
    }).process();
    assert.deepEqual(levels(down.html), ['Ground', 'First', 'Second']);
    const up = await new HTMLForm({ fields, actions, request: await post([...typed, ['floors$up', '0']]) }).process();
    assert.deepEqual(levels(up.html), ['Ground', 'First', 'Second']);
  });

  test('a repeat in a repeat: Move down of an inner item moves it within its floor only', async () => {
    const r = await new HTMLForm({
      fields,
      actions,
      request: await post([...typed, ['floors.0.rooms$down', '0']]),
    }).process();
    const rooms = dom(r.html)
      .filter((e) => /^floors\.0\.rooms\.\d+\.no$/.test(attr(e, 'name') ?? ''))
      .map((e) => attr(e, 'value'));
    assert.deepEqual(rooms, ['G2', 'G1']);
    assert.deepEqual(levels(r.html), ['Ground', 'First', 'Second']);
  });

  test('the order is kept in the data: items in the order the request lists them, whatever their index', async () => {
    const moved: Array<[string, string]> = [
      ['name', 'Ada'],
      ['floors.2.level', 'Second'],
      ['floors.0.level', 'Ground'],
      ['floors.0.rooms.1.no', 'G2'],
      ['floors.0.rooms.0.no', 'G1'],
      ['send$', ''],
    ];
    const r = await new HTMLForm({ fields, actions, request: await post(moved) }).process();
    assert.deepEqual(r.result, {
      name: 'Ada',
      floors: [
        { level: 'Second', rooms: [] },
        { level: 'Ground', rooms: [{ no: 'G2' }, { no: 'G1' }] },
      ],
    });
  });

  test('an upload chosen before a Move or an Add without JavaScript is kept (its token in the page)', async () => {
    const withFile: FieldConf[] = [...fields, { id: 'cv', name: 'CV', datatype: 'file' }];
    const cv = { filename: 'cv.pdf', mime: 'application/pdf', size: 1, data: new Uint8Array([1]) };
    const request = { method: 'POST', body: { 'floors.0.level': 'G', 'floors.1.level': 'F', floors$up: '1', cv } };
    const r = await new HTMLForm({ fields: withFile, actions, request }).process();
    assert.deepEqual(levels(r.html), ['F', 'G']);
    assert.match(text(dom(r.html).byId('upload-cv-kept')), /Kept file: cv\.pdf/);
  });
});
