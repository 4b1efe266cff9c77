// Every event with its arguments and order.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Form,
  HTMLForm,
  JsonMappingForm,
  JsonSequenceForm,
  ObjectForm,
  type ActionConf,
  type FormListener,
} from '../src/index.js';
import { post, useSqliteContent } from './helpers/content-db.js';
import { contentOptions } from './helpers/fixtures.js';

const fields = [{ id: 'name', required: true }];
const actions: ActionConf[] = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'save', method: 'processForm' },
  { id: 'send', method: 'returnDataOnSuccess' },
  { id: 'cancel', method: 'cancel' },
];
const EVENTS = [
  'setup',
  'validate',
  'process',
  'loadDataObj',
  'loadDefault',
  'cancel',
  'render',
  'success',
  'messages',
  'delete',
];

function record(form: Form): Array<[string, Record<string, unknown>]> {
  const log: Array<[string, Record<string, unknown>]> = [];
  for (const e of EVENTS) form.listenEvent(e, (args) => void log.push([e, { ...args }]));
  return log;
}

describe('events', () => {
  test('setup() after fields are loaded', async () => {
    const form = new Form({ fields });
    let count = -1;
    form.listenEvent('setup', () => {
      count = form.getFields().length;
    });
    await form.setup();
    assert.equal(count, 1);
  });

  test('a successful save: validate → process → success → messages → render', async () => {
    const form = new HTMLForm({ fields, actions, request: { body: { name: ' Ada ', save$: '1' } } });
    const log = record(form);
    await form.process({ success_message: 'ok' });
    assert.deepEqual(
      log.map(([e]) => e),
      ['setup', 'validate', 'process', 'success', 'messages', 'render'],
    );
    assert.deepEqual(log[1]?.[1], { data: { name: ' Ada ', save$: '1' } }, 'validate gets the raw values');
    assert.deepEqual(log[2]?.[1], { data: { name: 'Ada' } }, 'process gets the validated data');
    assert.deepEqual(log[3]?.[1], { data: { name: 'Ada' } });
    assert.deepEqual(log[4]?.[1], { messages: ['ok'], result: { name: 'Ada' } });
    assert.deepEqual(log[5]?.[1], { data: { name: 'Ada' } });
  });

  test('a failed validation: validate, no process, no success; render with the submitted values', async () => {
    const form = new HTMLForm({ fields, actions, request: { body: { name: '', send$: '1' } } });
    const log = record(form);
    await form.process();
    assert.deepEqual(
      log.map(([e]) => e),
      ['setup', 'validate', 'render'],
    );
    assert.deepEqual(log[2]?.[1], { data: { name: '' } });
  });

  test('validateSchema fires validate only; extract fires nothing', async () => {
    const form = new Form({ fields });
    await form.setup();
    const log = record(form);
    await form.validateSchema({ name: 'x' });
    await form.extract({ name: 'x' });
    assert.deepEqual(
      log.map(([e]) => e),
      ['validate'],
    );
  });

  test('validate listeners may change the data before validation', async () => {
    const form = new Form({ fields });
    form.listenEvent('validate', ({ data }) => {
      (data as Record<string, unknown>).name = 'filled';
    });
    assert.deepEqual(await form.validate({}), [true, { name: 'filled' }, []]);
  });

  test('loadDataObj(data, obj) and loadDefault(data)', async () => {
    const form = new Form({ fields: [{ id: 'name', default: 'n' }] });
    const log = record(form);
    const obj = { data: { name: 'stored' } };
    await form.loadObjData(obj);
    await form.loadDefaultData();
    assert.deepEqual(log.slice(1), [
      ['loadDataObj', { data: { name: 'stored' }, obj }],
      ['loadDefault', { data: { name: 'n' } }],
    ]);
  });

  test('startForm fires loadDefault (with defaultData too) and render', async () => {
    const form = new HTMLForm({ fields, actions });
    const log = record(form);
    await form.process({ defaultData: { name: 'given' } });
    assert.deepEqual(
      log.map(([e]) => e),
      ['setup', 'loadDefault', 'render'],
    );
    assert.deepEqual(log[1]?.[1], { data: { name: 'given' } });
  });

  test('cancel() fires cancel (not success), before anything else', async () => {
    const form = new HTMLForm({ fields, actions, request: { body: { cancel$: '1' } } });
    const log = record(form);
    await form.process();
    assert.deepEqual(log, [
      ['setup', {}],
      ['cancel', {}],
    ]);
  });

  test('renderSuccess false: messages fires, render does not', async () => {
    const form = new HTMLForm({ fields, actions, renderSuccess: false, request: { body: { name: 'x', save$: '1' } } });
    const log = record(form);
    await form.process();
    assert.deepEqual(
      log.map(([e]) => e),
      ['setup', 'validate', 'process', 'success', 'messages'],
    );
  });

  test('listeners: method names, removal, results, exceptions propagate', async () => {
    class F extends Form {
      calls: unknown[] = [];
      onSetup(args: unknown) {
        this.calls.push(args);
        return 'from method';
      }
    }
    const form = new F({ fields });
    const fn: FormListener = () => 'from fn';
    form.listenEvent('setup', 'onSetup');
    form.listenEvent('setup', fn);
    assert.deepEqual(await form.signal('setup', { a: 1 }), ['from method', 'from fn']);
    assert.deepEqual(form.calls, [{ a: 1 }]);
    form.removeListener('setup', fn);
    assert.deepEqual(await form.signal('setup'), ['from method']);
    form.removeListener('setup');
    assert.deepEqual(await form.signal('setup'), []);
    form.listenEvent('success', () => {
      throw new Error('listener failed');
    });
    await assert.rejects(form.signal('success'), /listener failed/);
    form.listenEvent('x', 'missing');
    await assert.rejects(form.signal('x'), /not found/);
  });

  test('async listeners are awaited in order', async () => {
    const form = new Form({ fields });
    const order: number[] = [];
    form.listenEvent('e', async () => {
      await new Promise((r) => setTimeout(r, 10));
      order.push(1);
    });
    form.listenEvent('e', () => {
      order.push(2);
    });
    await form.signal('e');
    assert.deepEqual(order, [1, 2]);
  });
});

describe('events of the content forms', () => {
  const store = useSqliteContent(contentOptions);

  test('ObjectForm create: setup → validate → process → success(obj) → messages → render', async () => {
    const { content, root } = await store.open();
    const form = new ObjectForm({
      app: content,
      loadFromType: 'type2',
      context: root,
      request: post({ fstr: 'x', create$: '1' }),
    });
    const log = record(form);
    const { result } = await form.process();
    assert.deepEqual(
      log.map(([e]) => e),
      ['setup', 'validate', 'process', 'success', 'messages', 'render'],
    );
    assert.deepEqual(log[3]?.[1], { obj: result });
    const edit = new ObjectForm({
      app: content,
      loadFromType: 'type2',
      context: result,
      request: post({ fstr: 'y', edit$: '1' }),
    });
    const log2 = record(edit);
    await edit.setup('edit');
    await edit.process();
    assert.deepEqual(log2.find(([e]) => e === 'success')?.[1], { obj: result });
    const cancel = new ObjectForm({
      app: content,
      loadFromType: 'type2',
      context: result,
      request: post({ cancel$: '1' }),
    });
    const log3 = record(cancel);
    await cancel.process();
    assert.deepEqual(log3, [
      ['setup', {}],
      ['cancel', {}],
    ]);
  });

  test('JSON forms: success(data) with the dictionary or the whole list; delete(data) with the rest', async () => {
    const { root } = await store.open();
    const obj = await root.create('type2', { fstr: 'x' }, 'u');
    const mapping = new JsonMappingForm({
      context: obj,
      fields: [{ id: 'a' }],
      jsonDataField: 'm',
      request: post({ a: '1', edit$: '1' }),
    });
    const log = record(mapping);
    await mapping.process();
    assert.deepEqual(log.find(([e]) => e === 'success')?.[1], { data: { a: '1' } });
    const add = new JsonSequenceForm({
      context: obj,
      fields: [{ id: 'name' }],
      jsonDataField: 's',
      request: post({ name: 'n', edit$: '1' }),
    });
    const log2 = record(add);
    await add.process();
    assert.deepEqual(
      log2.map(([e]) => e),
      ['setup', 'validate', 'process', 'success', 'render'],
    );
    assert.deepEqual(log2[3]?.[1], { data: [{ name: 'n' }] });
    const del = new JsonSequenceForm({
      context: obj,
      fields: [{ id: 'name' }],
      jsonDataField: 's',
      request: post({ aa876352: '1' }),
    });
    const log3 = record(del);
    await del.process();
    assert.deepEqual(
      log3.map(([e]) => e),
      ['setup', 'delete', 'render'],
    );
    assert.deepEqual(log3[1]?.[1], { data: [] });
  });
});
