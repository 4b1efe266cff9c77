// The wizard (src/wizard/): each step validates its own subset only, Back and Next keep what was
// typed, the state in the page is signed (a changed byte, or a state of another form, is refused)
// or kept in the session, the whole is validated again at the end (a wrong earlier step is caught
// and shown on its step), uploads wait in the stash across steps; the step indicator is a list
// with aria-current. Every step is a real request through `process()`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ConfigurationError,
  sessionWizardStore,
  WizardForm,
  WizardStateError,
  WizardStateExpiredError,
  wizardStateKey,
  type FormData,
  type FormValues,
  type KeptWizardState,
  type WizardState,
} from '../src/index.js';
import { alerts, attr, dom, text } from './helpers/html.js';

const secret = 'a test secret of thirty-two chars!';
const fields = [
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
  { id: 'age', name: 'Age', datatype: 'number', required: true, min: 18 },
  { id: 'name', name: 'Name', required: true },
  { id: 'avatar', name: 'Avatar', datatype: 'file' },
] as const;
const subsets = { account: { fields: ['email', 'age'] }, profile: { fields: ['name', 'avatar'] } };
const steps = [
  { subset: 'account', name: 'Account' },
  { subset: 'profile', name: 'Profile' },
];

type Store = { store: ReturnType<typeof sessionWizardStore> } | { secret: string };

/** One request to a new wizard form (as a host builds one per request). */
const submit = (body: FormValues, keep: Store = { secret }, method = 'POST') => {
  const form = new WizardForm({ fields, subsets, steps, formid: 'signup', request: { method, body }, ...keep });
  return form.process();
};
/** A state signed as the app signs it (wizard/wizard-state.ts), written at `issued`. */
const signed = (state: WizardState, issued: number): string => {
  const payload = Buffer.from(JSON.stringify({ ...state, issued })).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(`signup.${payload}`).digest('base64url')}`;
};
const stateOf = (html: string): string => {
  const input = dom(html).find((e) => attr(e, 'name') === wizardStateKey);
  assert.ok(input, 'the page carries the state');
  return attr(input, 'value') ?? '';
};
const inputValue = (html: string, name: string) =>
  attr(
    dom(html).find((e) => attr(e, 'name') === name),
    'value',
  );
const current = (html: string) => text(dom(html).find((e) => attr(e, 'aria-current') === 'step'));
const buttons = (html: string) =>
  dom(html)
    .filter((e) => e.tagName === 'button' && !attr(e, 'data-roost-default'))
    .map((e) => attr(e, 'name'));

describe('wizard steps', () => {
  test('the first page: step one of a list of steps, aria-current on it, Next only', async () => {
    const { html, step } = await submit({}, { secret }, 'GET');
    assert.equal(step, 'account');
    const nav = dom(html).find((e) => e.tagName === 'nav');
    assert.equal(attr(nav, 'aria-label'), 'Steps');
    assert.deepEqual(
      dom(html)
        .tag('li')
        .map((li) => text(li)),
      ['Account', 'Profile'],
    );
    assert.equal(current(html), 'Account');
    assert.deepEqual(buttons(html), ['next$']);
    assert.ok(
      inputValue(html, 'signup-email') === undefined && dom(html).byId('signup-email'),
      'step one asks for email',
    );
    assert.equal(dom(html).byId('signup-name'), undefined, 'and not for the name of step two');
  });

  test('Next validates the step only; Back and Next keep every value; Finish gives the whole, typed', async () => {
    const first = await submit({}, { secret }, 'GET');
    const bad = await submit({ [wizardStateKey]: stateOf(first.html), email: 'ada@example.org', age: '12', next$: '' });
    assert.equal(bad.result, false);
    assert.equal(bad.step, 'account');
    assert.match(alerts(bad.html).join(' '), /Less than the minimum 18/);
    assert.doesNotMatch(alerts(bad.html).join(' '), /Name/, 'step two is not validated yet');

    const two = await submit({ [wizardStateKey]: stateOf(bad.html), email: 'ada@example.org', age: '36', next$: '' });
    assert.equal(two.step, 'profile');
    assert.equal(current(two.html), 'Profile');
    assert.match(
      text(dom(two.html).find((e) => e.tagName === 'li' && attr(e, 'class') === 'done')),
      /Account \(done\)/,
    );
    assert.deepEqual(buttons(two.html), ['finish$', 'back$']);

    const back = await submit({ [wizardStateKey]: stateOf(two.html), name: 'Ada L', back$: '' });
    assert.equal(back.step, 'account');
    assert.equal(inputValue(back.html, 'email'), 'ada@example.org');
    assert.equal(inputValue(back.html, 'age'), '36');

    const again = await submit({
      [wizardStateKey]: stateOf(back.html),
      email: 'ada@example.org',
      age: '37',
      next$: '',
    });
    assert.equal(inputValue(again.html, 'name'), 'Ada L', 'what was typed before Back is there');

    const done = await submit({ [wizardStateKey]: stateOf(again.html), name: 'Ada Lovelace', finish$: '' });
    assert.deepEqual(done.data, { email: 'ada@example.org', age: 37, name: 'Ada Lovelace' });
    const typed: FormData<typeof fields> | undefined = done.data;
    if (typed) {
      const age: number = typed.age;
      assert.equal(age, 37);
    }
  });

  test('Finish on a step that is not the last does nothing but show the step again', async () => {
    const first = await submit({}, { secret }, 'GET');
    const r = await submit({ [wizardStateKey]: stateOf(first.html), email: 'a@b.example', age: '40', finish$: '' });
    assert.equal(r.step, 'account');
    assert.equal(r.data, undefined);
  });
});

describe("wizard history (goto$, what the script sends for the browser's Back and Forward over ajax)", () => {
  const three = { account: subsets.account, name: { fields: ['name'] }, avatar: { fields: ['avatar'] } };
  const go = (body: FormValues, method = 'POST') =>
    new WizardForm({
      fields,
      subsets: three,
      steps: ['account', 'name', 'avatar'],
      formid: 'signup',
      secret,
      request: { method, body },
    }).process();
  const nav = (html: string) => dom(html).find((e) => e.tagName === 'nav');

  test('back keeps what was typed, unvalidated; forward validates, stops at the first step not answered', async () => {
    const first = await go({}, 'GET');
    assert.deepEqual(
      [attr(nav(first.html), 'data-roost-step'), attr(nav(first.html), 'data-roost-goto')],
      ['0', 'goto$'],
    );
    const bad = await go({ [wizardStateKey]: stateOf(first.html), email: 'ada@example.org', age: '12', goto$: '2' });
    assert.equal(bad.step, 'account', 'forward validates the step it leaves');
    assert.match(alerts(bad.html).join(' '), /Less than the minimum 18/);
    const two = await go({ [wizardStateKey]: stateOf(bad.html), email: 'ada@example.org', age: '36', goto$: '2' });
    assert.equal(two.step, 'name', 'not past the name, never answered');
    assert.equal(attr(nav(two.html), 'data-roost-step'), '1');
    const back = await go({ [wizardStateKey]: stateOf(two.html), name: '', goto$: '0' });
    assert.equal(back.step, 'account', 'back never validates');
    assert.equal(inputValue(back.html, 'email'), 'ada@example.org');
    const stay = await go({ [wizardStateKey]: stateOf(back.html), email: 'ada@example.org', age: '36', goto$: 'x' });
    assert.equal(stay.step, 'account', 'a step that is not there shows this one again');
    const named = await go({ [wizardStateKey]: stateOf(stay.html), email: 'ada@example.org', age: '36', next$: '' });
    const third = await go({ [wizardStateKey]: stateOf(named.html), name: 'Ada', next$: '' });
    assert.equal(third.step, 'avatar');
    const backTwo = await go({ [wizardStateKey]: stateOf(third.html), goto$: '0' });
    const again = await go({
      [wizardStateKey]: stateOf(backTwo.html),
      email: 'bob@example.org',
      age: '40',
      goto$: '2',
    });
    assert.equal(again.step, 'avatar', 'forward over steps answered before');
    const done = await go({ [wizardStateKey]: stateOf(again.html), finish$: '' });
    assert.deepEqual(done.data, { email: 'bob@example.org', age: 40, name: 'Ada' });
    assert.ok(nav(done.html), 'the form shown again after Finish');
    assert.equal(attr(nav(done.html), 'data-roost-step'), undefined, 'takes no step in the history');
  });
});

describe('wizard data types', () => {
  test("a step's data has every field optional (it has some fields only); the finished data the required", async () => {
    const form = new WizardForm({ fields, subsets, steps, secret, request: { method: 'GET' } });
    const seen: Array<number | null | undefined> = [];
    form.listenEvent('process', ({ data }) => {
      seen.push(data.age);
      // @ts-expect-error on step two, age is not there: a step's data is not typed with another step's fields
      const sure: number = data.age;
      return sure;
    });
    const r = await form.process();
    if (r.data) {
      const age: number = r.data.age;
      assert.ok(age >= 18);
    }
    assert.deepEqual(seen, [], 'no step was validated on the first page');
  });
});

describe('wizard state', () => {
  test('a changed byte of the signed state is refused: step one again, a clear message, nothing used', async () => {
    const first = await submit({}, { secret }, 'GET');
    const two = await submit({ [wizardStateKey]: stateOf(first.html), email: 'ada@example.org', age: '36', next$: '' });
    const [payload = '', signature] = stateOf(two.html).split('.');
    const forged: WizardState = { step: 1, data: { account: { email: 'eve@example.org', age: 99 } } };
    const changed = `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
    assert.notEqual(changed.split('.')[0], payload);
    const r = await submit({ [wizardStateKey]: changed, name: 'Eve', finish$: '' });
    assert.ok(r.stateError instanceof WizardStateError);
    assert.equal(r.step, 'account');
    assert.equal(r.data, undefined);
    assert.equal(r.result, false);
    assert.match(alerts(r.html).join(' '), /could not be used; please start again/);
    assert.doesNotMatch(r.html, /eve@example/, 'the forged e-mail is not shown');
  });

  test('a state signed for another form is refused', async () => {
    const other = new WizardForm({ fields, subsets, steps, formid: 'other', secret, request: { method: 'GET' } });
    const r = await submit({
      [wizardStateKey]: stateOf((await other.process()).html),
      email: 'a@b.example',
      age: '20',
      next$: '',
    });
    assert.ok(r.stateError instanceof WizardStateError);
    assert.equal(r.step, 'account');
  });

  test('the whole is validated again at Finish: a wrong earlier step is shown on its step with its error', async () => {
    // A state the app signed that skips step one's rules (as an older version of the form might have).
    const state: WizardState = { step: 1, data: { account: { email: 'ada@example.org', age: 12 } } };
    const r = await submit({ [wizardStateKey]: signed(state, Date.now()), name: 'Ada', finish$: '' });
    assert.equal(r.data, undefined);
    assert.equal(r.step, 'account');
    assert.match(alerts(r.html).join(' '), /Please check this step again/);
    assert.match(alerts(r.html).join(' '), /Less than the minimum 18/);
  });

  test('in the session: the page carries a key only; a changed session is caught at Finish; done clears', async () => {
    const session: Record<string, unknown> = {};
    const keep = { store: sessionWizardStore(session) };
    const first = await submit({}, keep, 'GET');
    const [key, shown] = stateOf(first.html).split('.');
    assert.match(key ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(shown, '0', 'and the step it shows');
    const two = await submit({ [wizardStateKey]: key, email: 'ada@example.org', age: '36', next$: '' }, keep);
    assert.equal(two.step, 'profile');
    assert.equal(stateOf(two.html), `${key}.1`);
    const saved = session[`roost-wizard:${key}`] as WizardState;
    assert.deepEqual(saved.data.account, { email: 'ada@example.org', age: 36 });
    saved.data.account = { email: 'not an e-mail', age: 36 };
    const caught = await submit({ [wizardStateKey]: key, name: 'Ada', finish$: '' }, keep);
    assert.equal(caught.step, 'account');
    assert.match(alerts(caught.html).join(' '), /Invalid email address/);
    const fixed = await submit({ [wizardStateKey]: key, email: 'ada@example.org', age: '36', next$: '' }, keep);
    const done = await submit({ [wizardStateKey]: stateOf(fixed.html), name: 'Ada', finish$: '' }, keep);
    assert.deepEqual(done.data, { email: 'ada@example.org', age: 36, name: 'Ada' });
    assert.equal(session[`roost-wizard:${key}`], undefined, 'the finished state is gone');
    const unknown = await submit({ [wizardStateKey]: key, name: 'Ada', finish$: '' }, keep);
    assert.ok(unknown.stateError instanceof WizardStateError);
  });

  test('a signed state older than the maximum age is refused: step one, a message, nothing used', async () => {
    const day = 86_400_000;
    const state: WizardState = { step: 1, data: { account: { email: 'ada@example.org', age: 36 } } };
    const old = await submit({ [wizardStateKey]: signed(state, Date.now() - day - 60_000), name: 'Ada', finish$: '' });
    assert.ok(old.stateError instanceof WizardStateExpiredError);
    assert.deepEqual([old.step, old.data, old.result], ['account', undefined, false]);
    assert.match(alerts(old.html).join(' '), /left unused too long; please start again/);
    assert.doesNotMatch(old.html, /ada@example/, 'the old answers are not shown');
    const recent = await submit({
      [wizardStateKey]: signed(state, Date.now() - day + 60_000),
      name: 'Ada',
      finish$: '',
    });
    assert.deepEqual(recent.data, { email: 'ada@example.org', age: 36, name: 'Ada' }, 'within a day it goes on');
    // The age counts from the request that wrote the state: the form's own state, with `maxAgeMs`.
    const short = (body: FormValues) =>
      new WizardForm({
        fields,
        subsets,
        steps,
        formid: 'signup',
        secret,
        maxAgeMs: 150,
        request: { method: 'POST', body },
      }).process();
    const first = await short({});
    const two = await short({ [wizardStateKey]: stateOf(first.html), email: 'ada@example.org', age: '36', next$: '' });
    assert.equal(two.step, 'profile');
    await sleep(200);
    const late = await short({ [wizardStateKey]: stateOf(two.html), name: 'Ada', finish$: '' });
    assert.ok(late.stateError instanceof WizardStateExpiredError);
    assert.equal(late.step, 'account');
  });

  /** A wizard kept in a session, its first step answered: the session, the store, both pages. */
  async function sessionAtSecondStep() {
    const session: Record<string, unknown> = {};
    const keep = { store: sessionWizardStore(session) };
    const first = await submit({}, keep, 'GET');
    const two = await submit(
      { [wizardStateKey]: stateOf(first.html), email: 'ada@example.org', age: '36', next$: '' },
      keep,
    );
    return { session, keep, first, two };
  }

  test('in the session: a state saved longer ago than the maximum age is refused and forgotten', async () => {
    const { session, keep, two } = await sessionAtSecondStep();
    const [key] = stateOf(two.html).split('.');
    const saved = session[`roost-wizard:${key}`] as KeptWizardState;
    saved.issued -= 86_400_000 + 60_000;
    const r = await submit({ [wizardStateKey]: stateOf(two.html), name: 'Ada', finish$: '' }, keep);
    assert.ok(r.stateError instanceof WizardStateExpiredError);
    assert.deepEqual([r.step, r.data], ['account', undefined]);
    assert.match(alerts(r.html).join(' '), /left unused too long/);
    assert.equal(session[`roost-wizard:${key}`], undefined, 'the old state is gone from the session');
  });

  test("in the session: a page the browser's history returns to goes on from its own step", async () => {
    const { keep, first, two } = await sessionAtSecondStep();
    assert.equal(two.step, 'profile');
    // The browser's Back shows step one's page again (its hidden field as it was); Next from there.
    const again = await submit(
      { [wizardStateKey]: stateOf(first.html), email: 'bob@example.org', age: '40', next$: '' },
      keep,
    );
    assert.equal(again.step, 'profile', "step one's fields were taken as step one's");
    assert.equal(alerts(again.html).length, 0);
    const done = await submit({ [wizardStateKey]: stateOf(again.html), name: 'Bob', finish$: '' }, keep);
    assert.deepEqual(done.data, { email: 'bob@example.org', age: 40, name: 'Bob' });
  });

  test('refused when built: no secret nor store, a short secret, a password in a signed state', () => {
    assert.throws(() => new WizardForm({ fields, subsets, steps }), ConfigurationError);
    for (const maxAgeMs of [0, -1, Number.NaN])
      assert.throws(() => new WizardForm({ fields, subsets, steps, secret, maxAgeMs }), /Option "maxAgeMs"/);
    assert.throws(() => new WizardForm({ fields, subsets, steps, secret: 'short' }), /at least 32 characters/);
    const withPassword = [...fields, { id: 'pw', name: 'Password', datatype: 'password' }];
    const account = { account: { fields: ['email', 'pw'] }, profile: subsets.profile };
    assert.throws(
      () => new WizardForm({ fields: withPassword, subsets: account, steps, secret }),
      /Field "pw": a password is not kept in the page/,
    );
    const session = sessionWizardStore({});
    assert.ok(new WizardForm({ fields: withPassword, subsets: account, steps, store: session }));
  });
});

describe('wizard uploads', () => {
  test('an upload in a repeat item travels as a stash token only, across Back and Next, back at Finish', async () => {
    const nested = (body: FormValues, method = 'POST') =>
      new WizardForm({
        fields: [
          { id: 'docs', name: 'Document', datatype: 'repeat', fields: [{ id: 'doc', name: 'File', datatype: 'file' }] },
          { id: 'note', name: 'Note' },
        ],
        subsets: { files: { fields: ['docs'] }, end: { fields: ['note'] } },
        steps: ['files', 'end'],
        formid: 'nested',
        secret,
        request: { method, body },
      }).process();
    const first = await nested({}, 'GET');
    const doc = { filename: 'a.txt', mime: 'text/plain', size: 2, data: new Uint8Array([104, 105]) };
    const two = await nested({ [wizardStateKey]: stateOf(first.html), 'docs.0.doc': doc, next$: '' });
    assert.equal(two.step, 'end');
    const payload = JSON.parse(Buffer.from(stateOf(two.html).split('.')[0] ?? '', 'base64url').toString('utf8'));
    const saved = payload.data.files.docs[0].doc;
    assert.deepEqual(Object.keys(saved).sort(), ['filename', 'kept', 'mime', 'size', 'tempfile']);
    // Back to it, and Next again without choosing the file again: the page's token brings it back.
    const back = await nested({ [wizardStateKey]: stateOf(two.html), note: 'ok', back$: '' });
    assert.match(text(dom(back.html).byId('nested-docs-0-doc-kept')), /Kept file: a\.txt/);
    const token = inputValue(back.html, 'docs.0.doc$kept');
    assert.ok(token);
    const again = await nested({ [wizardStateKey]: stateOf(back.html), 'docs.0.doc$kept': token, next$: '' });
    const done = await nested({ [wizardStateKey]: stateOf(again.html), note: 'ok', finish$: '' });
    const file = (done.data?.docs as Array<{ doc?: { data?: Uint8Array } }> | undefined)?.[0]?.doc;
    assert.deepEqual([...(file?.data ?? [])], [104, 105]);
  });

  test('an upload of step two is kept across Back, an error reply and Finish', async () => {
    const avatar = { filename: 'me.png', mime: 'image/png', size: 3, data: new Uint8Array([1, 2, 3]) };
    const first = await submit({}, { secret }, 'GET');
    const two = await submit({ [wizardStateKey]: stateOf(first.html), email: 'ada@example.org', age: '36', next$: '' });
    // An error reply (name missing) keeps the file (item 8's stash).
    const error = await submit({ [wizardStateKey]: stateOf(two.html), name: '', avatar, finish$: '' });
    assert.equal(error.step, 'profile');
    assert.match(text(dom(error.html).byId('signup-avatar-kept')), /Kept file: me\.png/);
    const token = inputValue(error.html, 'avatar$kept');
    assert.ok(token);
    // Back, then Next: the kept file is still there on step two.
    const back = await submit({ [wizardStateKey]: stateOf(error.html), name: 'Ada', avatar$kept: token, back$: '' });
    const next = await submit({ [wizardStateKey]: stateOf(back.html), email: 'ada@example.org', age: '36', next$: '' });
    assert.equal(inputValue(next.html, 'name'), 'Ada');
    assert.match(text(dom(next.html).byId('signup-avatar-kept')), /Kept file: me\.png/);
    const kept = inputValue(next.html, 'avatar$kept');
    const done = await submit({ [wizardStateKey]: stateOf(next.html), name: 'Ada', avatar$kept: kept, finish$: '' });
    const file = done.data?.avatar;
    assert.equal(file?.filename, 'me.png');
    assert.deepEqual([...(file?.data ?? [])], [1, 2, 3]);
  });
});
