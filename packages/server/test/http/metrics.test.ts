import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { ConfigError, parseConfig } from '../../src/core/config.js';
import { startServer } from '../helpers/test-server.js';
import { openStream } from '../helpers/event-stream.js';

/** `/metrics` (http/metrics.ts, docs/operations.md "Metrics"): content and who may read it. */

/** The value of one sample in Prometheus' text format (labels in any order), or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return null;
}

/** GET from a given loopback address (fetch cannot choose its local address). */
function getFrom(from: string, url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end();
  });
}

describe('metrics of live changes', () => {
  test('open streams and frames written', async () => {
    const s = await startServer();
    try {
      const admin = await s.adminToken();
      const read = async () => (await s.request('/metrics', undefined, { token: admin })).body as string;
      assert.equal(sample(await read(), 'roost_realtime_streams'), 0);
      const stream = await openStream(s.url, { token: admin, topics: ['items/data'] });
      try {
        await s.request('/data/api/newItem', { key: 'm', value: 1 }, { token: admin });
        await stream.next();
        const text = await read();
        assert.equal(sample(text, 'roost_realtime_streams'), 1);
        assert.ok((sample(text, 'roost_realtime_frames_total') ?? 0) >= 2, 'connect and the event');
        assert.equal(sample(text, 'roost_realtime_dropped_total'), 0);
      } finally {
        stream.close();
      }
    } finally {
      await s.close();
    }
  });
});

describe('metrics', () => {
  test('only administrators read /metrics by default: anonymous 401, a user 403, an admin token 200', async () => {
    const s = await startServer();
    try {
      const anonymous = await s.request('/metrics');
      assert.equal(anonymous.status, 401);
      assert.deepEqual([anonymous.body.result, anonymous.body.code], [false, 'not_signed_in']);
      assert.match(anonymous.body.message, /metrics\.allow/);
      const user = await s.request('/metrics', undefined, { token: await s.createUser('carol') });
      assert.equal(user.status, 403);
      assert.equal(user.body.code, 'not_allowed');
      const admin = await s.adminToken();
      for (const headers of [{ 'x-auth-token': admin }, { authorization: `Bearer ${admin}` }] as Record<
        string,
        string
      >[]) {
        const res = await fetch(`${s.url}/metrics`, { headers });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.match(await res.text(), /^# HELP /m);
      }
      // A forged or expired token is an anonymous caller.
      assert.equal((await s.request('/metrics', undefined, { token: 'x'.repeat(64) })).status, 401);
      // Not a write: other methods are not routes.
      const post = await s.request('/metrics', {}, { method: 'POST', token: admin });
      assert.equal(post.status, 404);
      assert.equal(post.body.result, false);
    } finally {
      await s.close();
    }
  });

  test('configured addresses and ranges read without a token; others still need an administrator', async () => {
    const s = await startServer({ metrics: { allow: ['127.0.0.2', '127.0.1.0/24', '::1'] } });
    try {
      assert.equal((await getFrom('127.0.0.2', `${s.url}/metrics`)).status, 200);
      assert.equal((await getFrom('127.0.1.7', `${s.url}/metrics`)).status, 200);
      assert.equal((await getFrom('127.0.0.1', `${s.url}/metrics`)).status, 401);
      assert.equal((await getFrom('127.0.0.3', `${s.url}/metrics`)).status, 401);
    } finally {
      await s.close();
    }
  });

  test('requests by route and status, latency, sign-in failures, 429s, cache hits, mail, event loop', async () => {
    const s = await startServer({ metrics: { allow: ['127.0.0.1'] }, rateLimit: { signinFailures: 3 } });
    try {
      const scrape = async () => (await fetch(`${s.url}/metrics`)).text();
      const before = await scrape();
      const token = await s.createUser('dave');
      for (let i = 0; i < 3; i++) await s.users('profile', {}, { token });
      for (let i = 0; i < 4; i++) await s.users('token', { identity: 'dave', password: 'wrong password' });
      await s.users('verifyEmail', {}, { token });
      await s.request('/no/such/route');
      const after = await scrape();
      const delta = (name: string, labels: Record<string, string> = {}) =>
        (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);

      assert.equal(
        delta('roost_http_requests_total', { method: 'POST', route: '/users/api/profile', status: '200' }),
        3,
      );
      assert.equal(
        delta('roost_http_request_duration_seconds_count', { method: 'POST', route: '/users/api/profile' }),
        3,
      );
      assert.ok(
        (sample(after, 'roost_http_request_duration_seconds_bucket', {
          method: 'POST',
          route: '/users/api/profile',
          le: '+Inf',
        }) ?? 0) >= 3,
      );
      // Three wrong passwords are failures; the fourth attempt is refused for the address before any check.
      assert.equal(delta('roost_http_requests_total', { method: 'POST', route: '/users/api/token', status: '401' }), 3);
      assert.equal(delta('roost_signin_failures_total'), 3);
      assert.equal(delta('roost_http_throttled_requests_total', { route: '/users/api/token' }), 1);
      // An unknown URL is counted under one label, not under its own path.
      assert.equal(delta('roost_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
      assert.doesNotMatch(after, /no\/such\/route/);
      assert.ok(
        delta('roost_cache_hits_total', { cache: 'session' }) >= 2,
        'profile after profile is answered from the session cache',
      );
      assert.ok(sample(after, 'roost_mail_queue', { state: 'due' }) !== null);
      assert.ok((sample(after, 'roost_open_connections') ?? 0) >= 1);
      assert.ok(sample(after, 'nodejs_eventloop_lag_p99_seconds') !== null);
      assert.ok(sample(after, 'process_resident_memory_bytes') !== null);
      // Every sample line parses, and the scrape is not itself a failure body.
      for (const line of after.split('\n'))
        if (line && !line.startsWith('#')) assert.match(line, /^[a-zA-Z_:][\w:]*(\{.*\})? \S+$/, line);
    } finally {
      await s.close();
    }
  });

  test('metrics.enabled false: no /metrics route', async () => {
    const s = await startServer({ metrics: { enabled: false } });
    try {
      const res = await s.request('/metrics', undefined, { token: await s.adminToken() });
      assert.equal(res.status, 404);
      assert.equal(res.body.result, false);
    } finally {
      await s.close();
    }
  });

  test('metrics.allow refuses what is not an address or a range, naming the setting', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '::1/129', '1.2.3.4/8/1', '', '10.0.0.0/', '<script>']) {
      assert.throws(
        () => parseConfig({ metrics: { allow: [bad] } }),
        (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.includes('metrics.allow')),
        bad,
      );
    }
    assert.doesNotThrow(() => parseConfig({ metrics: { allow: ['10.0.0.0/8', '192.168.1.10', 'fd00::/8', '::1'] } }));
  });
});
