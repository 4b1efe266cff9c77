// Redirects of the content forms: every placeholder resolved against the object the action
// produced, callables `(context, view)`, cancel, XHR relocation, flashed messages; and
// makeCustomizedViewForm's order of settings. Real content model on SQLite.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigurationError,
  createContentView,
  JsonMappingForm,
  makeCustomizedViewForm,
  MakeCustomizedViewForm,
  ObjectForm,
  ToolForm,
  WorkflowForm,
  type ContentObject,
  type KyselyContent,
  type MessageStore,
  type TypeConf,
} from '../src/index.js';
import { openContent, post, testRootId } from './helpers/content-db.js';
import { contentOptions } from './helpers/fixtures.js';
import { attr, dom } from './helpers/html.js';

const user = { id: 'u' };
const xhr = { 'x-requested-with': 'XMLHttpRequest' };

let content: KyselyContent;
let close: () => Promise<void>;
let page: ContentObject;
let element: ContentObject;
before(async () => {
  ({ content, close } = await openContent('sqlite', contentOptions));
  const root = await content.root(testRootId());
  page = await root.create('folder', { title: 'Page' }, user);
  element = (await content.get((await page.create('type1', { fnumber: 1 }, user)).id))!;
});
after(() => close?.());

describe('redirects after create and update', () => {
  test('each placeholder after CreateObj resolves against the new object', async () => {
    const expected = (obj: ContentObject): Record<string, string> => ({
      obj_url: `/c/${obj.id}`,
      obj_folder_url: `/c/${obj.id}/`,
      parent_url: `/c/${page.id}`,
      page_url: `/c/${page.id}`,
      page_url_anchor: `/c/${page.id}#roost-element-${obj.id}`,
      'obj_url/edit': `/c/${obj.id}/edit`,
      '/static/url': '/static/url',
    });
    for (const placeholder of Object.keys(expected(element))) {
      const store: MessageStore = { messages: [] };
      const request = post({ fnumber: '5', create$: '1' });
      const view = createContentView({ request, user, context: page, baseUrl: '/c', store });
      const r = await new ObjectForm({ view, app: content, loadFromType: 'type1' }).process({
        redirectSuccess: placeholder,
      });
      const created = r.result as ContentObject;
      assert.notEqual(created.id, page.id);
      assert.equal(r.response?.status, 302);
      assert.equal(r.response?.headers.Location, expected(created)[placeholder], placeholder);
      assert.deepEqual(store.messages, ['OK. Data saved.'], 'messages are flashed through the view');
      assert.equal(r.html, '');
    }
  });

  test('each placeholder after UpdateObj resolves against the updated object', async () => {
    const expected: Record<string, string> = {
      obj_url: `/c/${element.id}`,
      obj_folder_url: `/c/${element.id}/`,
      parent_url: `/c/${page.id}`,
      page_url: `/c/${page.id}`,
      page_url_anchor: `/c/${page.id}#roost-element-${element.id}`,
    };
    for (const [placeholder, url] of Object.entries(expected)) {
      const view = createContentView({ request: post({ fnumber: '6', edit$: '1' }), context: element, baseUrl: '/c' });
      const form = new ObjectForm({ view, app: content, loadFromType: 'type1', redirectSuccess: placeholder });
      await form.setup('edit');
      const r = await form.process();
      assert.equal(r.response?.headers.Location, url, placeholder);
    }
  });

  test('a callable gets (context, view): the new object after create, the context on cancel', async () => {
    const view = createContentView({ request: post({ fnumber: '1', create$: '1' }), context: page, baseUrl: '/c' });
    const calls: unknown[][] = [];
    const target = (ctx: unknown, v: unknown) => {
      calls.push([ctx, v]);
      return `/fn/${(ctx as ContentObject).id}`;
    };
    const r = await new ObjectForm({ view, app: content, loadFromType: 'type1' }).process({ redirectSuccess: target });
    assert.equal(r.response?.headers.Location, `/fn/${(r.result as ContentObject).id}`);
    assert.deepEqual(calls[0], [r.result, view]);
    const cancelView = createContentView({ request: post({ cancel$: '1' }), context: element, baseUrl: '/c' });
    const c = await new ObjectForm({ view: cancelView, app: content, loadFromType: 'type1' }).process({
      redirectCancel: 'parent_url',
    });
    assert.deepEqual([c.action.id, c.response?.headers.Location], ['cancel', `/c/${page.id}`]);
  });

  test('XHR: the redirect becomes the relocate JSON with X-Relocate naming the new object', async () => {
    const store: MessageStore = { messages: [] };
    const view = createContentView({
      request: post({ fnumber: '2', create$: '1' }, xhr),
      context: page,
      baseUrl: '/c',
      store,
    });
    const r = await new ObjectForm({ view, app: content, loadFromType: 'type1', use_ajax: true }).process({
      redirectSuccess: 'obj_url',
    });
    const url = `/c/${(r.result as ContentObject).id}`;
    assert.equal(r.response?.status, 200);
    assert.equal(r.response?.headers['X-Relocate'], url);
    assert.deepEqual(JSON.parse(r.response?.body ?? ''), {
      location: url,
      messages: ['OK. Data saved.'],
      refresh: true,
    });
    assert.deepEqual(store.messages, ['OK. Data saved.']);
    const failed = await new ObjectForm({
      view: createContentView({ request: post({ fnumber: 'x', create$: '1' }, xhr), context: page }),
      app: content,
      loadFromType: 'type1',
      use_ajax: true,
    }).process({ redirectSuccess: 'obj_url' });
    assert.equal(failed.response?.headers['X-Result'], 'false', 'a failure never redirects');
  });

  test('workflow and JSON mapping redirects resolve against the object; ToolForm never redirects', async () => {
    const wf = await new WorkflowForm({
      view: createContentView({ request: post({ action: 'archive', submit$: '1' }), context: element, baseUrl: '/c' }),
    }).process({ redirectSuccess: 'page_url_anchor' });
    assert.equal(wf.response?.headers.Location, `/c/${page.id}#roost-element-${element.id}`);
    const jm = await new JsonMappingForm({
      view: createContentView({ request: post({ a: 'x', edit$: '1' }), context: element, baseUrl: '/c' }),
      fields: [{ id: 'a' }],
      jsonDataField: 'fjson',
    }).process({ redirectSuccess: 'obj_url' });
    assert.equal(jm.response?.headers.Location, `/c/${element.id}`);
    const tool = await new ToolForm({
      context: content.tool('count', page),
      request: post({ parameter1: 'p', run$: '1' }),
      redirectSuccess: '/away',
    }).process({ redirectSuccess: '/away' });
    assert.deepEqual([tool.result, tool.response], [true, undefined]);
  });
});

describe('makeCustomizedViewForm', () => {
  const typeconf: TypeConf = {
    ...contentOptions.types[1]!,
    forms: {
      edit: { fields: ['ftext', 'fnumber'], options: { formid: 'fromType', css_class: 'type', action: '/type' } },
    },
  };

  test('a subset name: the type form definition, module settings, actions, defaults; no setup', async () => {
    const view = createContentView({ request: post({}), context: element });
    const [form, subset] = makeCustomizedViewForm(view, element, 'edit', {
      typeconf,
      loadFromViewModuleConf: { form: { css_class: 'module', anchor: 'module' } },
      defaultSettings: { anchor: 'defaults', action: '/defaults' },
    });
    assert.ok(form instanceof ObjectForm, 'ObjectForm is the default class');
    assert.equal(subset, 'edit');
    assert.deepEqual(
      [form.options.formid, form.options.css_class, form.options.anchor, form.options.action],
      ['fromType', 'module', 'defaults', '/defaults'],
    );
    await form.setup(subset);
    assert.deepEqual(
      form.getFields().map((f) => f.id),
      ['ftext', 'fnumber'],
    );
    assert.equal(form.options.action, '/defaults', 'setup does not apply the subset options again');
    const r = await form.process();
    assert.equal(r.action.id, 'defaultEdit', "the class's subset keeps its default action");
    assert.equal(attr(dom(r.html).byId('fromType-fnumber'), 'value'), String(element.data.fnumber));
  });

  test('a settings dict comes last; actions and default action; a type id through the app; other classes', async () => {
    const view = createContentView({ request: post({}), context: element });
    const actions = [
      { id: 'show', method: 'startObject', hidden: true },
      { id: 'save', method: 'updateObj', name: 'Save' },
    ];
    const [form, subset] = MakeCustomizedViewForm(
      view,
      element,
      { formid: 'given', css_class: 'given' },
      {
        typeconf: 'type1',
        app: content,
        actions,
        defaultAction: 'show',
        defaultSettings: { formid: 'defaults', anchor: 'defaults' },
      },
    );
    assert.equal(subset, undefined);
    assert.deepEqual(
      [form.options.formid, form.options.css_class, form.options.anchor],
      ['given', 'given', 'defaults'],
    );
    await form.setup();
    assert.deepEqual(
      form.getActions().map((a) => a.id),
      ['show', 'save'],
    );
    assert.equal((await form.process()).action.id, 'show');
    const [json] = makeCustomizedViewForm(view, element, {}, { formClass: JsonMappingForm });
    assert.ok(json instanceof JsonMappingForm);
    assert.throws(() => makeCustomizedViewForm(view, element, 'nope', { typeconf }), ConfigurationError);
    assert.throws(
      () => makeCustomizedViewForm(view, element, 'edit', { typeconf: 'nope', app: content }),
      ConfigurationError,
    );
  });
});
