// Processing: the checklist under original-forms.md §6 ("Checklist to add for our port") for
// Form/HTMLForm — action lookup, defaults, options merge, redirects, ajax replies.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError, HTMLForm, type ActionConf, type ActionKw, type FormRequest } from '../src/index.js';
import { attr, dom, text } from './helpers/html.js';

const fields = [{ id: 'name', name: 'Name', required: true }];
const actions: ActionConf[] = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'save', method: 'processForm', name: 'Save' },
  { id: 'cancel', method: 'cancel', name: 'Cancel' },
];
const post = (body: FormRequest['body'], headers: FormRequest['headers'] = {}): FormRequest => ({
  method: 'POST',
  body,
  headers,
});
const xhr = { 'x-requested-with': 'XMLHttpRequest' };

describe('action lookup', () => {
  test('the action postfix: the key `id$` selects the action, its value does not matter', async () => {
    const form = new HTMLForm({ fields, actions, request: post({ name: 'Ada', save$: 'anything' }) });
    const r = await form.process();
    assert.equal(r.action.id, 'save');
    assert.deepEqual(r.result, { name: 'Ada' });
    const plain = new HTMLForm({ fields, actions, request: post({ name: 'Ada', save: 'save' }) });
    assert.equal((await plain.process()).action.id, 'default');
  });

  test('GET vs POST lookup: a POST form never sees an action in the query string', async () => {
    const req: FormRequest = { method: 'POST', query: { save$: '1', name: 'q' }, body: {} };
    assert.equal((await new HTMLForm({ fields, actions, request: req }).process()).action.id, 'default');
    assert.equal((await new HTMLForm({ fields, actions, request: req, method: 'GET' }).process()).action.id, 'save');
    assert.equal((await new HTMLForm({ fields, actions, request: req, method: 'ANY' }).process()).action.id, 'save');
    const both = new HTMLForm({
      fields,
      actions,
      method: 'ALL',
      request: { query: { name: 'get' }, body: { name: 'post' } },
    });
    assert.equal(both.getFormValue('name'), 'post');
    const dict = new HTMLForm({ fields, actions, method: 'GET', request: { values: { save$: '1', name: 'x' } } });
    assert.equal((await dict.process()).action.id, 'save');
  });

  test('the first configured action present wins (configured order, hidden included)', async () => {
    const hidden: ActionConf[] = [{ id: 'secret', method: 'startRequestPOST', hidden: true }, ...actions];
    const form = new HTMLForm({ fields, actions: hidden, request: post({ save$: '1', secret$: '1' }) });
    assert.equal((await form.process()).action.id, 'secret');
  });

  test('action.options are merged into kw, and process kw override them', async () => {
    const seen: ActionKw[] = [];
    const cb = (_a: ActionConf, kw: ActionKw) => {
      seen.push(kw);
      return [true, 'ok'] as const;
    };
    const list: ActionConf[] = [{ id: 'go', method: cb, options: { a: 1, b: 2 } }];
    await new HTMLForm({ fields, actions: list, request: post({ go$: '1' }) }).process({ b: 3, c: 4 });
    assert.deepEqual(seen[0], { a: 1, b: 3, c: 4 });
  });

  test('callbacks are looked up by method name on the instance (subclass methods, original casing)', async () => {
    class MyForm extends HTMLForm {
      async publish(action: ActionConf, kw: ActionKw) {
        return [`published:${action.id}:${String(kw.x)}`, ''] as const;
      }
    }
    const form = new MyForm({
      fields,
      actions: [
        { id: 'pub', method: 'publish' },
        { id: 'start', method: 'StartForm' },
      ],
      request: post({ pub$: '1' }),
    });
    assert.equal((await form.process({ x: 1 })).result, 'published:pub:1');
    const f2 = new MyForm({ fields, actions: [{ id: 'start', method: 'StartForm' }], defaultAction: 'start' });
    assert.equal((await f2.process()).action.id, 'start');
    const bad = new HTMLForm({ fields, actions: [{ id: 'x', method: 'nope' }], request: post({ x$: '1' }) });
    await assert.rejects(bad.process(), /Action method "nope" not found/);
  });

  test('default action order: subset, kw.defaultAction, form.defaultAction, "default"', async () => {
    const list: ActionConf[] = [
      { id: 'default', method: () => ['default', ''] },
      { id: 'a', method: () => ['a', ''] },
      { id: 'b', method: () => ['b', ''] },
      { id: 'c', method: () => ['c', ''] },
    ];
    const mk = (over = {}) =>
      new HTMLForm({
        fields,
        actions: list,
        subsets: { s: { actions: ['a'], defaultAction: 'c' }, t: { actions: ['a'] } },
        ...over,
      });
    const s = mk();
    await s.setup('s');
    assert.equal(
      (await s.process({ defaultAction: 'a' })).result,
      'c',
      'subset default first; found outside the subset actions',
    );
    const t = mk({ defaultAction: 'b' });
    await t.setup('t');
    assert.equal((await t.process({ defaultAction: 'a' })).result, 'a');
    assert.equal((await t.process()).result, 'b');
    assert.equal((await mk().process()).result, 'default');
    const inline = mk();
    assert.equal(
      (await inline.process({ defaultAction: { id: 'inline', method: () => ['inline', ''] } })).result,
      'inline',
    );
    await assert.rejects(new HTMLForm({ fields, actions: [] }).process(), ConfigurationError);
  });

  test("a type configuration's subset defaultAction counts under the form's default edit subset", async () => {
    const list: ActionConf[] = [
      { id: 'default', method: () => ['default', ''] },
      { id: 'edit', method: () => ['edit', ''] },
      { id: 'preview', method: () => ['preview', ''] },
    ];
    const type = {
      id: 'article',
      data: [{ id: 'title' }],
      forms: { edit: { fields: ['title'], actions: ['edit'], defaultAction: 'preview' } },
    };
    const form = new HTMLForm({ loadFromType: type, actions: list });
    await form.setup('edit');
    assert.equal((await form.process()).result, 'preview');
    const own = new HTMLForm({
      loadFromType: type,
      actions: list,
      subsets: { edit: { actions: ['edit'], defaultAction: 'default' } },
    });
    await own.setup('edit');
    assert.equal((await own.process()).result, 'default', "subsets given to the form win over the type's");
  });

  test('isRequestAction and removeActionsFromRequest', async () => {
    const form = new HTMLForm({ fields, actions, request: post({ save$: '1', name: 'x' }) });
    assert.equal(form.isRequestAction('save'), true);
    assert.equal(form.isRequestAction(actions[2]!), false);
    form.removeActionsFromRequest();
    assert.equal(form.isRequestAction('save'), false);
    assert.equal(form.getFormValue('name'), 'x');
    assert.equal((await form.process()).action.id, 'default');
  });

  test('the HTMLForm defaults: default → startForm (hidden), edit → processForm', async () => {
    const form = new HTMLForm({ fields });
    assert.deepEqual(
      form.getActions().map((a) => [a.id, a.method, Boolean(a.hidden)]),
      [
        ['default', 'startForm', true],
        ['edit', 'processForm', false],
      ],
    );
    await form.setup('edit');
    assert.deepEqual(
      form.getActions().map((a) => a.id),
      ['edit'],
    );
    assert.equal((await form.process()).action.id, 'default');
  });
});

describe('built-in actions', () => {
  test('returnDataOnSuccess: the result is the data; success_message shown; redirectSuccess ignored', async () => {
    const list: ActionConf[] = [{ id: 'send', method: 'returnDataOnSuccess' }];
    const form = new HTMLForm({
      fields,
      actions: list,
      request: post({ name: 'Ada', send$: '1' }),
      redirectSuccess: '/away',
    });
    const r = await form.process({ success_message: 'Thanks!', redirectSuccess: '/away' });
    assert.deepEqual(r.result, { name: 'Ada' });
    assert.equal(r.response, undefined);
    const status = dom(r.html).find((e) => attr(e, 'role') === 'status');
    assert.equal(text(status), 'Thanks!');
    const failed = await new HTMLForm({ fields, actions: list, request: post({ send$: '1' }) }).process();
    assert.equal(failed.result, false);
    assert.ok(dom(failed.html).byId('upload-errors'));
  });

  test('no default "OK" message without success_message', async () => {
    const r = await new HTMLForm({ fields, actions, request: post({ name: 'A', save$: '1' }) }).process();
    assert.equal(
      dom(r.html).find((e) => attr(e, 'role') === 'status'),
      undefined,
    );
  });

  test('cancel redirects to redirectCancel resolved against the form context', async () => {
    const view = { urls: { obj_url: (o: unknown) => `/obj/${(o as { id: number }).id}` } };
    const form = new HTMLForm({ fields, actions, view, context: { id: 9 }, request: post({ cancel$: '1' }) });
    const r = await form.process({ redirectCancel: 'obj_url/edit' });
    assert.deepEqual([r.result, r.html], [true, '']);
    assert.equal(r.response?.status, 302);
    assert.equal(r.response?.headers.Location, '/obj/9/edit');
    const noRedirect = await new HTMLForm({ fields, actions, request: post({ cancel$: '1' }) }).process();
    assert.equal(noRedirect.response, undefined);
  });
});

describe('finish: redirects, successResponseBody, renderSuccess, ajax', () => {
  const view = {
    urls: {
      obj_url: (o: unknown) => `/obj/${(o as { id: number }).id}`,
      page_url: (o: unknown) => `/page/${(o as { id: number }).id}`,
    },
  };

  test('redirect placeholders resolve against the result object, else the context', async () => {
    const create: ActionConf = {
      id: 'create',
      method: async function (this: HTMLForm, _a, kw) {
        const [ok, data, errors] = await this.validate(this.getFormValues());
        if (!ok) return [false, await this.render(data, [], errors)];
        // a stand-in for ObjectForm.CreateObj: the result is the new object
        return (
          this as unknown as {
            finish: (r: unknown, d: unknown, m: string[], k: ActionKw) => Promise<readonly [unknown, string]>;
          }
        ).finish({ id: 42 }, data, ['OK. Data saved.'], kw);
      },
    };
    class F extends HTMLForm {
      finish(r: unknown, d: Record<string, unknown>, m: string[], kw: ActionKw) {
        return this.finishFormProcessing(r, d, m, undefined, kw);
      }
    }
    const r = await new F({
      fields,
      actions: [create],
      view,
      context: { id: 1 },
      request: post({ name: 'x', create$: '1' }),
    }).process({ redirectSuccess: 'obj_url' });
    assert.equal(r.response?.headers.Location, '/obj/42');
    assert.deepEqual(r.response?.messages, ['OK. Data saved.']);
    const pf = await new HTMLForm({
      fields,
      actions,
      view,
      context: { id: 1 },
      request: post({ name: 'x', save$: '1' }),
    }).process({ redirectSuccess: 'page_url' });
    assert.equal(pf.response?.headers.Location, '/page/1', 'a data dict result falls back to the context');
    const fn = await new HTMLForm({
      fields,
      actions,
      view,
      context: { id: 5 },
      request: post({ name: 'x', save$: '1' }),
    }).process({ redirectSuccess: (ctx, v) => `/fn/${(ctx as { id: number }).id}/${v === view}` });
    assert.equal(fn.response?.headers.Location, '/fn/5/true');
  });

  test('an XHR redirect becomes the relocate JSON with X-Relocate', async () => {
    const r = await new HTMLForm({ fields, actions, request: post({ name: 'x', save$: '1' }, xhr) }).process({
      redirectSuccess: '/done',
      success_message: 'Saved',
    });
    assert.equal(r.response?.status, 200);
    assert.equal(r.response?.headers['X-Relocate'], '/done');
    assert.deepEqual(JSON.parse(r.response?.body ?? ''), { location: '/done', messages: ['Saved'], refresh: true });
  });

  test('successResponseBody replaces the body on success (string or callback(form))', async () => {
    const s = await new HTMLForm({
      fields,
      actions,
      successResponseBody: '<p>done</p>',
      request: post({ name: 'x', save$: '1' }),
    }).process();
    assert.equal(s.response?.body, '<p>done</p>');
    assert.equal(s.response?.headers['X-Result'], 'true');
    const form = new HTMLForm({ fields, actions, request: post({ name: 'x', save$: '1' }) });
    form.applyOptions({ successResponseBody: (f: unknown) => `same:${f === form}` });
    assert.equal((await form.process()).response?.body, 'same:true');
    const failed = await new HTMLForm({
      fields,
      actions,
      successResponseBody: 'x',
      request: post({ save$: '1' }),
    }).process();
    assert.equal(failed.response, undefined);
  });

  test('renderSuccess false returns the messages only; kw overrides the option', async () => {
    const req = post({ name: 'x', save$: '1' });
    const only = await new HTMLForm({ fields, actions, renderSuccess: false, request: req }).process({
      success_message: 'Done',
    });
    const d = dom(only.html);
    assert.equal(d.tag('form').length, 0);
    assert.equal(text(d.find((e) => attr(e, 'role') === 'status')), 'Done');
    const full = await new HTMLForm({ fields, actions, renderSuccess: false, request: req }).process({
      renderSuccess: true,
    });
    assert.equal(dom(full.html).tag('form').length, 1);
  });

  test('use_ajax: XHR requests get the form only with X-Result true/false; plain posts the normal path', async () => {
    const ok = await new HTMLForm({
      fields,
      actions,
      use_ajax: true,
      request: post({ name: 'x', save$: '1' }, xhr),
    }).process({ success_message: 'Yes' });
    assert.equal(ok.response?.headers['X-Result'], 'true');
    assert.equal(ok.response?.body, ok.html);
    const bad = await new HTMLForm({ fields, actions, use_ajax: true, request: post({ save$: '1' }, xhr) }).process();
    assert.equal(bad.response?.headers['X-Result'], 'false');
    assert.ok(dom(bad.response?.body ?? '').byId('upload-errors'));
    const plain = await new HTMLForm({ fields, actions, use_ajax: true, request: post({ save$: '1' }) }).process();
    assert.equal(plain.response, undefined);
    const noAjax = await new HTMLForm({ fields, actions, request: post({ save$: '1' }, xhr) }).process();
    assert.equal(noAjax.response, undefined);
  });
});
