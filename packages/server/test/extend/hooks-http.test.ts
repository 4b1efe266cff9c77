import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRoost, defineExtension, parseConfig, programCaller, refuse } from '../../src/roost.js';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { PASSWORD, useServer } from '../helpers/test-server.js';

/**
 * Issue 40, items 1 to 3, on records over HTTP (docs/hooks.md): before-hooks that fill a field,
 * refuse by a business rule, throw, or run over their time limit, each in its stated order and
 * only for its collection; an after-hook that sends a mail as a job of the durable queue.
 */

const open = { list: '', view: '', create: '', update: '', delete: '' };
const posts = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 200 },
      slug: { type: 'string', pattern: '^[a-z0-9-]+$' },
      price: { type: 'number' },
      trail: { type: 'array', items: { type: 'string' } },
    },
    required: ['title'],
  },
  rules: open,
};
const notes = { schema: { type: 'object', properties: { title: { type: 'string' } } }, rules: open };

const shop = defineExtension((roost) => {
  // Runs second (order 1), though registered first: it sees the slug the other one made.
  roost.hooks.before(
    'record.create',
    { collection: 'posts' },
    ({ input }) => {
      if (typeof input.title === 'string' && input.title.includes('explode')) throw new Error('the hook broke');
      if (typeof input.title === 'string' && input.title.includes('slow')) return new Promise(() => {});
      if (typeof input.price === 'number' && input.price > 1000)
        throw refuse({
          code: 'price_too_high',
          message: 'Ask a manager for prices over 1000.',
          fields: { price: 'at most 1000' },
        });
      (input.trail as string[] | undefined)?.push('second');
      return undefined;
    },
    { name: 'shop rules', order: 1, timeoutMs: 300 },
  );
  roost.hooks.before('record.create', { collection: 'posts' }, ({ input }) => ({
    ...input,
    slug: String(input.title)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-'),
    trail: ['first'],
  }));
  // An update may be refused too; a delete's hook sees the id.
  roost.hooks.before('record.update', { collection: 'posts' }, ({ input }) => {
    if ('price' in input) throw refuse({ status: 409, code: 'price_locked', message: 'Prices are locked.' });
    return undefined;
  });
  roost.hooks.after('record.create', { collection: 'posts' }, async ({ record, caller, services }) => {
    await services.mail.send({
      to: 'shop@example.com',
      subject: `New post: ${String(record.title)}`,
      text: `${caller.name} wrote ${record.id}`,
      html: `<p>${caller.name} wrote ${record.id}</p>`,
      kind: 'hook',
    });
  });
});

describe('hooks on records over HTTP', () => {
  const s = useServer({ collections: { posts, notes }, hooks: { retrySeconds: 0.05 } }, { extensions: [shop] });
  const path = '/api/collections/posts/records';
  const total = async () => (await s.request(`${path}?total=1`, undefined, { method: 'GET' })).body.total as number;

  test('before-hooks fill a field, in their stated order, for their collection only', async () => {
    const token = await s.createUser('filler');
    const made = await s.request(path, { title: 'Hello World' }, { token });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.slug, 'hello-world');
    assert.deepEqual(made.body.trail, ['first', 'second']);
    const note = await s.request('/api/collections/notes/records', { title: 'Hello World' }, { token });
    assert.equal(note.status, 201);
    assert.equal(note.body.slug, undefined);
  });

  test('a refusal by a business rule reaches the caller with its field, and nothing is stored', async () => {
    const token = await s.createUser('spender');
    const before = await total();
    const refused = await s.request(path, { title: 'Gold', price: 5000 }, { token });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'price_too_high');
    assert.equal(refused.body.message, 'Ask a manager for prices over 1000.');
    assert.deepEqual(refused.body.invalid, [['price', 'at most 1000']]);
    assert.equal(await total(), before);
    // In a batch, the refusal names its place and nothing of the batch is stored.
    const batch = await s.request(
      '/api/collections/batch',
      {
        operations: [
          { collection: 'posts', action: 'create', data: { title: 'fine' } },
          { collection: 'posts', action: 'create', data: { title: 'Gold', price: 5000 } },
        ],
      },
      { token },
    );
    assert.equal(batch.status, 422);
    assert.deepEqual(batch.body.invalid, [['operations.1.price', 'at most 1000']]);
    assert.equal(await total(), before);
    // An update's hook refuses with its own status.
    const made = await s.request(path, { title: 'Locked' }, { token });
    const changed = await s.request(`${path}/${made.body.id}`, { price: 2 }, { token, method: 'PATCH' });
    assert.equal(changed.status, 409);
    assert.equal(changed.body.code, 'price_locked');
  });

  test('a hook that throws is a 500 naming nothing of it to the caller; the server goes on', async () => {
    const token = await s.createUser('exploder');
    const before = await total();
    const failed = await s.request(path, { title: 'explode' }, { token });
    assert.equal(failed.status, 500);
    assert.doesNotMatch(JSON.stringify(failed.body), /the hook broke/);
    assert.equal(await total(), before);
    assert.equal((await s.request(path, { title: 'still serving' }, { token })).status, 201);
    // /metrics counts it by the hook's name.
    const metrics = await fetch(`${s.url}/metrics`, { headers: { 'x-auth-token': await s.adminToken() } });
    const text = await metrics.text();
    assert.match(text, /roost_hook_runs_total\{hook="shop rules",point="record.create",outcome="failed"\} 1/);
    assert.match(text, /roost_hook_runs_total\{hook="shop rules",point="record.create",outcome="ok"\} \d+/);
  });

  test('a hook over its time limit fails the write (503 hook_timeout), and stores nothing', async () => {
    const token = await s.createUser('waiter');
    const before = await total();
    const started = Date.now();
    const slow = await s.request(path, { title: 'slow' }, { token });
    assert.equal(slow.status, 503);
    assert.equal(slow.body.code, 'hook_timeout');
    assert.ok(Date.now() - started < 3000);
    assert.equal(await total(), before);
  });

  test('hostile input: no object reaches no hook, and what a hook leaves is checked by the schema', async () => {
    const token = await s.createUser('hostile');
    for (const body of [[1], 'text', null]) {
      const bad = await s.request(path, body, { token });
      assert.equal(bad.status, 422, JSON.stringify(body));
      assert.equal(bad.body.code, 'validation_failure');
    }
    // The slug a hook makes from an oversized title still meets the schema's maxLength on the title.
    const long = await s.request(path, { title: 'x'.repeat(300) }, { token });
    assert.equal(long.status, 422);
    assert.ok(long.body.invalid.some(([f]: [string]) => f === 'title'));
    const huge = await s.request(path, { title: 'big', meta: 'x'.repeat(2 * 1024 * 1024) }, { token });
    assert.equal(huge.status, 413);
  });

  test('an after-create hook sends its mail once, as a job of the queue the admin lists', async () => {
    const token = await s.createUser('poster');
    const made = await s.request(path, { title: 'Mail me' }, { token });
    assert.equal(made.status, 201);
    await s.roost.jobs.idle();
    const mails = (await s.outbox()).filter((m) => m.subject === 'New post: Mail me');
    assert.equal(mails.length, 1);
    assert.match(mails[0]?.text ?? '', new RegExp(`poster wrote ${made.body.id}`));
    const jobs = await s.roost.jobs.list(programCaller('test').principal, { kind: 'hook', limit: 50 });
    const mine = jobs.filter((j) => j.payload.includes(made.body.id));
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.state, 'done');
    assert.equal(mine[0]?.subject, 'program:0 after record.create');
  });
});

const gate = defineExtension((roost) => {
  roost.hooks.before('user.signup', ({ input }) => {
    if (input.email?.endsWith('@spam.example'))
      throw refuse({
        code: 'domain_refused',
        message: 'This domain may not sign up.',
        fields: { email: 'domain refused' },
      });
    // Names are kept in lower case.
    input.name = input.name.toLowerCase();
    return undefined;
  });
  roost.hooks.after('user.signup', async ({ user, policy, services }) => {
    if (!user.email) return;
    const subject = `Welcome, ${user.name} (${policy})`;
    await services.mail.send({ to: user.email, subject, text: subject, html: subject, kind: 'welcome' });
  });
  roost.hooks.before('user.signin', ({ method, input }) => {
    // Every step of a method passes here: the password's one, the mail code's request and answer.
    if ((method === 'password' || method === 'mail') && input.identity === 'blocked@example.com')
      throw refuse({ status: 403, code: 'signin_blocked', message: 'This account may not sign in now.' });
    // The second factor's step knows the account by its challenge, before the code is checked.
    if (method === 'second-factor' && input.identity === 'twostep')
      throw refuse({ status: 403, code: 'signin_blocked', message: 'This account may not sign in now.' });
    return undefined;
  });
});

describe('hooks on sign-up and sign-in over HTTP', () => {
  const s = useServer({}, { extensions: [gate] });

  test('a before-sign-up hook refuses an address domain: the field error, and no account', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const refused = await s.users('signupDirect', { name: 'Mallory', email: 'm@spam.example', password: PASSWORD });
    // The user service answers its refusals on 200 with `result: false` (docs/errors.md).
    assert.equal(refused.body.result, false);
    assert.equal(refused.body.code, 'domain_refused');
    assert.deepEqual(refused.body.invalid, [['email', 'domain refused']]);
    assert.equal(await s.roost.users.findUser('mallory'), null);
    assert.equal(await s.roost.users.findUser('Mallory'), null);
    const fine = await s.users('signupDirect', { name: 'Alice', email: 'alice@example.com', password: PASSWORD });
    assert.deepEqual(fine.body, { result: true });
    const token = await s.users('token', { identity: 'alice', password: PASSWORD });
    assert.equal(typeof token.body.token, 'string', 'the name was stored in lower case');
    // The after-hook welcomed the account made, once, and nobody refused.
    await s.roost.jobs.idle();
    const welcomes = (await s.outbox()).filter((m) => m.subject.startsWith('Welcome'));
    assert.deepEqual(
      welcomes.map((m) => [m.to, m.subject]),
      [['alice@example.com', 'Welcome, alice (direct)']],
    );
  });

  test('a before-sign-in hook refuses a password sign-in before the password is checked', async () => {
    await s.createUser('blocked', { email: 'blocked@example.com' });
    const refused = await s.users('token', { identity: 'blocked@example.com', password: PASSWORD });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'signin_blocked');
    assert.equal(refused.body.token, undefined);
    // A sign-in by mail (off by default) is refused at its first step (no mail is sent) and at its second.
    await s.grant('signinMail', ['sys:everyone']);
    await s.grant('signinMail2', ['sys:everyone']);
    for (const [op, body] of [
      ['signinMail', { identity: 'blocked@example.com' }],
      ['signinMail2', { identity: 'blocked@example.com', code: '12345678' }],
    ] as const) {
      const mail = await s.users(op, body);
      assert.equal(mail.body.code, 'signin_blocked', `${op}: ${JSON.stringify(mail.body)}`);
    }
    await s.roost.jobs.idle();
    assert.deepEqual(
      (await s.outbox()).filter((m) => m.to === 'blocked@example.com'),
      [],
    );
    // By name, the hook lets it through.
    assert.equal(typeof (await s.users('token', { identity: 'blocked', password: PASSWORD })).body.token, 'string');
  });

  test("a before-sign-in hook refuses the second factor's step, with a right code", async () => {
    const token = await s.createUser('twostep');
    const { secret } = (await s.users('totpEnrol', {}, { token })).body;
    const confirmed = await s.users(
      'totpConfirm',
      { code: totpCode(secret, Date.now()), password: PASSWORD },
      { token },
    );
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const first = await s.users('token', { identity: 'twostep', password: PASSWORD });
    assert.equal(first.body.code, 'second_factor_required', JSON.stringify(first.body));
    const second = await s.users('token2', { challenge: first.body.challenge, code: totpCode(secret, Date.now()) });
    assert.equal(second.status, 403, JSON.stringify(second.body));
    assert.equal(second.body.code, 'signin_blocked');
    assert.equal(second.body.token, undefined);
  });
});

const stores = defineExtension((roost) => {
  // setItem and newItem of the original protocol pass through the typed service's hooks.
  roost.hooks.before('item.set', { store: 'data' }, ({ input }) => {
    if (input.value === 'forbidden')
      throw refuse({ code: 'value_refused', message: 'Not this value.', fields: { value: 'refused' } });
    return { value: typeof input.value === 'string' ? input.value.toUpperCase() : input.value };
  });
  roost.hooks.before('item.create', { store: 'data' }, ({ input }) => ({ value: `new:${String(input.value)}` }));
  roost.hooks.before('item.remove', ({ key }) => {
    if (key === 'pinned') throw refuse({ status: 403, code: 'pinned', message: 'Pinned items stay.' });
    return undefined;
  });
  // After-hooks of items: jobs stored in the call's transaction.
  roost.hooks.after('item.set', { store: 'data' }, async ({ item, created, services }) => {
    const subject = `${created ? 'created' : 'replaced'} ${item.key}=${String(item.value)}`;
    await services.mail.send({ to: 'audit@example.com', subject, text: subject, html: subject, kind: 'audit' });
  });
  for (const point of ['file.create', 'file.remove'] as const)
    roost.hooks.after(point, { store: 'files' }, async ({ path, directory, services }) => {
      const subject = `${point} ${path}${directory ? '/' : ''}`;
      await services.mail.send({ to: 'files@example.com', subject, text: subject, html: subject, kind: 'audit' });
    });
  roost.hooks.before('file.create', { store: 'files' }, ({ path, input }) => {
    if (path.endsWith('.exe'))
      throw refuse({ code: 'no_programs', message: 'No programs.', fields: { name: 'refused' } });
    input.cache = 'no-store';
    return undefined;
  });
  roost.hooks.before('file.remove', ({ path }) => {
    if (path === 'keep') throw refuse({ status: 403, code: 'kept', message: 'This one stays.' });
    return undefined;
  });
});

describe('hooks on items and files over HTTP', () => {
  const s = useServer({}, { extensions: [stores] });

  test('item hooks change a value, refuse one (nothing stored), and refuse a removal', async () => {
    const token = await s.createUser('itemizer');
    const call = (op: string, body: unknown) => s.request(`/data/api/${op}`, body, { token });
    assert.equal((await call('setItem', { key: 'a', value: 'hello' })).body.result, 1);
    assert.equal((await call('getItem', { key: 'a' })).body.value, 'HELLO');
    const refused = await call('setItem', {
      items: [
        { key: 'b', value: 'ok' },
        { key: 'c', value: 'forbidden' },
      ],
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'value_refused');
    const b = await call('getItem', { key: 'b' });
    assert.equal(b.body.value, undefined, `nothing of the call is stored: ${JSON.stringify(b.body)}`);
    assert.equal((await call('newItem', { key: 'n', value: 'x' })).body.result, 1);
    assert.equal((await call('getItem', { key: 'n' })).body.value, 'new:x');
    await call('setItem', { key: 'pinned', value: 'p' });
    const kept = await call('removeItem', { key: 'pinned' });
    assert.equal(kept.status, 403);
    assert.equal(kept.body.code, 'pinned');
    assert.equal((await call('getItem', { key: 'pinned' })).body.value, 'P');
    // The after-hook told of each write that committed, and of none of the refused call.
    await call('setItem', { key: 'a', value: 'again' });
    await s.roost.jobs.idle();
    const audit = (await s.outbox()).filter((m) => m.to === 'audit@example.com').map((m) => m.subject);
    assert.deepEqual(audit.sort(), ['created a=HELLO', 'created pinned=P', 'replaced a=AGAIN']);
  });

  test('file hooks refuse a file before its contents are stored, set its cache header, refuse a removal', async () => {
    const token = await s.createUser('filer');
    const op = (path: string, body: unknown) => s.request(`/files/api/${path}`, body, { token });
    const refused = await op('@newItem', { name: 'tool.exe', contents: 'MZ' });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'no_programs');
    assert.equal((await op('tool.exe/@getItem', {})).status, 404);
    assert.equal((await op('@newItem', { name: 'keep', contents: 'text' })).body.result, 1);
    const meta = await op('keep/@getItem', {});
    assert.equal(meta.status, 200, JSON.stringify(meta.body));
    assert.equal(meta.body.cache ?? meta.body.header, 'no-store', JSON.stringify(meta.body));
    const removal = await op('keep/@removeItem', {});
    assert.equal(removal.status, 403);
    assert.equal(removal.body.code, 'kept');
    assert.equal((await op('keep/@getItem', {})).status, 200);
    assert.equal((await op('@newItem', { name: 'tmp', type: 'd' })).body.result, 1);
    assert.equal((await op('tmp/@removeItem', {})).status, 200);
    await s.roost.jobs.idle();
    const audit = (await s.outbox()).filter((m) => m.to === 'files@example.com').map((m) => m.subject);
    assert.deepEqual(audit.sort(), ['file.create keep', 'file.create tmp/', 'file.remove tmp/']);
  });
});

const limits = defineExtension((roost) => {
  // A hook asks the services as the caller (who may not list the limits) or, saying so, as the system.
  roost.hooks.before('record.create', { collection: 'orders' }, async ({ input, services, asSystem }) => {
    const asCaller = await services.collections.list('limits', {}).then(
      () => 'listed',
      (err: { code?: string }) => err.code ?? 'failed',
    );
    const limit = (await asSystem().collections.list('limits', {})).items[0];
    if (typeof input.amount === 'number' && input.amount > Number(limit?.max ?? 0))
      throw refuse({ code: 'over_limit', message: 'Over the limit.', fields: { amount: `at most ${limit?.max}` } });
    return { ...input, note: asCaller };
  });
});

describe('a hook asks the services as its caller unless it asks as the system', () => {
  const adminOnly = { list: null, view: null, create: null, update: null, delete: null };
  const s = useServer(
    {
      collections: {
        limits: { schema: { type: 'object', properties: { max: { type: 'number' } } }, rules: adminOnly },
        orders: {
          schema: { type: 'object', properties: { amount: { type: 'number' }, note: { type: 'string' } } },
          rules: { list: '', view: '', create: '', update: '', delete: '' },
        },
      },
    },
    { extensions: [limits] },
  );

  test("the caller's refusal is what the hook sees as the caller; as the system it reads the limit", async () => {
    await s.roost.collections.create(programCaller('setup').principal, 'limits', { max: 10 });
    const token = await s.createUser('buyer');
    const ok = await s.request('/api/collections/orders/records', { amount: 5 }, { token });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.note, 'not_allowed');
    const over = await s.request('/api/collections/orders/records', { amount: 50 }, { token });
    assert.equal(over.status, 422);
    assert.deepEqual(over.body.invalid, [['amount', 'at most 10']]);
  });
});

/** Shapes what is sent of a profile: its `secret` stays stored but is never sent; `initials` is computed. */
const profiles = defineExtension((roost) => {
  roost.hooks.before('record.answer', { collection: 'profiles' }, ({ input }) => {
    const { secret: _secret, ...sent } = input;
    const initials = String(input.name ?? '')
      .split(' ')
      .map((word) => word.slice(0, 1))
      .join('');
    return { ...sent, initials };
  });
});

describe('a record.answer hook shapes what is sent, not what is stored', () => {
  const fields = { name: { type: 'string' }, secret: { type: 'string' } };
  const s = useServer(
    {
      collections: {
        profiles: { schema: { type: 'object', properties: fields }, rules: open },
        others: { schema: { type: 'object', properties: fields }, rules: open },
      },
    },
    { extensions: [profiles] },
  );
  const path = '/api/collections/profiles/records';

  test('create, get, a page and an update answer without the secret and with the initials', async () => {
    const token = await s.createUser('shaper');
    const made = await s.request(path, { name: 'Ada Lovelace', secret: 's3cret' }, { token });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.secret, undefined);
    assert.equal(made.body.initials, 'AL');
    const got = await s.request(`${path}/${made.body.id}`, undefined, { method: 'GET', token });
    assert.deepEqual([got.body.secret, got.body.initials], [undefined, 'AL']);
    const page = await s.request(`${path}?perPage=10`, undefined, { method: 'GET', token });
    assert.deepEqual(
      page.body.items.map((r: { secret?: string; initials: string }) => [r.secret, r.initials]),
      [[undefined, 'AL']],
    );
    const changed = await s.request(`${path}/${made.body.id}`, { name: 'Grace Hopper' }, { method: 'PATCH', token });
    assert.deepEqual([changed.status, changed.body.secret, changed.body.initials], [200, undefined, 'GH']);
    // Stored as written; another collection's answers are left alone.
    const stored = await s.roost.collections.peek('profiles', made.body.id);
    assert.equal(stored?.data.secret, 's3cret');
    const other = await s.request('/api/collections/others/records', { name: 'A B', secret: 'x' }, { token });
    assert.deepEqual([other.body.secret, other.body.initials], ['x', undefined]);
  });
});

describe('an extension that cannot start stops the start, naming it', () => {
  test('a throw at start, and a hook that is no function', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roost-ext-'));
    try {
      const config = parseConfig({ dataDir, logLevel: 'silent' });
      const failing = async function shop() {
        throw new Error('the shop is closed');
      };
      await assert.rejects(createRoost(config, { extensions: [failing] }), /program:shop: the shop is closed/);
      const wrong = defineExtension((roost) => {
        roost.hooks.before('record.create', { collection: 'posts' }, 'not a function' as never);
      });
      await assert.rejects(
        createRoost(config, { extensions: [wrong] }),
        /program:0: a hook of record.create must be a function/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
