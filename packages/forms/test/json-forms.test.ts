// JsonMappingForm and JsonSequenceForm (test_json of original-forms.md §6 and the checklist's
// add/edit/delete by 1-based position and "Item exists!"), against the content model on SQLite.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  JsonMappingForm,
  JsonSequenceForm,
  type ContentObject,
  type FieldConf,
  type FormRequest,
  type KyselyContent,
} from '../src/index.js';
import { post, useSqliteContent } from './helpers/content-db.js';
import { contentOptions } from './helpers/fixtures.js';
import { alerts, attr, dom, inside, text } from './helpers/html.js';

const user = { id: 'u' };

const store = useSqliteContent(contentOptions);
let content: KyselyContent;
let root: ContentObject;
before(async () => {
  ({ content, root } = await store.open());
});

const reload = async (obj: ContentObject): Promise<ContentObject> => (await content.get(obj.id))!;

describe('JsonMappingForm', () => {
  const fields: FieldConf[] = [
    { id: 'theme', datatype: 'string', name: 'Theme' },
    { id: 'size', datatype: 'number', name: 'Size' },
  ];

  test('without context: validate and extract return dictionaries', async () => {
    const form = new JsonMappingForm({ fields });
    const [ok, data] = await form.validate({ theme: 'dark', size: '3' });
    assert.deepEqual([ok, data], [true, { theme: 'dark', size: 3 }]);
    const [, extracted] = await form.extract({ theme: 'x' });
    assert.deepEqual(extracted, { theme: 'x' });
  });

  test('with context (jsonDataField fjson): renders, stores a dictionary, keeps other data and keys', async () => {
    const obj = await root.create(
      'type1',
      { ftext: 'keep me', fnumber: 1, fjson: { theme: 'light', other: 'kept' } },
      user,
    );
    const start = await new JsonMappingForm({
      context: obj,
      fields,
      jsonDataField: 'fjson',
      request: post({}),
    }).process();
    assert.equal(start.action.id, 'default');
    assert.equal(attr(dom(start.html).byId('upload-theme'), 'value'), 'light');
    const seen: unknown[] = [];
    const form = new JsonMappingForm({
      context: obj,
      fields,
      jsonDataField: 'fjson',
      user,
      request: post({ theme: 'dark', size: '2', edit$: '1' }),
    });
    form.listenEvent('success', ({ data }) => void seen.push(data));
    const r = await form.process();
    assert.deepEqual(r.result, { theme: 'dark', other: 'kept', size: 2 }, 'process returns the stored dictionary');
    assert.deepEqual(seen, [r.result]);
    const stored = await reload(obj);
    assert.deepEqual(stored.data.fjson, { theme: 'dark', other: 'kept', size: 2 });
    assert.equal(stored.data.ftext, 'keep me', 'the object keeps its other data');
    assert.equal(stored.data.fnumber, 1);
  });

  test('a meta field as jsonDataField: stored in meta and read back from there', async () => {
    const obj = await root.create('type1', { fnumber: 1 }, user);
    await new JsonMappingForm({
      context: obj,
      fields,
      jsonDataField: 'title',
      request: post({ theme: 'm', edit$: '1' }),
    }).process();
    const stored = await reload(obj);
    assert.deepEqual(stored.meta.title, { theme: 'm' });
    const start = await new JsonMappingForm({
      context: stored,
      fields,
      jsonDataField: 'title',
      request: post({}),
    }).process();
    assert.equal(attr(dom(start.html).byId('upload-theme'), 'value'), 'm');
  });

  test('mergeContext false replaces the dictionary', async () => {
    const obj = await root.create('type1', { fnumber: 1, fjson: { other: 'x' } }, user);
    await new JsonMappingForm({
      context: obj,
      fields,
      jsonDataField: 'fjson',
      mergeContext: false,
      request: post({ theme: 'a', edit$: '1' }),
    }).process();
    assert.deepEqual((await reload(obj)).data.fjson, { theme: 'a' });
  });

  test('a field holding JSON text is read; non-JSON or a non-dictionary warns and becomes a dictionary', async () => {
    const obj = await root.create('type1', { fnumber: 1, fjson: '{"theme":"from text"}' }, user);
    const fromText = await new JsonMappingForm({
      context: obj,
      fields,
      jsonDataField: 'fjson',
      request: post({}),
    }).process();
    assert.equal(attr(dom(fromText.html).byId('upload-theme'), 'value'), 'from text');
    for (const bad of ['not json {', [1, 2], 42]) {
      await obj.update({ fjson: bad }, user);
      const start = await new JsonMappingForm({
        context: obj,
        fields,
        jsonDataField: 'fjson',
        request: post({}),
      }).process();
      assert.deepEqual(alerts(start.html), ['The stored data could not be read and will be replaced.']);
      assert.equal(attr(dom(start.html).byId('upload-theme'), 'value') ?? '', '');
      await new JsonMappingForm({
        context: obj,
        fields,
        jsonDataField: 'fjson',
        request: post({ theme: 't', edit$: '1' }),
      }).process();
      assert.deepEqual((await reload(obj)).data.fjson, { theme: 't' });
    }
  });

  test('wrong-typed values are refused and nothing is stored; no object means no save', async () => {
    const obj = await root.create('type1', { fnumber: 1, fjson: { size: 1 } }, user);
    const r = await new JsonMappingForm({
      context: obj,
      fields,
      jsonDataField: 'fjson',
      request: post({ size: 'big', edit$: '1' }),
    }).process();
    assert.equal(r.result, false);
    assert.deepEqual((await reload(obj)).data.fjson, { size: 1 });
    const none = await new JsonMappingForm({ fields, request: post({ theme: 'x', edit$: '1' }) }).process();
    assert.deepEqual([none.result, alerts(none.html)], [false, ['Object not found']]);
  });
});

describe('JsonSequenceForm', () => {
  const fields: FieldConf[] = [
    { id: 'name', datatype: 'string', name: 'Name', required: true },
    { id: 'url', datatype: 'url', name: 'Link' },
  ];
  const mk = (obj: ContentObject | undefined, request: FormRequest) =>
    new JsonSequenceForm({ context: obj, fields, jsonDataField: 'links', user, request });
  const links = async (obj: ContentObject): Promise<unknown> => (await reload(obj)).data.links;

  test('add, edit and delete items by 1-based position; events success(list) and delete(list)', async () => {
    const obj = await root.create('type1', { fnumber: 1 }, user);
    const events: Array<[string, unknown]> = [];
    const run = async (request: FormRequest) => {
      const form = mk(obj, request);
      form.listenEvent('success', ({ data }) => void events.push(['success', data]));
      form.listenEvent('delete', ({ data }) => void events.push(['delete', data]));
      return form.process();
    };
    const empty = await run(post({}));
    assert.equal(empty.action.id, 'default');
    assert.ok(
      dom(empty.html).find((e) => attr(e, 'name') === 'cc397785' && attr(e, 'type') === 'hidden'),
      'the hidden edit key field',
    );
    const a = await run(post({ name: 'a', url: 'https://a.example', edit$: '1' }));
    assert.deepEqual(a.result, { name: 'a', url: 'https://a.example' });
    assert.deepEqual(alerts(a.html), ['OK. Data saved.']);
    assert.equal(attr(dom(a.html).byId('upload-name'), 'value') ?? '', '', 'an empty form after saving');
    await run(post({ name: 'b', edit$: '1' }));
    assert.deepEqual(await links(obj), [{ name: 'a', url: 'https://a.example' }, { name: 'b' }]);
    assert.deepEqual(
      events.map(([e]) => e),
      ['success', 'success'],
    );
    assert.deepEqual(events[1]?.[1], await links(obj), 'success gets the whole list');

    const edit = await run({ method: 'GET', query: { cc397785: '2' }, headers: {} });
    assert.equal(attr(dom(edit.html).byId('upload-name'), 'value'), 'b');
    assert.equal(
      attr(
        dom(edit.html).find((e) => attr(e, 'name') === 'cc397785'),
        'value',
      ),
      '2',
    );
    await run(post({ name: 'b2', url: 'https://b.example', cc397785: '2', edit$: '1' }));
    assert.deepEqual(await links(obj), [
      { name: 'a', url: 'https://a.example' },
      { name: 'b2', url: 'https://b.example' },
    ]);

    const del = await run(post({ aa876352: '1' }));
    assert.deepEqual([del.result, alerts(del.html)], [true, ['Item deleted!']]);
    assert.deepEqual(await links(obj), [{ name: 'b2', url: 'https://b.example' }]);
    assert.deepEqual(events.at(-1), ['delete', [{ name: 'b2', url: 'https://b.example' }]]);
  });

  test('hiddenValues go into every delete form too; itemLabel labels the items', async () => {
    const obj = await root.create(
      'type1',
      { fnumber: 1, links: [{ name: 'a', url: 'https://a.example' }, { name: 'b' }] },
      user,
    );
    const form = new JsonSequenceForm({
      context: obj,
      fields,
      jsonDataField: 'links',
      user,
      request: post({}),
      hiddenValues: { csrf: 'tok' },
      itemLabel: (item, n) => `${n}. ${String(item.name)} → ${String(item.url ?? '<none>')}`,
    });
    const d = dom((await form.process()).html);
    const forms = d.tag('form');
    assert.equal(forms.length, 3, 'the form and one delete form per item');
    for (const f of forms) assert.equal(attr(inside(f, (e) => attr(e, 'name') === 'csrf')[0], 'value'), 'tok');
    const labels = d.filter((e) => e.tagName === 'li').map((li) => text(li.childNodes[0] as never));
    assert.deepEqual(labels, ['1. a → https://a.example', '2. b → <none>']);
    assert.equal(
      attr(
        d.find((e) => attr(e, 'name') === 'aa876352'),
        'aria-label',
      ),
      'Delete: 1. a → https://a.example',
    );
  });

  test('"Item exists!" for a new item (or a renamed one) with the unique id of another item', async () => {
    const obj = await root.create('type1', { fnumber: 1, links: [{ name: 'a' }, { name: 'b' }] }, user);
    const dup = await mk(obj, post({ name: 'a', edit$: '1' })).process();
    assert.deepEqual([dup.result, alerts(dup.html)], [false, ['Item exists!']]);
    const renamed = await mk(obj, post({ name: 'a', cc397785: '2', edit$: '1' })).process();
    assert.deepEqual(alerts(renamed.html), ['Item exists!']);
    const same = await mk(obj, post({ name: 'a', url: 'https://x.example', cc397785: '1', edit$: '1' })).process();
    assert.deepEqual(same.result, { name: 'a', url: 'https://x.example' }, 'an item may keep its own id');
    assert.equal(((await links(obj)) as unknown[]).length, 2);
  });

  test('read-only items are not rendered and cannot be edited or deleted; the list links to the others', async () => {
    const obj = await root.create(
      'type1',
      { fnumber: 1, links: [{ name: 'fixed', readonly: true }, { name: '<b>x</b>' }, 'not a dict'] },
      user,
    );
    const r = await mk(obj, { method: 'GET', query: {}, headers: {} }).process();
    const d = dom(r.html);
    const items = d.filter((e) => e.tagName === 'li');
    assert.equal(items.length, 1);
    assert.equal(text(items[0]!.childNodes[0] as never), '<b>x</b>', 'labels are escaped');
    assert.equal(d.tag('b').length, 0);
    assert.equal(
      attr(
        d.find((e) => attr(e, 'class') === 'roost-sequence-edit'),
        'href',
      ),
      '?cc397785=2',
    );
    const del = d.find((e) => attr(e, 'name') === 'aa876352');
    assert.deepEqual([attr(del, 'value'), del?.tagName], ['2', 'button']);
    const editFixed = await mk(obj, { query: { cc397785: '1' }, headers: {} }).process();
    assert.deepEqual([editFixed.result, alerts(editFixed.html)], [false, ['Item not found']]);
    const delFixed = await mk(obj, post({ aa876352: '1' })).process();
    assert.deepEqual(alerts(delFixed.html), ['Item not found']);
    const saveFixed = await mk(obj, post({ name: 'y', cc397785: '1', edit$: '1' })).process();
    assert.deepEqual(alerts(saveFixed.html), ['Item not found']);
    assert.equal(((await links(obj)) as unknown[]).length, 3);
  });

  test('out-of-range and malformed positions; delete only from a POST body; non-list storage', async () => {
    const obj = await root.create('type1', { fnumber: 1, links: [{ name: 'a' }] }, user);
    for (const pos of ['0', '2', '-1', 'abc', '99999999999']) {
      const del = await mk(obj, post({ aa876352: pos })).process();
      assert.equal(((await links(obj)) as unknown[]).length, 1, `delete ${pos}`);
      if (pos === '2') assert.deepEqual(alerts(del.html), ['Item not found']);
    }
    const getDelete = await mk(obj, { method: 'GET', query: { aa876352: '1' }, headers: {} }).process();
    assert.equal(getDelete.result, true);
    assert.equal(((await links(obj)) as unknown[]).length, 1, 'a link (GET) never deletes');
    const editOut = await mk(obj, post({ name: 'z', cc397785: '5', edit$: '1' })).process();
    assert.deepEqual([editOut.result, alerts(editOut.html)], [false, ['Item not found']]);
    const bad = await mk(obj, post({ name: 'n', cc397785: 'abc', edit$: '1' })).process();
    assert.deepEqual(bad.result, { name: 'n' }, 'a malformed position adds');
    const invalid = await mk(obj, post({ url: 'not a url', edit$: '1' })).process();
    assert.equal(invalid.result, false);
    assert.ok(dom(invalid.html).byId('upload-errors'));
    await obj.update({ links: { not: 'a list' } }, user);
    const start = await mk(obj, post({})).process();
    assert.deepEqual(alerts(start.html), ['The stored data could not be read and will be replaced.']);
    await mk(obj, post({ name: 'fresh', edit$: '1' })).process();
    assert.deepEqual(await links(obj), [{ name: 'fresh' }]);
    const none = await mk(undefined, post({ name: 'x', edit$: '1' })).process();
    assert.deepEqual([none.result, alerts(none.html)], [false, ['Object not found']]);
  });
});
