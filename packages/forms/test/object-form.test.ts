// ObjectForm against the real content model (test_obj / test_obj2 of original-forms.md §6, the
// pool_type/pepos checklist items, bad input), on SQLite and, when configured, PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigurationError,
  ObjectForm,
  type ActionConf,
  type ContentObject,
  type FormRequest,
  type KyselyContent,
} from '../src/index.js';
import { dialects, openContent, post, postgresSkip, testRootId } from './helpers/content-db.js';
import { contentOptions, fullData } from './helpers/fixtures.js';
import { alerts, attr, dom, text } from './helpers/html.js';

const user = { id: 'editor' };
const editActions: ActionConf[] = [
  { id: 'default', method: 'startObject', hidden: true },
  { id: 'save', method: 'updateObj', name: 'Save' },
  { id: 'cancel', method: 'cancel', name: 'Cancel' },
];

for (const dialect of dialects) {
  describe(`${dialect}: ObjectForm`, { skip: dialect === 'postgres' && postgresSkip }, () => {
    let content: KyselyContent;
    let close: () => Promise<void>;
    before(async () => {
      ({ content, close } = await openContent(dialect, contentOptions));
    });
    after(() => close?.());

    /** A folder to create in, under a root of its own. */
    const folder = async (): Promise<ContentObject> =>
      (await content.root(testRootId())).create('folder', { title: 'Folder' }, user);
    const count = async (obj: ContentObject): Promise<number> => (await obj.children()).length;
    const createForm = (context: ContentObject, request: FormRequest, extra = {}): ObjectForm =>
      new ObjectForm({ app: content, loadFromType: 'type1', context, request, user, addTypeField: true, ...extra });

    test('create (test_obj): default renders, create$ creates with kw values, cancel creates nothing', async () => {
      const parent = await folder();
      const start = createForm(parent, post({}));
      await start.setup(undefined, true);
      const hidden = start.getFields().find((f) => f.id === 'pool_type');
      assert.equal(hidden?.hidden, true, 'the readonly meta pool_type is replaced by a hidden one');
      assert.equal(start.getFields().at(-1)?.id, 'pool_type', 'and moved to the end');
      const r0 = await start.process();
      assert.ok(r0.result);
      assert.equal(r0.action.id, 'default');
      assert.equal(
        attr(
          dom(r0.html).find((e) => attr(e, 'name') === 'pool_type'),
          'value',
        ),
        'type1',
      );
      assert.equal(await count(parent), 0);

      const r1 = await createForm(parent, post({ ...fullData, create$: '1' })).process({ values: { fnumber: 999 } });
      assert.equal(r1.action.id, 'create');
      const created = r1.result as ContentObject;
      assert.equal(typeof created.id, 'string');
      assert.equal(await count(parent), 1);
      const stored = await content.get(created.id);
      assert.equal(stored?.type, 'type1');
      assert.equal(stored?.data.fnumber, 999, 'kw values override the form data');
      assert.deepEqual(stored?.data.fjson, { a: [1, 2] });
      assert.equal(stored?.meta.pool_createdby, 'editor');
      assert.equal(stored?.parent?.id, parent.id);
      assert.deepEqual(alerts(r1.html), ['OK. Data saved.']);

      const r2 = await createForm(parent, post({ cancel$: '1' })).process();
      assert.ok(r2.result);
      assert.equal(r2.action.id, 'cancel');
      assert.equal(await count(parent), 1);
    });

    test('create with a subset of fields and actions, and with an inline email field', async () => {
      const parent = await folder();
      const subsets = { mini: { fields: ['ftext', 'fnumber'], actions: ['default', 'create', 'cancel'] } };
      const form = createForm(parent, post({ ftext: 'a', fnumber: '7', pool_type: 'type1', create$: '1' }), {
        subsets,
      });
      await form.setup('mini', true);
      assert.deepEqual(
        form.getFields().map((f) => f.id),
        ['ftext', 'fnumber', 'pool_type'],
      );
      const r = await form.process();
      assert.deepEqual((r.result as ContentObject).data, { ftext: 'a', fnumber: 7 });
      const inline = createForm(parent, post({ email: 'a@b.example', fnumber: '1', create$: '1' }), {
        subsets: { mail: { fields: [{ id: 'email', datatype: 'email', name: 'E-mail' }, 'fnumber'] } },
      });
      await inline.setup('mail', true);
      const r2 = await inline.process();
      assert.equal(
        (r2.result as ContentObject).data.email,
        'a@b.example',
        'the type comes from the form when pool_type is not posted',
      );
      assert.equal(await count(parent), 2);
    });

    test('edit (test_obj2): start shows stored values, save stores, cancel, loadObjData; none created', async () => {
      const parent = await folder();
      const obj = await parent.create('type1', { ftext: 'old', fnumber: 1, flist: 'item 1' }, user);
      const mk = (request: FormRequest) =>
        new ObjectForm({ app: content, loadFromType: 'type1', context: obj, request, user, actions: editActions });
      const r0 = await mk(post({})).process();
      assert.equal(r0.result, true);
      assert.equal(text(dom(r0.html).byId('upload-ftext')), 'old');
      const r1 = await mk(post({ ftext: 'new', fnumber: '2', save$: '1' })).process();
      assert.equal(r1.action.id, 'save');
      assert.equal(r1.result, obj);
      assert.equal((await content.get(obj.id))?.data.ftext, 'new');
      assert.equal((await content.get(obj.id))?.data.flist, 'item 1', 'values the form did not send stay');
      const r2 = await mk(post({ cancel$: '1' })).process();
      assert.deepEqual([r2.result, r2.action.id], [true, 'cancel']);
      const data = await mk(post({})).loadObjData();
      assert.equal(data.ftext, 'new');
      assert.equal(await count(parent), 1);
    });

    test('edit through the class subset `edit` with kw values; unknown subset is a ConfigurationError', async () => {
      const parent = await folder();
      const obj = await parent.create('type1', { ftext: 'x', fnumber: 1 }, user);
      const form = new ObjectForm({
        app: content,
        loadFromType: 'type1',
        context: obj,
        user,
        request: post({ ftext: 'y', fnumber: '5', edit$: '1' }),
      });
      await form.setup('edit');
      assert.deepEqual(
        form.getActions(true).map((a) => a.id),
        ['edit', 'cancel'],
      );
      const r = await form.process({ values: { fnumber: 333 } });
      assert.equal(r.action.id, 'edit');
      assert.equal((await content.get(obj.id))?.data.fnumber, 333);
      const start = new ObjectForm({ app: content, loadFromType: 'type1', context: obj, request: post({}) });
      await start.setup('edit');
      const r0 = await start.process();
      assert.equal(r0.action.id, 'defaultEdit');
      assert.equal(attr(dom(r0.html).byId('upload-fnumber'), 'value'), '333');
      const inline = new ObjectForm({
        app: content,
        loadFromType: 'type1',
        context: obj,
        request: post({ link: 'https://example.org', edit$: '1' }),
        subsets: { url: { fields: [{ id: 'link', datatype: 'url' }], actions: ['edit'] } },
      });
      await inline.setup('url');
      await inline.process();
      assert.equal((await content.get(obj.id))?.data.link, 'https://example.org');
      await assert.rejects(
        new ObjectForm({ app: content, loadFromType: 'type1', context: obj }).setup('test3'),
        ConfigurationError,
      );
    });

    test('startFormRequest: request values over kw.defaults over field defaults; option defaults replace', async () => {
      const parent = await folder();
      const subsets = {
        s: {
          fields: [
            { id: 'a', default: 'field' },
            { id: 'b', default: 'field' },
            { id: 'c', datatype: 'number', default: 1 },
          ],
        },
      };
      const mk = (request: FormRequest, extra = {}) =>
        new ObjectForm({ app: content, loadFromType: 'type1', context: parent, request, subsets, ...extra });
      const form = mk({ query: { b: 'query', c: '5' } });
      await form.setup('s');
      const [ok, html] = await form.startFormRequest(form.getActions()[0]!, { defaults: { a: 'kw', b: 'kw' } });
      assert.equal(ok, true);
      const d = dom(html);
      assert.deepEqual(
        ['a', 'b', 'c'].map((id) => attr(d.byId(`upload-${id}`), 'value')),
        ['kw', 'query', '5'],
      );
      const preset = mk(
        { query: { b: 'query' } },
        { defaults: (f: ObjectForm) => ({ a: `fn:${f instanceof ObjectForm}` }) },
      );
      await preset.setup('s');
      const [, html2] = await preset.startFormRequest(preset.getActions()[0]!, {});
      assert.equal(attr(dom(html2).byId('upload-a'), 'value'), 'fn:true');
      assert.equal(attr(dom(html2).byId('upload-b'), 'value') ?? '', '', 'request values are not read');
      const empty = mk({ query: { a: 'q' } }, { startEmpty: true });
      await empty.setup('s');
      assert.equal(
        attr(dom((await empty.startFormRequest(empty.getActions()[0]!))[1]).byId('upload-a'), 'value') ?? '',
        '',
      );
    });

    test('startForm adds pool_type and pepos to the default data', async () => {
      const parent = await folder();
      const form = createForm(parent, { query: { pepos: 'first' }, body: {} });
      await form.setup(undefined, true);
      assert.ok(form.getField('pepos')?.hidden);
      const [, html] = await form.startForm(form.getActions()[0]!, { defaultData: { ftext: 'd' } });
      const d = dom(html);
      assert.equal(
        attr(
          d.find((e) => attr(e, 'name') === 'pool_type'),
          'value',
        ),
        'type1',
      );
      assert.equal(
        attr(
          d.find((e) => attr(e, 'name') === 'pepos'),
          'value',
        ),
        'first',
      );
      assert.equal(text(d.byId('upload-ftext')), 'd');
    });

    test('pepos puts the new object first, after a sibling; an unknown sibling creates nothing', async () => {
      const parent = await folder();
      const a = await parent.create('type1', { fnumber: 1 }, user);
      await parent.create('type1', { fnumber: 2 }, user);
      const create = (pepos: string) =>
        createForm(parent, post({ fnumber: '3', pool_type: 'type1', pepos, create$: '1' })).process();
      const first = (await create('first')).result as ContentObject;
      assert.equal((await parent.children())[0]?.id, first.id);
      const after = (await create(a.id)).result as ContentObject;
      assert.deepEqual(
        (await parent.children()).map((c) => c.data.fnumber),
        [3, 1, 3, 2],
      );
      assert.equal((await parent.children())[2]?.id, after.id);
      const bad = await create('nope');
      assert.equal(bad.result, false);
      assert.deepEqual(alerts(bad.html), ['Invalid position']);
      assert.equal(await count(parent), 4);
    });

    test('success(obj) fires with the new and the updated object', async () => {
      const parent = await folder();
      const form = createForm(parent, post({ fnumber: '1', create$: '1' }));
      const seen: unknown[] = [];
      form.listenEvent('success', ({ obj }) => void seen.push(obj));
      const r = await form.process();
      assert.deepEqual(seen, [r.result]);
      const edit = new ObjectForm({
        app: content,
        loadFromType: 'type1',
        context: r.result,
        request: post({ fnumber: '2', edit$: '1' }),
      });
      edit.listenEvent('success', ({ obj }) => void seen.push(obj));
      await edit.setup('edit');
      await edit.process();
      assert.equal(seen[1], r.result);
    });

    test('bad input: wrong-typed values, another type posted, no type, missing object, unknown method', async () => {
      const parent = await folder();
      const wrong = await createForm(parent, post({ fnumber: 'abc', create$: '1' })).process();
      assert.equal(wrong.result, false);
      assert.match(text(dom(wrong.html).byId('upload-errors')), /fnumber: "abc" is not a number/);
      const other = await createForm(parent, post({ fnumber: '1', pool_type: 'type2', create$: '1' })).process();
      assert.deepEqual([other.result, alerts(other.html)], [false, ['Object type not allowed.']]);
      const untyped = new ObjectForm({
        app: content,
        context: parent,
        fields: [{ id: 'x' }],
        request: post({ x: '1', create$: '1' }),
      });
      assert.deepEqual(alerts((await untyped.process()).html), ['Unknown object type']);
      const unknownType = new ObjectForm({
        app: content,
        context: parent,
        fields: [{ id: 'x' }],
        request: post({ x: '1', create$: '1' }),
      });
      const r = await unknownType.process({ pool_type: 'nope' });
      assert.deepEqual([r.result, alerts(r.html)], [false, ['Unknown object type']]);
      assert.equal(await count(parent), 0);
      const noContext = await new ObjectForm({
        app: content,
        loadFromType: 'type1',
        request: post({ fnumber: '1', edit$: '1' }),
      }).process();
      assert.deepEqual([noContext.result, alerts(noContext.html)], [false, ['Object not found']]);
      const startMissing = new ObjectForm({ app: content, loadFromType: 'type1', request: post({}) });
      await startMissing.setup('edit');
      const sm = await startMissing.process();
      assert.deepEqual([sm.result, dom(sm.html).tag('form').length], [false, 0]);
      const gone = await parent.create('type1', { fnumber: 1 }, user);
      await content.db.deleteFrom('form_objects').where('id', '=', gone.id).execute();
      const g = await new ObjectForm({
        app: content,
        loadFromType: 'type1',
        context: gone,
        request: post({ fnumber: '2', edit$: '1' }),
      }).process();
      assert.deepEqual([g.result, alerts(g.html)], [false, ['Object not found']]);
      const unknownAction = await createForm(parent, post({ fnumber: '1', nope$: '1' })).process();
      assert.equal(unknownAction.action.id, 'default', 'an unknown action key runs the default action');
      const badMethod = createForm(parent, post({ x$: '1' }), { actions: [{ id: 'x', method: 'noSuchMethod' }] });
      await assert.rejects(badMethod.process(), ConfigurationError);
    });

    test('hostile strings are stored verbatim and escaped in the HTML', async () => {
      const parent = await folder();
      const hostile = `<script>alert(1)</script>"><img src=x onerror=alert(2)>`;
      const r = await createForm(
        parent,
        post({ ftext: hostile, title: hostile, fnumber: '1', create$: '1' }),
      ).process();
      const obj = await content.get((r.result as ContentObject).id);
      assert.equal(obj?.data.ftext, hostile);
      const edit = new ObjectForm({ app: content, loadFromType: 'type1', context: obj, request: post({}) });
      await edit.setup('edit');
      const d = dom((await edit.process()).html);
      assert.equal(d.tag('script').length, 0);
      assert.equal(d.tag('img').length, 0);
      assert.equal(text(d.byId('upload-ftext')), hostile);
      assert.equal(attr(d.byId('upload-title'), 'value'), hostile);
    });
  });
}
