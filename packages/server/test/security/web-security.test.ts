import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { PAGE_CSP, installSecurityHeaders } from '../../src/http/security-headers.js';
import { addAccount, PASSWORD, startServer, type CallResult, type TestServer } from '../helpers/test-server.js';
import { send, type WireAnswer } from './support/calls.js';
import { assertExpected, Matrix, TABLES, type Cell, type Expect, type Live, type Row } from './support/access-table.js';
import { userOperations } from '../../src/http/protocol/user-protocol.js';
import { operationsOf } from './support/operations.js';
import { snapshot, snapshotDiff } from './support/snapshot.js';

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

const statusOf = (e: Expect | undefined) => (typeof e === 'number' ? e : (e?.status ?? 0));

/** The caller for whom the call would go through: the owner or the user, else the administrator. */
function actingCaller(row: Row): Live {
  for (const kind of ['owner', 'user'] as const) {
    const status = statusOf(row.expect[kind]);
    if (status !== 0 && status !== 401 && status !== 403) return kind;
  }
  return 'admin';
}

/** A query string of a call's values (a forged link carries them so). */
const queryOf = (values: Record<string, unknown> = {}) =>
  new URLSearchParams(
    Object.entries(values).flatMap(([k, v]) =>
      v === undefined ? [] : [[k, typeof v === 'string' ? v : JSON.stringify(v)]],
    ),
  ).toString();

function cookieCall(
  m: Matrix,
  cell: Cell,
  token: string,
  headers: Record<string, string>,
  method: 'GET' | 'POST' = 'POST',
): Promise<CallResult> {
  const cookie = { cookie: `auth=${token}`, ...headers };
  if (method === 'GET') {
    const query = queryOf(cell.values);
    return m.s.request(query ? `${cell.path}?${query}` : cell.path, undefined, { method: 'GET', headers: cookie });
  }
  return m.s.request(cell.path, cell.values ?? {}, { method: 'POST', headers: cookie });
}

/**
 * How another site can make a browser send the `auth` cookie with a write: a form post or a
 * fetch (modern browsers say `Sec-Fetch-Site: cross-site`; older ones only send `Origin`), or
 * a link or redirect (a top-level GET, which SameSite=Lax lets through with the cookie) in a
 * browser without Fetch Metadata, with the attacker's Referer or none at all.
 */
const FORGERIES: Array<{ name: string; method: 'GET' | 'POST'; headers: Record<string, string> }> = [
  { name: 'cross-site fetch', method: 'POST', headers: { 'sec-fetch-site': 'cross-site', origin: EVIL } },
  {
    name: 'same-site, other origin',
    method: 'POST',
    headers: { 'sec-fetch-site': 'same-site', origin: 'https://other.roost.test' },
  },
  { name: 'foreign Origin, no Fetch Metadata', method: 'POST', headers: { origin: EVIL } },
  { name: 'Origin null (sandboxed frame)', method: 'POST', headers: { origin: 'null' } },
  {
    name: 'top-level GET, modern browser',
    method: 'GET',
    headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
  },
  { name: 'top-level GET, legacy browser, foreign Referer', method: 'GET', headers: { referer: `${EVIL}/page.html` } },
  { name: 'top-level GET, legacy browser, no Referer', method: 'GET', headers: {} },
];

/** How a browser shows a request comes from Roost's own origin or a configured one. */
const LEGITIMATE: Array<Record<string, string>> = [
  { 'sec-fetch-site': 'same-origin' },
  { origin: 'own' },
  { 'sec-fetch-site': 'cross-site', origin: APP },
];

describe("CSRF: every write of every service, authenticated by the cookie, must come from Roost's own origin", () => {
  const m = new Matrix();
  before(async () => {
    const s = await startServer(
      { corsOrigins: [APP], mail: { adminAddress: 'admin@example.com' } },
      { clock: { now: () => m.now } },
    );
    await m.setUp(s);
    await m.account('credentials');
  });
  after(() => m.s.close());

  for (const service of ['users', 'datastore', 'filestore'] as const) {
    test(`${service}: each write refuses every forgery (nothing stored), works from its origin`, async () => {
      const writes = operationsOf(m.s.roost).filter((o) => o.service === service && !o.read);
      assert.ok(writes.length > 0);
      for (const { op } of writes) {
        const row = TABLES[service][op] as Row;
        const kind = actingCaller(row);
        // One target for all forgeries (each must be refused, so it stays as it is), and one
        // snapshot around them.
        const target = await row.prepare(m, kind);
        const before = await snapshot(m.s.roost);
        for (const forgery of FORGERIES) {
          const res = await cookieCall(m, target, m.token(kind) as string, forgery.headers, forgery.method);
          assert.deepEqual(
            [res.status, res.body?.code],
            [403, 'cross_site_request'],
            `${service} ${op} by ${kind}, ${forgery.name}: ${JSON.stringify(res.body)}`,
          );
        }
        assert.deepEqual(
          snapshotDiff(before, await snapshot(m.s.roost), row.counts),
          [],
          `${service} ${op}: a forged request changed the store`,
        );
        // The same call from Roost's own origin (or a configured one) goes through; the three
        // ways a browser shows it take turns over the operations.
        const headers = LEGITIMATE[writes.findIndex((w) => w.op === op) % LEGITIMATE.length] as Record<string, string>;
        const res = await cookieCall(m, await row.prepare(m, kind), m.token(kind) as string, {
          ...headers,
          ...(headers.origin === 'own' ? { origin: m.s.url } : {}),
        });
        assertExpected(res, row.expect[kind] as Expect, `${service} ${op} by ${kind} with ${JSON.stringify(headers)}`);
        if (row.consumes && statusOf(row.expect[kind]) === 200) await m.renew(kind);
      }
    });
  }

  test('reads stay open to cross-site cookie requests (their answers are not readable there anyway)', async () => {
    for (const service of ['users', 'datastore', 'filestore'] as const) {
      for (const { op } of operationsOf(m.s.roost).filter((o) => o.service === service && o.read)) {
        const row = TABLES[service][op] as Row;
        const kind = actingCaller(row);
        const res = await cookieCall(
          m,
          await row.prepare(m, kind),
          m.token(kind) as string,
          { 'sec-fetch-site': 'cross-site' },
          'GET',
        );
        assertExpected(res, row.expect[kind] as Expect, `${service} ${op} by ${kind}, cross-site read`);
      }
    }
  });

  test('a legacy browser on the own origin (no Fetch Metadata, own Referer) may write by GET', async () => {
    const token = m.token('user') as string;
    const res = await m.s.request('/users/api/update?realname=jquery', undefined, {
      headers: { cookie: `auth=${token}`, referer: `${m.s.url}/app/index.html` },
    });
    assert.deepEqual(res.body, { result: true });
    assert.equal((await m.s.users('profile', {}, { token })).body.realname, 'jquery');
  });

  test('uploads: a cross-site PUT @write and a cross-site multipart newItem are refused, the file kept', async () => {
    const token = m.token('owner') as string;
    const name = await m.file();
    const before = await snapshot(m.s.roost);
    const put = await send(m.s.url, {
      method: 'PUT',
      path: `/files/${name}/@write`,
      headers: { cookie: `auth=${token}`, 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      body: 'forged',
    });
    assert.deepEqual([put.status, (put.json as { code?: string }).code], [403, 'cross_site_request']);
    const boundary = 'b0undary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; ` +
      `name="name"\r\n\r\nforged.txt\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="forged.txt"\r\nContent-Type: text/plain\r\n\r\nforged\r\n--${boundary}--\r\n`;
    const multipart = await send(m.s.url, {
      method: 'POST',
      path: '/files/@newItem',
      headers: { cookie: `auth=${token}`, origin: EVIL, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    assert.deepEqual([multipart.status, (multipart.json as { code?: string }).code], [403, 'cross_site_request']);
    assert.deepEqual(snapshotDiff(before, await snapshot(m.s.roost)), []);
    const same = await send(m.s.url, {
      method: 'PUT',
      path: `/files/${name}/@write`,
      headers: { cookie: `auth=${token}`, 'sec-fetch-site': 'same-origin', 'content-type': 'text/plain' },
      body: 'own',
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(await (await fetch(`${m.s.url}/files/${name}`, { headers: { 'x-auth-token': token } })).text(), 'own');
  });
});

describe('CORS: per configured origin, nothing open by default', () => {
  const PATHS = ['/users/api/profile', '/data/api/setItem', '/files/docs/a.txt/@write', '/files/docs/a.txt'];
  let s: TestServer;
  let closed: TestServer;
  before(async () => {
    s = await startServer({ corsOrigins: [APP, 'http://localhost:5173'] });
    closed = await startServer();
  });
  after(async () => {
    await s.close();
    await closed.close();
  });

  const preflight = (server: TestServer, path: string, origin: string, method = 'PUT') =>
    fetch(server.url + path, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, x-auth-token',
      },
    });

  test('a preflight from a configured origin is granted for every service, with credentials, for an hour', async () => {
    for (const origin of [APP, 'http://localhost:5173']) {
      for (const path of PATHS) {
        const res = await preflight(s, path, origin);
        await res.arrayBuffer();
        assert.equal(res.status, 204, path);
        assert.equal(res.headers.get('access-control-allow-origin'), origin, path);
        assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
        assert.match(res.headers.get('access-control-allow-methods') ?? '', /\bPUT\b/);
        assert.match(res.headers.get('access-control-allow-headers') ?? '', /x-auth-token/);
        assert.equal(res.headers.get('access-control-max-age'), '3600');
        assert.match(res.headers.get('vary') ?? '', /origin/i);
      }
    }
  });

  test('any other origin gets no CORS grant at all, neither on preflight nor on the answer', async () => {
    for (const origin of [
      EVIL,
      'https://app.example.com.evil.example',
      'https://APP.example.com',
      'http://app.example.com',
      'null',
      '*',
    ]) {
      for (const path of PATHS) {
        const pre = await preflight(s, path, origin);
        await pre.arrayBuffer();
        assert.equal(pre.headers.get('access-control-allow-origin'), null, `${origin} ${path}`);
        assert.equal(pre.headers.get('access-control-allow-credentials'), null);
        const res = await s.request(path, undefined, { headers: { origin } });
        assert.equal(res.headers.get('access-control-allow-origin'), null);
        assert.equal(res.headers.get('access-control-allow-credentials'), null);
      }
    }
  });

  test('answers to a configured origin carry its grant and say they vary by Origin', async () => {
    const res = await s.request('/data/api/ping', undefined, { headers: { origin: APP } });
    assert.equal(res.headers.get('access-control-allow-origin'), APP);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.match(res.headers.get('vary') ?? '', /origin/i);
  });

  test('without corsOrigins nothing is granted to anyone, and a preflight finds no route', async () => {
    for (const path of PATHS) {
      const pre = await preflight(closed, path, APP);
      await pre.arrayBuffer();
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
      assert.notEqual(pre.status, 204);
      const res = await closed.request(path, undefined, { headers: { origin: APP } });
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
  });
});

describe('security headers and cookies', () => {
  let s: TestServer;
  let proxied: TestServer;
  let token: string;
  before(async () => {
    s = await startServer();
    proxied = await startServer({ trustProxy: true });
    token = await s.createUser('alice');
    await proxied.createUser('alice');
    await s.request(
      '/files/@newItem',
      { name: 'page.html', contents: '<script>alert(1)</script>', mime: 'text/html' },
      { token },
    );
  });
  after(async () => {
    await s.close();
    await proxied.close();
  });

  const API_CSP = "default-src 'none'; frame-ancestors 'none'";

  test('every JSON answer: nosniff, a CSP allowing nothing, same-origin resources, no page headers', async () => {
    const answers = [
      await s.request('/users/api/ping'),
      await s.users('profile', {}),
      await s.request('/data/api/keys', {}, { token }),
      await s.request('/data/api/getItem', { key: 'missing' }, { token }),
      await s.request('/files/@list', {}, { token }),
      await s.request('/files/missing.txt'),
      await s.request('/no/such/route'),
      await s.request('/users/api/update', 'not json', { raw: '{', headers: { 'content-type': 'application/json' } }),
    ];
    for (const res of answers) {
      const where = `${res.status} ${JSON.stringify(res.body).slice(0, 80)}`;
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, where);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', where);
      assert.equal(res.headers.get('content-security-policy'), API_CSP, where);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin', where);
      assert.equal(res.headers.get('strict-transport-security'), null, `no HSTS over plain HTTP: ${where}`);
      // Only documents act on these; a JSON answer is never one (and its CSP forbids framing).
      for (const name of ['x-frame-options', 'referrer-policy', 'cross-origin-opener-policy'])
        assert.equal(res.headers.get(name), null, `${name}: ${where}`);
    }
  });

  test('HTML answers get a page CSP: own scripts and styles, no plugins, no framing, forms to Roost', async () => {
    // Any route's HTML answer (the admin and user pages): a bare app with the same headers.
    const app = Fastify();
    installSecurityHeaders(app);
    app.get('/page', async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send('<!doctype html><title>page</title>'),
    );
    app.get('/own', async (_request, reply) =>
      reply.type('text/html').header('content-security-policy', "default-src 'none'").send('<p>own'),
    );
    const page = await app.inject('/page');
    const csp = String(page.headers['content-security-policy']);
    assert.equal(csp, PAGE_CSP);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], 'DENY', 'no framing, also for browsers without frame-ancestors');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(page.headers['cross-origin-resource-policy'], 'same-origin');
    for (const directive of [
      "default-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ])
      assert.ok(csp.includes(directive), `${directive} in ${csp}`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.equal(
      (await app.inject('/own')).headers['content-security-policy'],
      "default-src 'none'",
      'a route that sets its own CSP keeps it',
    );
    await app.close();
    // /docs: the same, plus the inline styles Swagger UI sets (its scripts stay files).
    const docs = await fetch(`${s.url}/docs/`);
    await docs.text();
    assert.equal(docs.headers.get('content-security-policy'), `${PAGE_CSP}; style-src 'self' 'unsafe-inline'`);
  });

  test('a downloaded file is sandboxed (an uploaded page runs no script here), embeddable elsewhere', async () => {
    const res = await fetch(`${s.url}/files/page.html`, { headers: { 'x-auth-token': token } });
    await res.text();
    assert.match(res.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.equal(
      res.headers.get('referrer-policy'),
      'no-referrer',
      'a downloaded page leaks no address through its links',
    );
  });

  test('behind a trusted TLS proxy: HSTS on every answer; the cookie is Secure, HttpOnly, SameSite=Lax', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const ping = await proxied.request('/users/api/ping', undefined, { headers: https });
    assert.equal(ping.headers.get('strict-transport-security'), 'max-age=31536000');
    const signin = await proxied.users('signin', { identity: 'alice', password: PASSWORD }, { headers: https });
    const cookie = signin.headers.getSetCookie().find((c) => c.startsWith('auth=')) ?? '';
    for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/'])
      assert.ok(cookie.split('; ').includes(attribute), `${attribute} in ${cookie}`);
    assert.match(cookie, /Max-Age=\d+/);
    const signout = await proxied.users(
      'signout',
      {},
      { headers: { ...https, cookie: cookie.split(';')[0] ?? '', 'sec-fetch-site': 'same-origin' } },
    );
    const cleared = signout.headers.getSetCookie().find((c) => c.startsWith('auth=')) ?? '';
    assert.match(cleared, /^auth=;/);
    assert.match(cleared, /Expires=Thu, 01 Jan 1970|Max-Age=0/);
  });

  test('over plain HTTP, or X-Forwarded-Proto from an untrusted client: no HSTS and no Secure flag', async () => {
    const spoofed = await s.users(
      'signin',
      { identity: 'alice', password: PASSWORD },
      { headers: { 'x-forwarded-proto': 'https' } },
    );
    assert.equal(spoofed.headers.get('strict-transport-security'), null);
    const cookie = spoofed.headers.getSetCookie().find((c) => c.startsWith('auth=')) ?? '';
    assert.ok(cookie.includes('HttpOnly') && cookie.includes('SameSite=Lax'), cookie);
    assert.ok(!cookie.split('; ').includes('Secure'), cookie);
    const plain = await proxied.users('signin', { identity: 'alice', password: PASSWORD });
    assert.equal(plain.headers.get('strict-transport-security'), null);
  });
});

describe('sign-in, reset and sign-up answers tell nothing about which accounts exist', () => {
  let s: TestServer;
  const t = { now: Date.UTC(2026, 10, 2) };
  before(async () => {
    s = await startServer({ users: { lockoutThreshold: 3, lockoutSeconds: 60 } }, { clock: { now: () => t.now } });
    await s.createUser('active');
    await s.createUser('disabled');
    await s.createUser('locked');
    await addAccount(s.roost, 'pending', { state: 'pending' });
    await s.users('setUser', { identity: 'disabled', values: { active: false } }, { token: await s.adminToken() });
    for (let i = 0; i < 3; i++) await s.users('signin', { identity: 'locked', password: `wrong-${i}` });
  });
  after(() => s.close());

  const strip = (res: CallResult) => ({
    status: res.status,
    body: res.body,
    cookies: res.headers.getSetCookie().length,
  });

  test('token and signin: unknown account, wrong password, disabled, pending or locked: the same answer', async () => {
    for (const op of ['token', 'signin']) {
      const unknown = strip(await s.users(op, { identity: 'nobody', password: PASSWORD }));
      assert.equal(unknown.status, 401);
      const cases = [
        ['wrong password', { identity: 'active', password: 'wrong-password' }],
        ['unknown email', { identity: 'nobody@example.com', password: PASSWORD }],
        ['disabled, right password', { identity: 'disabled', password: PASSWORD }],
        ['pending, right password', { identity: 'pending', password: PASSWORD }],
        ['locked, right password', { identity: 'locked', password: PASSWORD }],
        ['locked by email, right password', { identity: 'locked@example.com', password: PASSWORD }],
      ] as const;
      for (const [name, body] of cases) assert.deepEqual(strip(await s.users(op, body)), unknown, `${op}: ${name}`);
    }
  });

  test('lockout counts failures of token and signin together; a reset lifts it', async () => {
    await s.createUser('mixed');
    await s.users('token', { identity: 'mixed', password: 'wrong-1' });
    await s.users('signin', { identity: 'mixed', password: 'wrong-2' });
    await s.users('token', { identity: 'mixed@example.com', password: 'wrong-3' });
    assert.equal(
      (await s.users('signin', { identity: 'mixed', password: PASSWORD })).status,
      401,
      'locked after three failures across both operations',
    );
    assert.equal((await s.users('token', { identity: 'mixed', password: PASSWORD })).status, 401);
    await s.users('resetPassword', { identity: 'mixed' });
    const mail = await s.lastMail('mixed@example.com');
    const resetToken = decodeURIComponent(/[?&]token=([^\s&"<]+)/.exec(mail.text)?.[1] ?? '');
    assert.deepEqual((await s.users('resetPassword2', { token: resetToken, newpassword: 'after-reset-1' })).body, {
      result: true,
    });
    assert.equal((await s.users('signin', { identity: 'mixed', password: 'after-reset-1' })).status, 200);
  });

  test('resetPassword answers { result: true } for every identity, and mails only an active account', async () => {
    const before = (await s.outbox()).length;
    for (const identity of ['active', 'nobody', 'nobody@example.com', 'disabled', 'pending', 'locked']) {
      const res = await s.users('resetPassword', { identity });
      assert.deepEqual([res.status, res.body], [200, { result: true }], identity);
    }
    const sent = (await s.outbox())
      .slice(before)
      .map((mail) => mail.to)
      .sort();
    assert.deepEqual(sent, ['active@example.com', 'locked@example.com']);
  });

  test('sign-up says a name or email is taken (nothing more), under an open policy, at sign-in rate', async () => {
    assert.equal(
      (await s.users('signupDirect', { name: 'active', email: 'x@example.com', password: PASSWORD })).status,
      403,
      'closed by default: nothing to learn',
    );
    await s.grant('signupDirect', ['sys:everyone']);
    const taken = await s.users('signupDirect', { name: 'ACTIVE', email: 'active@example.com', password: PASSWORD });
    assert.equal(taken.status, 200);
    assert.deepEqual(taken.body.invalid, [
      ['name', 'exists'],
      ['email', 'exists'],
    ]);
    assert.deepEqual(Object.keys(taken.body).sort(), ['code', 'invalid', 'message', 'messages', 'result']);
    const signups = userOperations(s.roost.users, s.roost.config).filter((r) => r.op.startsWith('signup'));
    assert.equal(signups.length, 5);
    for (const route of signups) assert.equal(route.limited, true, `${route.op} is rate limited like token and signin`);
  });
});

describe('oversized, deep, long and slow requests', () => {
  let s: TestServer;
  let token: string;
  before(async () => {
    s = await startServer();
    token = await s.createUser('alice');
  });
  after(() => s.close());

  const failure = (res: WireAnswer) => [res.status, (res.json as { code?: string } | undefined)?.code];

  test('a 10 MB JSON body is 413 body_too_large on every service; so is one without Content-Length', async () => {
    const big = JSON.stringify({ key: 'k', value: 'x'.repeat(10 * 1024 * 1024) });
    for (const path of ['/users/api/update', '/data/api/setItem', '/files/@newItem']) {
      const res = await send(s.url, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'x-auth-token': token },
        body: big,
      });
      assert.deepEqual(failure(res), [413, 'body_too_large'], path);
    }
    const chunked = await fetch(`${s.url}/data/api/setItem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
  });

  test('a URL over 16 KiB and a header flood are 431 with the failure body; the server goes on', async () => {
    const long = await send(s.url, { method: 'GET', path: `/data/api/keys?x=${'a'.repeat(20_000)}`, headers: {} });
    assert.deepEqual(failure(long), [431, 'headers_too_large']);
    const headers: Record<string, string> = {};
    for (let i = 0; i < 800; i++) headers[`x-flood-${i}`] = 'v'.repeat(30);
    const flood = await send(s.url, { method: 'GET', path: '/users/api/ping', headers });
    assert.deepEqual(failure(flood), [431, 'headers_too_large']);
    assert.equal((await s.request('/users/api/ping')).status, 200);
  });

  test('a request line the parser cannot read is 400 with the failure body', async () => {
    const { connect } = await import('node:net');
    const url = new URL(s.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write('GET /users/api/ping HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
      );
      let data = '';
      socket.on('data', (c) => (data += c.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    assert.match(text, /^HTTP\/1\.1 400/);
    assert.match(text, /"code":"malformed_request"/);
  });

  test('thousands of query and form parameters are answered normally', async () => {
    const query = Array.from({ length: 1500 }, (_, i) => `p${i}=${i}`).join('&');
    const res = await send(s.url, {
      method: 'GET',
      path: `/data/api/keys?${query}`,
      headers: { 'x-auth-token': token },
    });
    assert.equal(res.status, 200);
    const form = Array.from({ length: 50_000 }, (_, i) => `p${i}=${i}`).join('&');
    const posted = await send(s.url, {
      method: 'POST',
      path: '/data/api/keys',
      headers: { 'x-auth-token': token, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    assert.equal(posted.status, 200);
  });

  test('clients that send half a request and stall do not hold up anyone else', async () => {
    const { connect } = await import('node:net');
    const url = new URL(s.url);
    const stalled = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          new Promise<import('node:net').Socket>((resolve) => {
            const socket = connect(Number(url.port), url.hostname, () => {
              // Half the headers, or all of them and half of a declared body.
              socket.write(
                i % 2
                  ? 'POST /data/api/setItem HTTP/1.1\r\nHost: x\r\nX-Slow: '
                  : `POST /data/api/setItem HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-auth-token: ` +
                      `${token}\r\nContent-Length: 1000\r\n\r\n{"key":"slow",`,
              );
              resolve(socket);
            });
            socket.on('error', () => {});
          }),
      ),
    );
    try {
      for (let i = 0; i < 20; i++)
        assert.equal((await s.request('/data/api/setItem', { key: `fast-${i}`, value: i }, { token })).status, 200);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
    assert.equal(
      (await s.request('/data/api/getItem', { key: 'slow' }, { token })).status,
      404,
      'the stalled write stored nothing',
    );
  });
});
