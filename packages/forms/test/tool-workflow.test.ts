// ToolForm (test_tool of original-forms.md §6) and WorkflowForm, driven against the content model
// on SQLite.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError, ToolForm, WorkflowForm, type ActionConf, type FormValues } from '../src/index.js';
import { post, useSqliteContent } from './helpers/content-db.js';
import { contentOptions } from './helpers/fixtures.js';
import { alerts, attr, dom, text } from './helpers/html.js';

const user = { id: 'u' };

const store = useSqliteContent(contentOptions);
before(async () => (await store.open()).root.create('type2', { fstr: 'one' }, user));

describe('ToolForm', () => {
  const toolActions: ActionConf[] = [
    { id: 'default', method: 'startForm', hidden: true },
    { id: 'run', method: 'runTool', name: 'Run' },
    { id: 'cancel', method: 'cancel', name: 'Cancel' },
  ];

  test('setup loads the parameters from the tool definition (no meta fields)', async () => {
    const form = new ToolForm({ app: store.content, context: store.content.tool('count', store.root) });
    await form.setup();
    assert.deepEqual(
      form.getFields().map((f) => f.id),
      ['parameter1', 'parameter2'],
    );
    assert.deepEqual(
      form.getActions().map((a) => a.id),
      ['default', 'run'],
    );
    const byId = new ToolForm({ app: store.content, loadFromType: 'count' });
    await byId.setup();
    assert.equal(byId.getFields().length, 2);
    await assert.rejects(new ToolForm({ app: store.content, loadFromType: 'nope' }).setup(), /Type not found/);
  });

  test('test_tool: default renders, run$ runs the tool, cancel$ cancels; a subset and an inline field', async () => {
    const mk = (body: FormValues, extra = {}) =>
      new ToolForm({
        app: store.content,
        context: store.content.tool('count', store.root),
        actions: toolActions,
        user,
        request: post(body),
        ...extra,
      });
    const r0 = await mk({}).process();
    assert.equal(r0.action.id, 'default');
    assert.ok(dom(r0.html).byId('upload-parameter1'));
    const r1 = await mk({ run$: '1', parameter1: 'kids', parameter2: '3' }).process();
    assert.equal(r1.action.id, 'run');
    assert.equal(r1.result, true);
    assert.equal(text(dom(r1.html).find((e) => attr(e, 'class') === 'tool-output')), 'kids: 1 children');
    const r2 = await mk({ cancel$: '1' }).process();
    assert.deepEqual([r2.result, r2.action.id], [true, 'cancel']);
    const subsets = {
      p1: { fields: ['parameter1'] },
      lines: { fields: [{ id: 'parameter1', datatype: 'lines', required: true }] },
    };
    const sub = mk({ run$: '1', parameter1: 'sub' }, { subsets });
    await sub.setup('p1');
    assert.equal(sub.getFields().length, 1);
    assert.equal((await sub.process()).result, true);
    const lines = mk({ run$: '1', parameter1: 'a\r\nb' }, { subsets });
    await lines.setup('lines');
    assert.equal(
      text(dom((await lines.process()).html).find((e) => attr(e, 'class') === 'tool-output')),
      'a,b: 1 children',
    );
  });

  test('invalid parameters re-render with errors; a failing tool re-renders its data, the output escaped', async () => {
    const mk = (body: FormValues) =>
      new ToolForm({ app: store.content, context: store.content.tool('count', store.root), request: post(body) });
    const invalid = await mk({ run$: '1', parameter2: 'x' }).process();
    assert.equal(invalid.result, false);
    assert.ok(dom(invalid.html).byId('upload-errors'));
    const failed = await mk({ run$: '1', parameter1: 'fail' }).process();
    assert.equal(failed.result, false);
    const d = dom(failed.html);
    assert.equal(attr(d.byId('upload-parameter1'), 'value'), 'fail');
    assert.equal(text(d.find((e) => attr(e, 'class') === 'tool-output')), 'Failed <on purpose>');
    assert.equal(d.tag('on').length, 0, 'the output is escaped');
    const noTool = await new ToolForm({
      app: store.content,
      loadFromType: 'count',
      request: post({ run$: '1', parameter1: 'x' }),
    }).process();
    assert.deepEqual([noTool.result, alerts(noTool.html)], [false, ['Tool not found']]);
  });

  test('a tool without parameters is its run button alone; other forms still need fields', async () => {
    let runs = 0;
    const conf = { id: 'purge', data: [], run: () => ({ ok: true, output: `purged ${++runs}` }) };
    const tool = { configuration: conf, target: undefined, run: async () => conf.run() };
    const start = await new ToolForm({ context: tool, actions: toolActions, request: post({}) }).process();
    const d = dom(start.html);
    assert.deepEqual([d.tag('form').length, d.tag('input').length, d.tag('button').length], [1, 0, 2]);
    const ran = await new ToolForm({ context: tool, actions: toolActions, request: post({ run$: '1' }) }).process();
    assert.deepEqual(
      [ran.result, text(dom(ran.html).find((e) => attr(e, 'class') === 'tool-output'))],
      [true, 'purged 1'],
    );
    await assert.rejects(
      new WorkflowForm({ fields: [], loadFromType: { id: 'x', data: [] } }).setup(),
      /No form fields defined/,
    );
  });

  test('an unknown action id in a subset is an error (other forms skip it)', async () => {
    const form = new ToolForm({
      app: store.content,
      context: store.content.tool('count', store.root),
      subsets: { s: { actions: ['run', 'nope'] } },
    });
    await assert.rejects(form.setup('s'), ConfigurationError);
  });

  test('a tool definition may bring its own actions; actions given to the form win', async () => {
    const conf = { ...store.content.getToolConf('count')!, actions: [{ id: 'go', method: 'runTool', name: 'Go' }] };
    const form = new ToolForm({
      app: store.content,
      loadFromType: conf,
      context: store.content.tool('count', store.root),
      request: post({ go$: '1', parameter1: 'own' }),
    });
    const r = await form.process();
    assert.deepEqual([r.action.id, r.result], ['go', true]);
    const given = new ToolForm({ app: store.content, loadFromType: conf, actions: toolActions });
    await given.setup();
    assert.deepEqual(
      given.getActions().map((a) => a.id),
      ['default', 'run', 'cancel'],
    );
  });
});

describe('WorkflowForm', () => {
  test('default renders the GET values; submit$ runs the transition named in the form', async () => {
    const obj = await store.root.create('type1', { fnumber: 1 }, user);
    const start = await new WorkflowForm({
      context: obj,
      request: { query: { action: 'publish' }, body: {} },
    }).process();
    assert.equal(start.action.id, 'default');
    assert.equal(
      attr(
        dom(start.html).find((e) => attr(e, 'name') === 'action'),
        'value',
      ),
      'publish',
    );
    const seen: unknown[] = [];
    const form = new WorkflowForm({
      context: obj,
      user,
      request: post({ action: 'publish', message: 'ok', submit$: '1' }),
    });
    form.listenEvent('success', ({ obj: o }) => void seen.push(o));
    const r = await form.process();
    assert.deepEqual([r.action.id, r.result, seen], ['submit', obj, [obj]]);
    assert.equal((await store.content.get(obj.id))?.meta.pool_wfa, 'published');
    const byTransition = await new WorkflowForm({
      context: obj,
      request: post({ transition: 'retract', submit$: '1' }),
    }).process();
    assert.equal(byTransition.result, obj);
    assert.equal((await store.content.get(obj.id))?.meta.pool_wfa, 'draft');
  });

  test('refusals: no action, a transition not allowed now, no object; cancel', async () => {
    const obj = await store.root.create('type1', { fnumber: 1 }, user);
    const none = await new WorkflowForm({ context: obj, request: post({ submit$: '1' }) }).process();
    assert.equal(none.result, false);
    assert.match(text(dom(none.html).byId('upload-errors')), /No workflow action given/);
    const notNow = await new WorkflowForm({
      context: obj,
      request: post({ action: 'unpublish', submit$: '1' }),
    }).process();
    assert.deepEqual([notNow.result, alerts(notNow.html)], [false, ['Workflow action not allowed']]);
    const noObj = await new WorkflowForm({ request: post({ action: 'publish', submit$: '1' }) }).process();
    assert.deepEqual([noObj.result, alerts(noObj.html)], [false, ['Object not found']]);
    const cancel = await new WorkflowForm({ context: obj, request: post({ cancel$: '1' }) }).process();
    assert.deepEqual([cancel.action.id, cancel.result], ['cancel', true]);
    assert.equal((await store.content.get(obj.id))?.meta.pool_wfa, 'draft');
  });
});
