import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { pino } from 'pino';
import type { ConfigInput } from '../../src/core/config.js';
import { programCaller } from '../../src/users/index.js';
import { authCookie, getPage, textOf } from '../helpers/pages.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Line = Record<string, unknown> & {
  reqId?: string;
  msg?: string;
  req?: { id: string; method: string; url: string; remoteAddress: string };
  res?: { statusCode: number };
};

/** A server whose log (pino's JSON lines at `info`) is kept for the test to read. */
async function loggedServer(input: ConfigInput): Promise<{ server: TestServer; lines: Line[]; raw: string[] }> {
  const raw: string[] = [];
  const lines: Line[] = [];
  const log = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Line);
      },
    },
  );
  const server = await startServer({ logLevel: 'info', fileStores: { files: {} }, ...input }, { log });
  return { server, lines, raw };
}

/** The request's line (`request completed`), once written (it is written after the answer). */
async function requestLine(lines: Line[], id: string): Promise<Line> {
  for (let waited = 0; waited < 5000; waited += 20) {
    const line = lines.find((l) => l.msg === 'request completed' && l.reqId === id);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no request line for ${id}`);
}

/** A GET with raw header bytes (fetch refuses control characters before they leave). */
async function rawGet(url: string, path: string, headerLines: string): Promise<{ head: string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: roost\r\nConnection: close\r\n${headerLines}\r\n`, 'latin1'));
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { head: text.split('\r\n\r\n')[0] ?? '' };
}
const headerOf = (head: string, name: string) => new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(head)?.[1] ?? null;

/**
 * The request log and request ids (docs/operations.md, "Logs"; http/request-log.ts,
 * http/request-id.ts): one line per request in pino-http's shape, the id echoed in
 * `x-request-id` and on every line of the request, taken from the client only when trusted and
 * only when harmless, file routes by their store's pattern, secrets of URLs left out.
 */
describe('request log and request ids', () => {
  describe('by default (no trusted proxy)', () => {
    let s: { server: TestServer; lines: Line[]; raw: string[] };
    before(async () => {
      s = await loggedServer({ metrics: { enabled: true } });
    });
    after(() => s.server.close());

    test("one line per request in pino-http's shape, its id a UUID echoed in x-request-id", async () => {
      const token = await s.server.createUser('logged');
      const res = await fetch(`${s.server.url}/data/api/getItem?key=absent`, {
        headers: { 'x-auth-token': token, 'x-request-id': 'chosen-by-the-client' },
      });
      assert.equal(res.status, 404);
      const id = res.headers.get('x-request-id') ?? '';
      assert.match(id, UUID, 'the client is not trusted: its id is not taken');
      const line = await requestLine(s.lines, id);
      assert.deepEqual(line.req, {
        id,
        method: 'GET',
        url: '/data/api/getItem?key=absent',
        remoteAddress: '127.0.0.1',
      });
      assert.deepEqual(line.res, { statusCode: 404 });
      assert.equal(typeof line.responseTime, 'number');
      assert.equal(line.route, '/data/api/getItem');
      assert.equal(line.code, 'item_not_found');
      assert.match(String(line.userId), UUID);
      assert.equal(line.level, 30);
      // The failure's own line carries the same id: every line of a request does.
      assert.ok(s.lines.some((l) => l !== line && l.reqId === id && l.code === 'item_not_found'));
      assert.equal(s.lines.filter((l) => l.msg === 'request completed' && l.reqId === id).length, 1);
      assert.ok(!s.raw.some((l) => l.includes('chosen-by-the-client')));
    });

    test('each request gets its own id, failures and unknown routes included', async () => {
      const a = await fetch(`${s.server.url}/users/api/ping`);
      const b = await fetch(`${s.server.url}/no/such/route`);
      const ids = [a.headers.get('x-request-id'), b.headers.get('x-request-id')];
      for (const id of ids) assert.match(String(id), UUID);
      assert.notEqual(ids[0], ids[1]);
      assert.equal((await requestLine(s.lines, String(ids[1]))).res?.statusCode, 404);
    });

    test('file routes are logged and counted by their store pattern, not the path', async () => {
      const token = await s.server.createUser('filer');
      const written = await fetch(`${s.server.url}/files/private-report.txt/@write`, {
        method: 'PUT',
        headers: { 'x-auth-token': token, 'content-type': 'text/plain' },
        body: 'hello',
      });
      assert.equal(written.status, 200, await written.clone().text());
      const read = await fetch(`${s.server.url}/files/private-report.txt`, { headers: { 'x-auth-token': token } });
      assert.equal(await read.text(), 'hello');
      const unknown = await fetch(`${s.server.url}/files/x/@no-such-op`, { headers: { 'x-auth-token': token } });
      assert.equal(unknown.status, 404);
      const routes = await Promise.all(
        [written, read, unknown].map(
          async (r) => (await requestLine(s.lines, String(r.headers.get('x-request-id')))).route,
        ),
      );
      assert.deepEqual(routes, ['/files/{path}/@write', '/files/{path}', '/files/{path}/@unknown']);
      const admin = await s.server.adminToken();
      const metrics = await (await fetch(`${s.server.url}/metrics`, { headers: { 'x-auth-token': admin } })).text();
      assert.match(
        metrics,
        /roost_http_requests_total\{method="PUT",route="\/files\/\{path\}\/@write",status="200"\} 1/,
      );
      assert.match(metrics, /route="\/files\/\{path\}",status="200"\} 1/);
      assert.doesNotMatch(metrics, /private-report|route="\/files\/\*"/);
    });

    test("a URL's secrets are not logged", async () => {
      const res = await fetch(`${s.server.url}/users/api/ping?token=very-secret-1&x=1&Password=very-secret-2`);
      const line = await requestLine(s.lines, String(res.headers.get('x-request-id')));
      assert.equal(line.req?.url, '/users/api/ping?token=[redacted]&x=1&Password=[redacted]');
      // The user service's operations take their fields in a GET's query too: none of its credentials is logged.
      const credentials =
        'newpassword=very-secret-3&smsCode=very-secret-4&recoveryCode=very-secret-5&idToken=very-secret-6';
      const other = await fetch(`${s.server.url}/users/api/ping?${credentials}`);
      const otherLine = await requestLine(s.lines, String(other.headers.get('x-request-id')));
      assert.equal(
        otherLine.req?.url,
        '/users/api/ping?newpassword=[redacted]&smsCode=[redacted]&recoveryCode=[redacted]&idToken=[redacted]',
      );
      assert.ok(!s.raw.some((l) => l.includes('very-secret')));
    });
  });

  describe('behind a trusted proxy (trustProxy, so trustRequestId)', () => {
    let s: { server: TestServer; lines: Line[]; raw: string[] };
    before(async () => {
      s = await loggedServer({ trustProxy: true });
    });
    after(() => s.server.close());

    test("the proxy's x-request-id is the request's id: echoed and on every line", async () => {
      const sent = 'Root=1-67891233-abcdef012345678912345678;proxy:a/b+c';
      const res = await fetch(`${s.server.url}/users/api/profile`, { headers: { 'x-request-id': sent } });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('x-request-id'), sent);
      const line = await requestLine(s.lines, sent);
      assert.equal(line.req?.id, sent);
      assert.equal(line.code, 'not_signed_in');
    });

    test('a hostile x-request-id is replaced by a UUID, never echoed nor logged raw', async () => {
      const hostile = [
        'a'.repeat(129),
        'two words',
        'line\u0001break',
        'tab\there',
        'caf\u00e9',
        '',
        '{"level":60,"msg":"forged"}\u000d',
      ];
      for (const value of hostile) {
        const { head } = await rawGet(s.server.url, '/users/api/ping', `X-Request-Id: ${value}\r\n`);
        // Node's parser may refuse a header it cannot read at all (400): then nothing of it is echoed either.
        const echoed = headerOf(head, 'x-request-id');
        if (/^HTTP\/1\.1 400/.test(head)) assert.ok(echoed === null || UUID.test(echoed), head);
        else {
          assert.match(head, /^HTTP\/1\.1 200/, `${JSON.stringify(value)}: ${head}`);
          assert.match(String(echoed), UUID, JSON.stringify(value));
          await requestLine(s.lines, String(echoed));
        }
      }
      assert.ok(!s.raw.some((l) => l.includes('a'.repeat(129)) || l.includes('two words') || l.includes('forged')));
    });
  });

  describe('trustRequestId: false behind a trusted proxy', () => {
    let s: { server: TestServer; lines: Line[]; raw: string[] };
    before(async () => {
      s = await loggedServer({ trustProxy: true, trustRequestId: false });
    });
    after(() => s.server.close());

    test('the id sent is not taken', async () => {
      const res = await fetch(`${s.server.url}/users/api/ping`, { headers: { 'x-request-id': 'from-outside' } });
      assert.match(String(res.headers.get('x-request-id')), UUID);
    });
  });

  describe('kept for the logs page (requestLog.keep)', () => {
    let s: { server: TestServer; lines: Line[]; raw: string[] };
    let cookie: string;
    before(async () => {
      s = await loggedServer({ requestLog: { keep: true, retentionHours: 1 } });
      await s.server.adminToken();
      cookie = await authCookie(s.server, 'admin');
    });
    after(() => s.server.close());

    test('the requests are written after their answers, and the page filters them', async () => {
      const token = await s.server.createUser('kept');
      const missing = await fetch(`${s.server.url}/data/api/getItem?key=nothing&token=hidden-value`, {
        headers: { 'x-auth-token': token },
      });
      const ok = await fetch(`${s.server.url}/users/api/ping`);
      const [missingId, okId] = [missing.headers.get('x-request-id'), ok.headers.get('x-request-id')];
      await s.server.roost.requestRecords?.flush();
      const records = await s.server.roost.requestRecords?.list(programCaller('test').principal, {
        requestId: String(missingId),
        limit: 5,
      });
      assert.equal(records?.length, 1);
      const [record] = records ?? [];
      assert.match(String(record?.at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(
        [record?.status, record?.route, record?.code, record?.url],
        [404, '/data/api/getItem', 'item_not_found', '/data/api/getItem?key=nothing&token=[redacted]'],
      );

      const failures = await getPage(s.server, '/admin/logs?status=4xx', cookie);
      assert.equal(failures.status, 200);
      assert.match(failures.html, new RegExp(String(missingId)));
      assert.doesNotMatch(failures.html, new RegExp(String(okId)));
      const byRoute = await getPage(s.server, `/admin/logs?route=${encodeURIComponent('/users/api/ping')}`, cookie);
      assert.match(byRoute.html, new RegExp(String(okId)));
      assert.doesNotMatch(byRoute.html, new RegExp(String(missingId)));
      const later = await getPage(s.server, '/admin/logs?since=2999-01-01T00:00', cookie);
      assert.match(textOf(later.html), /No request here/);
      const story = await getPage(s.server, `/admin/logs/${missingId}`, cookie);
      assert.match(textOf(story.html), /item_not_found/);
      assert.doesNotMatch(story.html, /hidden-value/);
    });

    test('a bad filter is said on the page', async () => {
      for (const [query, message] of [
        ['status=teapot', /"teapot" is neither a status/],
        ['since=yesterday', /"yesterday" is not a time/],
      ] as const) {
        const page = await getPage(s.server, `/admin/logs?${query}`, cookie);
        assert.equal(page.status, 422);
        assert.match(textOf(page.html), message);
      }
      assert.equal((await getPage(s.server, '/admin/logs/no-such-request', cookie)).status, 404);
    });

    test('the logs page is for administrators only', async () => {
      const user = await authCookie(s.server, 'kept');
      const page = await getPage(s.server, '/admin/logs', user);
      assert.notEqual(page.status, 200);
    });
  });
});
