import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PASSWORD, startServer, useServer, type TestServer } from '../helpers/test-server.js';

/**
 * The breached-password check (users/breached-passwords.ts; issue 45, item 6) against a range
 * server of Pwned Passwords' shape on 127.0.0.1 that holds a known list: every path where a person
 * chooses a password refuses one of the list with `[field, breached]` and changes nothing; only
 * five hex characters of the SHA-1 leave Roost; an unreachable, slow or nonsensical range API lets
 * the password through by default and refuses it with 503 when the setting says so.
 */

const BREACHED = ['password123', 'correct horse battery staple', 'ünïcødé-passwörd'];
const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex').toUpperCase();

type Mode = 'answer' | 'fail' | 'garbage' | 'slow';

/** A range API holding BREACHED (each seen 42 times), with zero-count padding lines as the real one adds. */
async function startRangeServer(): Promise<{
  url: string;
  requests: Array<{ url: string; headers: IncomingHttpHeaders }>;
  mode: Mode;
  close(): Promise<void>;
}> {
  const state = { mode: 'answer' as Mode, requests: [] as Array<{ url: string; headers: IncomingHttpHeaders }> };
  const server: Server = createServer((req, res) => {
    state.requests.push({ url: req.url ?? '', headers: req.headers });
    if (state.mode === 'fail') return void res.writeHead(503).end('down');
    if (state.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Hi</h1>');
    if (state.mode === 'slow') return void setTimeout(() => res.writeHead(200).end(''), 2000).unref();
    const prefix = (req.url ?? '').replace('/range/', '');
    const lines = BREACHED.map(sha1)
      .filter((h) => h.startsWith(prefix))
      .map((h) => `${h.slice(5)}:42`);
    for (let i = 0; i < 5; i++) lines.push(`${sha1(`padding-${i}`).slice(5)}:0`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/range/`,
    get requests() {
      return state.requests;
    },
    get mode() {
      return state.mode;
    },
    set mode(m: Mode) {
      state.mode = m;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const range = await startRangeServer();
after(() => range.close());

describe('breached passwords: refused wherever a password is chosen', () => {
  const s = useServer({ users: { breachedPasswords: { enabled: true, rangeUrl: range.url, timeoutMs: 500 } } });
  before(async () => {
    await s.grant('signupDirect', ['sys:everyone']);
  });

  test('sign-up: a listed password → [password, breached], no account; another one signs up', async () => {
    range.requests.length = 0;
    for (const password of BREACHED) {
      const res = await s.users('signupDirect', { name: 'leaky', email: 'leaky@example.com', password });
      assert.equal(res.body.result, false, JSON.stringify(res.body));
      assert.deepEqual(res.body.invalid, [['password', 'breached']]);
    }
    const missing = await s.users('getUser', { identity: 'leaky' }, { token: await s.adminToken() });
    assert.equal(missing.status, 404);
    const ok = await s.users('signupDirect', { name: 'leaky', email: 'leaky@example.com', password: PASSWORD });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    // k-anonymity: five hex characters of the SHA-1 go out, padded, and nothing else of the password.
    assert.equal(range.requests.length, BREACHED.length + 1);
    for (const { url, headers } of range.requests) {
      assert.match(url, /^\/range\/[0-9A-F]{5}$/);
      assert.equal(headers['add-padding'], 'true');
    }
    assert.deepEqual(
      range.requests.map((r) => r.url.slice(7)),
      [...BREACHED, PASSWORD].map((p) => sha1(p).slice(0, 5)),
    );
  });

  test('updatePassword: a listed new password → [newpassword, breached], the old one still works', async () => {
    const token = await s.createUser('changer');
    const res = await s.users('updatePassword', { password: PASSWORD, newpassword: 'password123' }, { token });
    assert.equal(res.body.result, false);
    assert.deepEqual(res.body.invalid, [['newpassword', 'breached']]);
    assert.equal((await s.users('profile', {}, { token })).status, 200, 'the session stays');
    assert.equal((await s.users('token', { identity: 'changer', password: PASSWORD })).status, 200);
    assert.equal((await s.users('token', { identity: 'changer', password: 'password123' })).status, 401);
  });

  test('resetPassword2: a listed password is refused and the mailed token still works for a good one', async () => {
    await s.createUser('forgetful');
    await s.users('resetPassword', { identity: 'forgetful' });
    const mail = await s.lastMail('forgetful@example.com');
    const token = /[?&]token=([^\s&"<]+)/.exec(mail.text)?.[1] ?? '';
    assert.ok(token);
    const refused = await s.users('resetPassword2', { token, newpassword: 'correct horse battery staple' });
    assert.equal(refused.body.result, false);
    assert.deepEqual(refused.body.invalid, [['newpassword', 'breached']]);
    const done = await s.users('resetPassword2', { token, newpassword: 'a-fresh-unlisted-one' });
    assert.deepEqual(done.body, { result: true });
    assert.equal((await s.users('token', { identity: 'forgetful', password: 'a-fresh-unlisted-one' })).status, 200);
  });

  test("setUser by an administrator: a listed password is refused, the account's stays", async () => {
    await s.createUser('managed');
    const admin = await s.adminToken();
    const res = await s.users(
      'setUser',
      { identity: 'managed', values: { password: 'password123' } },
      { token: admin },
    );
    assert.equal(res.body.result, false, JSON.stringify(res.body));
    assert.deepEqual(res.body.invalid, [['password', 'breached']]);
    assert.equal((await s.users('token', { identity: 'managed', password: PASSWORD })).status, 200);
  });

  test('twenty parallel sign-ups with listed passwords: every one refused, none made', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.users('signupDirect', { name: `crowd${i}`, email: `crowd${i}@example.com`, password: BREACHED[i % 3] }),
      ),
    );
    for (const res of answers) assert.deepEqual(res.body.invalid, [['password', 'breached']]);
    const admin = await s.adminToken();
    for (let i = 0; i < 20; i++)
      assert.equal((await s.users('getUser', { identity: `crowd${i}` }, { token: admin })).status, 404);
  });

  test('the range API down, slow or answering nonsense: the password passes (the default, `allow`)', async () => {
    try {
      for (const [i, mode] of (['fail', 'garbage', 'slow'] as const).entries()) {
        range.mode = mode;
        const started = Date.now();
        const res = await s.users('signupDirect', {
          name: `offline${i}`,
          email: `offline${i}@example.com`,
          password: 'password123',
        });
        assert.equal(res.status, 200, `${mode}: ${JSON.stringify(res.body)}`);
        assert.ok(Date.now() - started < 1800, `${mode}: the time limit (500 ms) holds`);
      }
    } finally {
      range.mode = 'answer';
    }
  });
});

describe('breached passwords: `onUnavailable: refuse`, and off by default', () => {
  let strict: TestServer;
  let plain: TestServer;
  before(async () => {
    strict = await startServer({
      users: { breachedPasswords: { enabled: true, rangeUrl: range.url, timeoutMs: 300, onUnavailable: 'refuse' } },
    });
    plain = await startServer({ users: { breachedPasswords: { rangeUrl: range.url } } });
    await strict.grant('signupDirect', ['sys:everyone']);
    await plain.grant('signupDirect', ['sys:everyone']);
  });
  after(async () => {
    await strict.close();
    await plain.close();
  });

  test('the range API down: 503 breach_check_unavailable in the failure body, no account', async () => {
    range.mode = 'fail';
    const res = await strict
      .users('signupDirect', { name: 'careful', email: 'careful@example.com', password: PASSWORD })
      .finally(() => {
        range.mode = 'answer';
      });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.result, false);
    assert.equal(res.body.code, 'breach_check_unavailable');
    const missing = await strict.users('getUser', { identity: 'careful' }, { token: await strict.adminToken() });
    assert.equal(missing.status, 404);
  });

  test('not enabled: a listed password is taken and the range API is never asked', async () => {
    range.requests.length = 0;
    const res = await plain.users('signupDirect', {
      name: 'oldstyle',
      email: 'old@example.com',
      password: 'password123',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(range.requests.length, 0);
  });

  test('a range URL that is not http(s) is refused at the start', async () => {
    await assert.rejects(
      startServer({ users: { breachedPasswords: { enabled: true, rangeUrl: 'file:///etc/passwd' } } }),
      /rangeUrl/,
    );
  });
});
