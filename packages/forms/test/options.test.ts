// The seed's option table and layout settings: each option changes what it says.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HTMLForm,
  formRequestFromWeb,
  presets,
  type ActionConf,
  type FieldConf,
  type FormInit,
  type ListItem,
  type Subset,
} from '../src/index.js';
import { attr, classes, dom, hasAttr, inside, text } from './helpers/html.js';

const fields = [{ id: 'name', name: 'Name', description: 'Help' }];
const actions: ActionConf[] = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'save', method: 'processForm', name: 'Save' },
];
const render = async (init: FormInit = {}) => dom(await new HTMLForm({ fields, actions, ...init }).render({}));
const formTag = (d: ReturnType<typeof dom>) => d.tag('form')[0];

describe('HTML form options', () => {
  test('defaults: formid upload, css_class form, method POST, no action, multipart', async () => {
    const f = formTag(await render());
    assert.equal(attr(f, 'id'), 'upload');
    assert.equal(attr(f, 'class'), 'form');
    assert.equal(attr(f, 'method'), 'post');
    assert.equal(attr(f, 'enctype'), 'multipart/form-data');
    assert.equal(hasAttr(f, 'action'), false);
  });

  test('formid sets the form id and prefixes input ids and button ids', async () => {
    const d = await render({ formid: 'signup' });
    assert.equal(attr(formTag(d), 'id'), 'signup');
    assert.ok(d.byId('signup-name'));
    assert.ok(d.byId('signupsave$'));
  });

  test('css_class', async () => {
    assert.equal(attr(formTag(await render({ css_class: 'form-horizontal' })), 'class'), 'form-horizontal');
  });

  test('actionPostfix names the buttons and the lookup', async () => {
    const d = await render({ actionPostfix: '!' });
    const form = new HTMLForm({ fields, actions, actionPostfix: '!', request: { body: { 'save!': '1', name: 'x' } } });
    assert.equal((await form.process()).action.id, 'save');
    const dollar = new HTMLForm({ fields, actions, actionPostfix: '!', request: { body: { save$: '1', name: 'x' } } });
    assert.equal((await dollar.process()).action.id, 'default');
    assert.equal(attr(d.tag('button')[0], 'name'), 'save!');
    assert.equal(attr(d.tag('button')[0], 'value'), 'save!');
  });

  test('method GET: form method get, no enctype, values read from the query', async () => {
    const f = formTag(await render({ method: 'GET' }));
    assert.equal(attr(f, 'method'), 'get');
    assert.equal(hasAttr(f, 'enctype'), false);
    const form = new HTMLForm({
      fields,
      actions,
      method: 'GET',
      request: { query: { name: 'q', save$: '1' }, body: { name: 'b' } },
    });
    assert.deepEqual((await form.process()).result, { name: 'q' });
  });

  test('action and anchor', async () => {
    assert.equal(attr(formTag(await render({ action: '/submit' })), 'action'), '/submit');
    assert.equal(attr(formTag(await render({ action: '/submit', anchor: 'form' })), 'action'), '/submit#form');
    assert.equal(attr(formTag(await render({ anchor: '#top' })), 'action'), '#top');
  });

  test('use_ajax marks the form for the script; uploadProgressBar auto/always/none', async () => {
    assert.equal(hasAttr(formTag(await render()), 'data-ajax'), false);
    const auto = await render({ use_ajax: true });
    assert.equal(attr(formTag(auto), 'data-ajax'), 'true');
    assert.equal(attr(formTag(auto), 'data-progress'), 'auto');
    const bar = auto.find((e) => hasAttr(e, 'data-roost-progress'));
    assert.ok(bar && hasAttr(bar, 'hidden'), 'the bar starts hidden');
    assert.equal(attr(inside(bar, (e) => attr(e, 'role') === 'progressbar')[0], 'aria-valuemax'), '100');
    const column = auto.find((e) => attr(e, 'class') === 'col-md-7' && inside(e, (x) => x === bar).length > 0);
    assert.ok(column, 'in the three-column layout the bar sits under the inputs, in the grid');
    assert.equal(
      attr(formTag(await render({ use_ajax: true, uploadProgressBar: 'always' })), 'data-progress'),
      'always',
    );
    const none = await render({ use_ajax: true, uploadProgressBar: 'none' });
    assert.equal(
      none.find((e) => hasAttr(e, 'data-roost-progress')),
      undefined,
    );
    assert.equal(
      (await render({ uploadProgressBar: 'always' })).find((e) => hasAttr(e, 'data-roost-progress')),
      undefined,
      'no bar without ajax',
    );
  });

  test('renderSuccess, successResponseBody, redirectSuccess, redirectCancel as options', async () => {
    const post = (body: Record<string, string>) => ({ body });
    const rs = await new HTMLForm({
      fields,
      actions,
      renderSuccess: false,
      request: post({ name: 'x', save$: '1' }),
    }).process({ success_message: 'm' });
    assert.equal(dom(rs.html).tag('form').length, 0);
    const srb = await new HTMLForm({
      fields,
      actions,
      successResponseBody: 'body',
      request: post({ name: 'x', save$: '1' }),
    }).process();
    assert.equal(srb.response?.body, 'body');
    const red = await new HTMLForm({
      fields,
      actions,
      redirectSuccess: '/ok',
      request: post({ name: 'x', save$: '1' }),
    }).process();
    assert.equal(red.response?.headers.Location, '/ok');
    const cancel: ActionConf[] = [...actions, { id: 'cancel', method: 'cancel' }];
    const rc = await new HTMLForm({
      fields,
      actions: cancel,
      redirectCancel: '/back',
      request: post({ cancel$: '1' }),
    }).process();
    assert.equal(rc.response?.headers.Location, '/back');
  });

  test('startEmpty ignores defaults; novalidate, autofill, footer', async () => {
    const withDefault = [{ id: 'name', default: 'dflt' }];
    const [, full] = await new HTMLForm({ fields: withDefault, actions }).startForm(actions[0]!);
    assert.equal(attr(dom(full).byId('upload-name'), 'value'), 'dflt');
    const [, empty] = await new HTMLForm({ fields: withDefault, actions, startEmpty: true }).startForm(actions[0]!);
    assert.equal(attr(dom(empty).byId('upload-name'), 'value'), '');
    const d = await render({ novalidate: true, autofill: 'off', footer: '<em>fine print</em>' });
    assert.ok(hasAttr(formTag(d), 'novalidate'));
    assert.equal(attr(formTag(d), 'autocomplete'), 'off');
    assert.equal(text(d.tag('em')[0]), 'fine print');
  });

  test('hiddenValues: escaped hidden inputs inside the form tag (a CSRF token)', async () => {
    const d = await render({ hiddenValues: { csrf: 'a"b<c', next: '/x' } });
    const hidden = d.filter((e) => e.tagName === 'input' && attr(e, 'type') === 'hidden');
    assert.deepEqual(
      hidden.map((e) => [attr(e, 'name'), attr(e, 'value')]),
      [
        ['csrf', 'a"b<c'],
        ['next', '/x'],
      ],
    );
    assert.ok(
      hidden.every((e) => inside(formTag(d)!, (x) => x === e).length === 1),
      'inside the form',
    );
    assert.equal((await render()).filter((e) => attr(e, 'type') === 'hidden').length, 0, 'none by default');
  });

  test('applyOptions: widget.* keys, the widget object (a preset), useAjax alias', () => {
    const form = new HTMLForm({ fields, actions });
    form.applyOptions({
      useAjax: true,
      'widget.item_template': 'field_onecolumn',
      'widget.settings': { column1_css: 'c1' },
    });
    assert.equal(form.options.use_ajax, true);
    assert.equal(form.widget.item_template, 'field_onecolumn');
    assert.equal(form.widget.settings.column1_css, 'c1');
    assert.equal(form.widget.settings.column2_css, 'col-md-7', 'settings are merged');
    form.applyOptions({ widget: presets.bootstrap5 });
    assert.equal(form.widget.classes.select, presets.bootstrap5.classes?.select);
    assert.equal(form.widget.settings.column1_css, 'col-sm-3');
    assert.equal(form.widget.item_template, 'field_onecolumn', 'what the preset does not set stays');
  });
});

describe('layout settings', () => {
  test('default three columns with column1_css..column3_css', async () => {
    const d = await render();
    const item = d.byId('item-name')!;
    const cols = item.childNodes.filter((n) => 'tagName' in n);
    assert.equal(cols.length, 3);
    assert.ok(classes(cols[0] as never).includes('col-md-2'));
    assert.ok(classes(cols[1] as never).includes('col-md-7'));
    assert.ok(classes(cols[2] as never).includes('col-md-3'));
    const custom = await render({
      widget: { settings: { column1_css: 'one', column2_css: 'two', column3_css: 'three' } },
    });
    const c2 = custom.byId('item-name')!.childNodes.filter((n) => 'tagName' in n);
    assert.deepEqual(
      c2.map((n) => classes(n as never).at(-1)),
      ['one', 'two', 'three'],
    );
    const actionsRow = custom.find((e) => classes(e).includes('form-actions'))!;
    assert.ok(inside(actionsRow, (e) => classes(e).includes('one')).length === 1);
  });

  test('item_template field_onecolumn and action_template form_actions_onecolumn', async () => {
    const form = new HTMLForm({ fields, actions });
    form.applyOptions({
      'widget.item_template': 'field_onecolumn',
      'widget.action_template': 'form_actions_onecolumn',
    });
    const d = dom(await form.render({}));
    const item = d.byId('item-name')!;
    assert.ok(classes(item).includes('control-group'));
    assert.equal(inside(item, (e) => /col-md/.test(attr(e, 'class') ?? '')).length, 0);
    assert.equal(attr(inside(item, (e) => e.tagName === 'p')[0], 'id'), 'upload-name-help');
    const acts = d.find((e) => classes(e).includes('form-actions'))!;
    assert.equal(inside(acts, (e) => classes(e).includes('row')).length, 0);
  });

  test('css classes are configurable (no framework baked in)', async () => {
    const d = await render({ widget: { classes: { input: 'input', item: 'field', button: 'button' } } });
    assert.deepEqual(classes(d.byId('upload-name')), ['input']);
    assert.deepEqual(classes(d.byId('item-name')), ['field']);
  });
});

describe('mistakes fail loudly', () => {
  test('every option is checked by one schema: unknown, misplaced or mistyped options throw with their name', () => {
    const mistakes: [Record<string, unknown>, RegExp][] = [
      [{ widgets: presets.bootstrap5 }, /(Unknown option|Option) "widgets"/],
      [{ widget: { clases: {} } }, /Unknown option "widget\.clases".*classes/],
      [{ required: true }, /Unknown option "required"/],
      [{ datatype: 'email' }, /Unknown option "datatype"/],
      [{ use_ajax: 'yes' }, /Option "use_ajax"/],
      [{ method: 'PUT' }, /Option "method".*POST, GET/],
      [{ uploadProgressBar: 'sometimes' }, /Option "uploadProgressBar"/],
      [{ hiddenValues: { csrf: 1 } }, /Option "hiddenValues\.csrf"/],
      [{ formid: 7 }, /Option "formid"/],
      [{ 'widget.item_template': 3 }, /Option "widget\.item_template"/],
      [{ redirectSuccess: 5 }, /Option "redirectSuccess"/],
      [{ translate: 'de' }, /Option "translate"/],
    ];
    for (const [options, message] of mistakes) {
      const form = new HTMLForm({ fields, actions });
      assert.throws(() => form.applyOptions(options), { name: 'ConfigurationError', message }, JSON.stringify(options));
      assert.throws(() => new HTMLForm({ fields, actions, ...options } as FormInit), message);
    }
  });

  test('fields, list items, actions and subsets: an unknown key or a wrong kind throws with its name', async () => {
    const cases: [FormInit, RegExp][] = [
      [{ fields: [{ id: 'email', requried: true } as FieldConf] }, /Field "email": unknown key "requried"/],
      [
        { fields: [{ id: 'age', datatype: 'number', use_ajax: true } as FieldConf] },
        /Field "age": unknown key "use_ajax"/,
      ],
      [{ fields: [{ id: 'n', required: 'yes' } as unknown as FieldConf] }, /Field "n": "required"/],
      [
        { fields: [{ id: 's', datatype: 'list', listItems: [{ id: 'a', title: 'A' } as unknown as ListItem] }] },
        /Field "s", list item "a": .*unknown key "title"/,
      ],
      [
        { fields: [{ id: 'g', datatype: 'group', fields: [{ id: 'street', requird: true } as FieldConf] }] },
        /Field "street": unknown key "requird"/,
      ],
      [
        { fields, actions: [{ id: 'save', method: 'processForm', css_class: 'btn' } as ActionConf] },
        /Action "save": unknown key "css_class"/,
      ],
      [
        { fields, actions, subsets: { edit: { field: ['name'] } as Subset }, subset: 'edit' },
        /Subset "edit": unknown key "field"/,
      ],
    ];
    for (const [init, message] of cases) {
      await assert.rejects(new HTMLForm(init).render({}), { name: 'ConfigurationError', message }, String(message));
    }
  });

  test('the options of a subset are checked too', async () => {
    const form = new HTMLForm({ fields, actions, subsets: { edit: { actions: ['save'], options: { formId: 'x' } } } });
    await assert.rejects(form.setup('edit'), { name: 'ConfigurationError', message: /Unknown option "formId"/ });
  });

  test('an unknown widget.* option is refused with its name', () => {
    const form = new HTMLForm({ fields, actions });
    assert.throws(() => form.applyOptions({ 'widget.item_templat': 'field_onecolumn' }), {
      name: 'ConfigurationError',
      message: /"widget\.item_templat".*item_template/,
    });
    assert.throws(() => new HTMLForm({ fields, actions, 'widget.clases': {} } as FormInit), /widget\.clases/);
  });

  test('a redirect placeholder nothing resolves throws before any action runs, not Location: obj_url', async () => {
    const saved: unknown[] = [];
    const post = () =>
      formRequestFromWeb(
        new Request('http://localhost/', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=Ada&save%24=Save',
        }),
      );
    const form = new HTMLForm({ fields, actions, request: await post() });
    form.listenEvent('success', ({ data }) => saved.push(data));
    await assert.rejects(form.process({ redirectSuccess: 'obj_url/edit' }), {
      name: 'ConfigurationError',
      message: /placeholder obj_url.*view\.urls\.obj_url/,
    });
    assert.deepEqual(saved, [], 'nothing was processed');
    const configured = new HTMLForm({ fields, actions, redirectCancel: 'parent_url' });
    await assert.rejects(configured.process(), /parent_url/);
    const resolved = new HTMLForm({
      fields,
      actions,
      request: await post(),
      view: { urls: { obj_url: () => '/items/7' } },
    });
    const { response } = await resolved.process({ redirectSuccess: 'obj_url/edit' });
    assert.equal(response?.headers.Location, '/items/7/edit');
  });
});
