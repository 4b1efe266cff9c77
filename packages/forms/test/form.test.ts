// The acceptance checklist of original-forms.md §6 (test_forms.py / test_reformed.py parts that
// belong to Form and HTMLForm; ObjectForm, ToolForm and the JSON forms are issue 11).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  ConfigurationError,
  Form,
  HTMLForm,
  ValidationError,
  compileField,
  createTranslator,
  datatypes,
  registerWidget,
  textInput,
  type ActionConf,
  type FieldNode,
  type StandardSchemaV1,
} from '../src/index.js';
import { app, fullData, type1 } from './helpers/fixtures.js';
import { attr, dom, text } from './helpers/html.js';

const actions: ActionConf[] = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'create', method: 'processForm', name: 'Create' },
  { id: 'cancel', method: 'cancel', name: 'Cancel' },
];

describe('HTMLForm smoke (test_form)', () => {
  test('setup from the type, lookups and every start method run', async () => {
    const form = new HTMLForm({
      app,
      loadFromType: 'type1',
      fields: [],
      subsets: {},
      actions,
      request: { query: { ftext: 'from get' }, body: { ftext: 'from post' } },
    });
    await form.setup();
    assert.ok(form.getFields().length > 0);
    assert.equal(form.getField('unknown'), undefined);
    assert.deepEqual(await form.loadDefaultData(), {});
    assert.equal(form.getActions(true).length, 2);
    assert.equal(form.getActions(false).length, 3);
    assert.equal(form.getFormValue('ftext'), 'from post');
    assert.equal(form.getFormValue('ftext', undefined, 'GET'), 'from get');
    assert.deepEqual(form.getFormValues(), { ftext: 'from post' });
    const action = actions[0]!;
    const [ok1, html1] = await form.startForm(action);
    assert.equal(ok1, true);
    assert.ok(dom(html1).byId('upload'));
    const [, html2] = await form.startForm(action, { defaultData: { ftext: 'preset' } });
    assert.equal(text(dom(html2).byId('upload-ftext')), 'preset');
    const [, html3] = await form.startRequestGET(action);
    assert.equal(text(dom(html3).byId('upload-ftext')), 'from get');
    const [, html4] = await form.startRequestPOST(action);
    assert.equal(text(dom(html4).byId('upload-ftext')), 'from post');
    assert.deepEqual(await form.cancel(action), [true, '']);
  });

  test('meta fields plus type data when nothing else is configured; readonly removed', async () => {
    const form = new Form({ app, loadFromType: 'type1' });
    await form.setup();
    const ids = form.getFields().map((f) => f.id);
    assert.ok(ids.includes('title') && ids.includes('ftext'));
    assert.ok(!ids.includes('pool_type'));
    assert.ok(form.getFields(false).some((f) => f.id === 'pool_type'));
  });
});

describe('empty values (test_empty)', () => {
  test('Extract keeps empty strings and leaves out unsubmitted fields', async () => {
    const f1 = new Form({ app, loadFromType: 'type1' });
    const [, d1] = await f1.extract({ ftext: '' });
    assert.equal(d1.ftext, '');
    const f2 = new Form({ app, loadFromType: 'type2' });
    const [, d2] = await f2.extract({ fstr: '' });
    assert.equal(d2.fstr, '');
    assert.ok(!('ftext' in d2));
  });
});

describe('Validate / Extract (test_values)', () => {
  test('full data validates and converts; extra keys are ignored', async () => {
    const form = new Form({ app, loadFromType: 'type1', fields: type1.data });
    const [ok, data, errors] = await form.validate(fullData);
    assert.deepEqual(errors, []);
    assert.equal(ok, true);
    assert.equal(data.fnumber, 123456);
    assert.equal(data.fdate, '2008-06-23T16:55:20');
    assert.deepEqual(data.fmselect, ['a', 'b']);
    assert.deepEqual(data.fjson, { a: [1, 2] });
    assert.ok(!('pool_type' in data));
  });

  test('partial data without the required field fails; Extract returns data in both cases', async () => {
    const form = new Form({ fields: type1.data });
    const partial = { ftext: 'x', flist: 'item 1' };
    const [ok, , errors] = await form.validate(partial);
    assert.equal(ok, false);
    assert.deepEqual(errors, [{ field: 'fnumber', messages: ['Required'] }]);
    const [, d1] = await form.extract(partial);
    assert.deepEqual(d1, { ftext: 'x', flist: 'item 1', fmselect: [] });
    const [, d2] = await form.extract(fullData);
    assert.equal(d2.fnumber, 123456);
  });

  test('removeNull and removeEmpty', async () => {
    const form = new Form({ fields: [{ id: 'a', datatype: 'number' }, { id: 'b' }, { id: 'c', datatype: 'lines' }] });
    const [, kept] = await form.validate({ a: '', b: '', c: '' }, false);
    assert.deepEqual(kept, { a: null, b: '', c: [] });
    const [, dropped] = await form.validate({ a: '', b: '', c: '' });
    assert.deepEqual(dropped, { b: '', c: [] });
    const [, none] = await form.extract({ a: '', b: '', c: '' }, true, true);
    assert.deepEqual(none, {});
  });

  test('validateSchema and extractSchema take app values', async () => {
    const form = new Form({
      fields: [
        { id: 'n', datatype: 'number', required: true },
        { id: 'l', datatype: 'multilist' },
      ],
    });
    assert.deepEqual(await form.validateSchema({ n: 5, l: ['x'] }), [true, { n: 5, l: ['x'] }, []]);
    const [ok, data, errors] = await form.validateSchema({ l: 'x' });
    assert.equal(ok, false);
    assert.deepEqual(data, { l: 'x' });
    assert.equal(errors[0]?.field, 'n');
    assert.deepEqual(await form.extractSchema({ n: 'bad' }), [false, { n: 'bad' }]);
    assert.deepEqual(await form.extractSchema({ n: '7' }), [true, { n: 7 }]);
  });
});

describe('subsets (test_values2/3)', () => {
  test('a subset with ids validates the partial data', async () => {
    const form = new Form({ app, loadFromType: 'type1', subsets: { s: { fields: ['ftext', 'title'] } } });
    await form.setup('s');
    assert.deepEqual(
      form.getFields().map((f) => f.id),
      ['ftext', 'title'],
    );
    assert.equal((await form.validate({ ftext: 'x' }))[0], true);
  });

  test('subsets of the type configuration are used when the form has none', async () => {
    const form = new Form({ app, loadFromType: 'type1' });
    await form.setup('partial');
    assert.deepEqual(
      form.getFields().map((f) => f.id),
      ['ftext', 'fnumber'],
    );
  });

  test('inline FieldConf and inline custom schema work', async () => {
    const form = new Form({
      app,
      loadFromType: 'type1',
      subsets: {
        s: {
          fields: ['ftext', { id: 'mail', datatype: 'email' }, { id: 'code', schema: z.string().regex(/^[A-Z]{3}$/) }],
        },
      },
    });
    await form.setup('s');
    assert.equal((await form.validate({ mail: 'a@b.example', code: 'ABC' }))[0], true);
    const [ok, , errors] = await form.validate({ mail: 'nope', code: 'abc' });
    assert.equal(ok, false);
    assert.deepEqual(
      errors.map((e) => e.field),
      ['mail', 'code'],
    );
  });

  test('any Standard Schema implementation works (not only zod), sync or async', async () => {
    const upper: StandardSchemaV1<unknown, string> = {
      '~standard': {
        version: 1,
        vendor: 'handmade',
        validate: async (v) =>
          typeof v === 'string' && v === v.toUpperCase()
            ? { value: `<${v}>` }
            : { issues: [{ message: 'Upper case only' }] },
      },
    };
    const form = new Form({ fields: [{ id: 'code', schema: upper, required: true }] });
    assert.deepEqual(await form.validate({ code: 'ABC' }), [true, { code: '<ABC>' }, []]);
    assert.deepEqual((await form.validate({ code: 'abc' }))[2], [{ field: 'code', messages: ['Upper case only'] }]);
    assert.deepEqual((await form.validate({}))[2], [{ field: 'code', messages: ['Required'] }]);
  });

  test('an unknown subset and an unknown field id throw ConfigurationError', async () => {
    const form = new Form({ app, loadFromType: 'type1' });
    await assert.rejects(form.setup('test3'), ConfigurationError);
    const f2 = new Form({ app, loadFromType: 'type1', subsets: { s: { fields: ['nope'] } } });
    await assert.rejects(f2.setup('s'), /Form field lookup failed: nope/);
    await assert.rejects(new Form({ loadFromType: 'missing', app }).setup(), /Type not found/);
    await assert.rejects(new Form({}).setup(), /No form fields defined/);
  });

  test('subset actions and options apply', async () => {
    const form = new HTMLForm({
      fields: [{ id: 'a' }],
      actions,
      subsets: { s: { actions: ['create', 'nope'], options: { formid: 'sub' } } },
    });
    await form.setup('s');
    assert.deepEqual(
      form.getActions().map((a) => a.id),
      ['create'],
    );
    assert.equal(form.options.formid, 'sub');
  });
});

describe('HTML (test_html*)', () => {
  test('render after failure and after success, and a subset with an inline number field', async () => {
    const form = new HTMLForm({ fields: type1.data });
    const [ok, data, errors] = await form.validate({ ftext: 'x' });
    assert.equal(ok, false);
    const failed = dom(await form.render(data, [], errors));
    assert.equal(attr(failed.byId('upload-fnumber'), 'aria-invalid'), 'true');
    const [ok2, data2] = await form.validate(fullData);
    assert.equal(ok2, true);
    const good = dom(await form.render(data2));
    assert.equal(attr(good.byId('upload-fnumber'), 'value'), '123456');
    const sub = new HTMLForm({
      app,
      loadFromType: 'type1',
      subsets: { s: { fields: ['ftext', { id: 'extra', datatype: 'number', name: 'Extra' }] } },
    });
    await sub.setup('s');
    const d = dom(await sub.render({ extra: 5 }));
    assert.equal(attr(d.byId('upload-extra'), 'value'), '5');
  });
});

describe('actions (test_actions)', () => {
  test('3 actions, 1 hidden', async () => {
    const form = new HTMLForm({ fields: [{ id: 'a' }], actions });
    await form.setup();
    assert.equal(form.getActions(false).length, 3);
    assert.equal(form.getActions(true).length, 2);
  });
});

describe('FieldConf → node (test_reformed)', () => {
  test('every datatype has a conversion, and an unknown one is a configuration error', () => {
    for (const dt of [
      'string',
      'text',
      'number',
      'float',
      'bool',
      'datetime',
      'date',
      'time',
      'list',
      'radio',
      'multilist',
      'checkbox',
      'email',
      'url',
      'password',
      'json',
      'lines',
      'file',
      'hidden',
    ]) {
      assert.ok(datatypes[dt], dt);
      compileField({ id: 'x', datatype: dt }, { t: createTranslator(), items: [] });
    }
    assert.throws(
      () => compileField({ id: 'x', datatype: 'timestamp' }, { t: createTranslator(), items: [] }),
      ConfigurationError,
    );
  });

  test('a hidden field renders one hidden input and no label', async () => {
    const form = new HTMLForm({ fields: [{ id: 'h', datatype: 'number', hidden: true, name: 'H' }] });
    const d = dom(await form.render({ h: 3 }));
    const inputs = d.tag('input');
    assert.equal(inputs.length, 1);
    assert.equal(attr(inputs[0], 'type'), 'hidden');
    assert.equal(d.tag('label').length, 0);
    assert.deepEqual(await form.validate({ h: '3' }), [true, { h: 3 }, []]);
  });

  test('a node is used as is unless forced', async () => {
    const node: FieldNode = { parse: async (v) => ({ ok: true, value: `node:${String(v)}` }), widget: 'textarea' };
    const field = { id: 'x', datatype: 'number', node };
    const form = new HTMLForm({ fields: [field] });
    assert.deepEqual((await form.validate({ x: 'a' }))[1], { x: 'node:a' });
    assert.equal(dom(await form.render({})).tag('textarea').length, 1);
    const [forced] = await form.defaultSchemaFactory([field], true);
    assert.deepEqual(await forced!.node.parse('a', { t: createTranslator(), form, values: {} }), {
      ok: false,
      messages: ['"a" is not a number'],
    });
  });

  test('validators: sync, async, returning a message, throwing ValidationError', async () => {
    const form = new Form({
      fields: [
        { id: 'a', validator: (v) => (v === 'bad' ? 'Bad value' : undefined) },
        {
          id: 'b',
          validator: async (v) => {
            await new Promise((r) => setTimeout(r, 5));
            if (v === 'taken') throw new ValidationError('"${val}" is taken', { val: v });
          },
        },
      ],
    });
    assert.equal((await form.validate({ a: 'ok', b: 'free' }))[0], true);
    const [, , errors] = await form.validate({ a: 'bad', b: 'taken' });
    assert.deepEqual(errors, [
      { field: 'a', messages: ['Bad value'] },
      { field: 'b', messages: ['"taken" is taken'] },
    ]);
  });

  test('a validator gets the form and all values; other exceptions propagate', async () => {
    const seen: unknown[] = [];
    const form = new Form({
      fields: [
        {
          id: 'a',
          validator: (_v, ctx) => {
            seen.push(ctx.form, ctx.values.other);
          },
        },
        {
          id: 'boom',
          validator: () => {
            throw new Error('db down');
          },
        },
      ],
    });
    await assert.rejects(form.validate({ a: 'x', other: 'y', boom: 'z' }), /db down/);
    assert.equal(seen[0], form);
    assert.equal(seen[1], 'y');
  });

  test('widget as a registered name or as an object', async () => {
    registerWidget('color', textInput('color'));
    const form = new HTMLForm({
      fields: [
        { id: 'c', widget: 'color' },
        { id: 's', widget: textInput('search') },
      ],
    });
    const d = dom(await form.render({}));
    assert.equal(attr(d.byId('upload-c'), 'type'), 'color');
    assert.equal(attr(d.byId('upload-s'), 'type'), 'search');
    await assert.rejects(new HTMLForm({ fields: [{ id: 'x', widget: 'nope' }] }).render({}), /Unknown widget/);
  });

  test('required and optional with a default', async () => {
    const form = new HTMLForm({
      fields: [
        { id: 'r', required: true },
        { id: 'o', default: 'dflt' },
      ],
    });
    assert.deepEqual(await form.loadDefaultData(), { o: 'dflt' });
    const [, , errors] = await form.validate({ r: '   ' });
    assert.deepEqual(errors, [{ field: 'r', messages: ['Required'] }]);
  });

  test('hidden actions produce no button', async () => {
    const form = new HTMLForm({
      fields: [{ id: 'a' }],
      actions: [
        { id: 'default', method: 'startForm', hidden: true },
        { id: 'save', method: 'processForm', name: 'Save' },
      ],
    });
    const d = dom(await form.render({}));
    const buttons = d.tag('button');
    assert.equal(buttons.length, 1);
    assert.equal(attr(buttons[0], 'name'), 'save$');
  });

  test('loadObjData reads data, meta and files, blanks passwords', async () => {
    const form = new Form({
      fields: [
        { id: 'title' },
        { id: 'owner' },
        { id: 'pw', datatype: 'password' },
        { id: 'doc', datatype: 'file' },
        { id: 'ro', readonly: true },
      ],
    });
    const obj = {
      data: { title: 'T', pw: 'secret', ro: 1 },
      meta: { owner: 'ann' },
      files: { doc: { filename: 'a.txt', size: 3 } },
    };
    assert.deepEqual(await form.loadObjData(obj), {
      title: 'T',
      owner: 'ann',
      pw: '',
      doc: { filename: 'a.txt', size: 3 },
    });
    const ctxForm = new Form({ fields: [{ id: 'title' }], context: obj });
    assert.deepEqual(await ctxForm.loadObjData(), { title: 'T' });
  });

  test('convertFileUpload builds the file object', () => {
    const form = new Form({
      fields: [{ id: 'f', datatype: 'file' }],
      request: { body: { f: { filename: 'a.txt', size: 3, data: new Uint8Array(3) } } },
    });
    assert.deepEqual(form.convertFileUpload('f'), {
      filename: 'a.txt',
      size: 3,
      data: new Uint8Array(3),
      filekey: 'f',
      tempfile: true,
    });
    assert.equal(form.convertFileUpload('nope'), undefined);
  });
});
