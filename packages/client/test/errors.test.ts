import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { runInNewContext } from 'node:vm';
import { datastore, filestore, isRoostError, RoostError, users } from '../src/index.js';
import { MAX_FILE_BYTES, PASSWORD, startRoost, type TestServer } from './helpers/roost.js';

/**
 * Each kind of failure maps onto one RoostError with the right status, code, messages and
 * field pairs; the callbacks of the options and of a call see every outcome.
 */

/** The error a promise rejects with (fails when it resolves). */
async function failure(promise: Promise<unknown>): Promise<RoostError> {
  const error = await promise.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RoostError, String(error));
  assert.ok(isRoostError(error));
  return error;
}

/** A TCP server that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An address where nothing listens. */
async function deadAddress(): Promise<string> {
  const server = await silentServer();
  await server.close();
  return server.url;
}

describe('connector failures', () => {
  let s: TestServer;
  let token: string;
  before(async () => {
    s = await startRoost();
    token = await s.createUser('alice');
    await s.createUser('bob');
  });
  after(() => s.close());

  test("200 with result false: the user service's validation failure", async () => {
    const error = await failure(users({ baseUrl: s.url, token }).updatePassword(PASSWORD, 'short'));
    assert.deepEqual([error.status, error.code, error.operation], [200, 'validation_failure', 'updatePassword']);
    assert.deepEqual(error.fields, [['newpassword', 'too short']]);
    assert.deepEqual(error.messages, ['Some fields are missing or invalid.']);
    assert.equal(error.reason('newpassword'), 'too short');
    assert.equal(error.reason('password'), undefined);
  });

  test('401 not signed in, 403 not allowed, 404 not found', async () => {
    const anonymous = await failure(users({ baseUrl: s.url }).profile());
    assert.deepEqual(
      [anonymous.status, anonymous.code, anonymous.message, anonymous.fields],
      [401, 'not_signed_in', 'Sign in first.', []],
    );
    const forbidden = await failure(users({ baseUrl: s.url, token }).getUser('bob'));
    assert.deepEqual(
      [forbidden.status, forbidden.code, forbidden.message],
      [403, 'not_allowed', 'You are not allowed to do this.'],
    );
    const missing = await failure(datastore('data', { baseUrl: s.url, token }).getItem('nothing'));
    assert.deepEqual([missing.status, missing.code, missing.fields], [404, 'item_not_found', [['key', 'not found']]]);
    // A store the server does not have: 404 from the router, still a RoostError with a code.
    const unknown = await failure(datastore('nostore', { baseUrl: s.url, token }).ping());
    assert.deepEqual([unknown.status, unknown.code], [404, 'not_found']);
  });

  test('413 too large, 422 invalid, 429 rate limited (with its Retry-After)', async () => {
    const tooLarge = await failure(
      filestore('files', { baseUrl: s.url, token }).write('big.bin', new Uint8Array(MAX_FILE_BYTES + 1)),
    );
    assert.deepEqual([tooLarge.status, tooLarge.code], [413, 'storage_limit']);
    const bodyTooLarge = await failure(users({ baseUrl: s.url, token }).update({ data: 'x'.repeat(2 * 1024 * 1024) }));
    assert.deepEqual([bodyTooLarge.status, bodyTooLarge.code], [413, 'body_too_large']);
    const invalid = await failure(datastore('data', { baseUrl: s.url, token }).list({ sort: 'colour' as never }));
    assert.deepEqual(
      [invalid.status, invalid.code, invalid.fields],
      [422, 'validation_failure', [['sort', 'invalid']]],
    );

    const limited = await startRoostWithLimit();
    try {
      const auth = users({ baseUrl: limited.url });
      await failure(auth.token('alice', 'wrong-password'));
      const error = await failure(auth.token('alice', 'wrong-password'));
      assert.deepEqual([error.status, error.code], [429, 'rate_limited']);
      assert.equal(error.body.retryAfter, '60');
    } finally {
      await limited.close();
    }
  });

  test('network error: nothing listens (status 0, code network_error, the cause kept)', async () => {
    const error = await failure(users({ baseUrl: await deadAddress() }).ping());
    assert.deepEqual([error.status, error.code, error.operation], [0, 'network_error', 'ping']);
    assert.match(error.message, /^The connection to http:\/\/127\.0\.0\.1:\d+ failed/);
    assert.ok(error.cause instanceof Error);
  });

  test("timeout: no answer within the option's time (or the call's own)", async () => {
    const silent = await silentServer();
    try {
      const error = await failure(users({ baseUrl: silent.url, timeout: 200 }).ping());
      assert.deepEqual([error.status, error.code, error.message], [0, 'timeout', 'No answer within 200 ms.']);
      const own = await failure(users({ baseUrl: silent.url }).ping({ timeout: 100 }));
      assert.equal(own.code, 'timeout');
      const upload = await failure(
        filestore('files', { baseUrl: silent.url, timeout: 200 }).write('a.txt', 'x', { onProgress: () => {} }),
      );
      assert.equal(upload.code, 'timeout');
    } finally {
      await silent.close();
    }
  });

  test("aborted by the caller's signal", async () => {
    const silent = await silentServer();
    try {
      const controller = new AbortController();
      const pending = users({ baseUrl: silent.url }).ping({ signal: controller.signal });
      controller.abort();
      const error = await failure(pending);
      assert.deepEqual([error.status, error.code], [0, 'aborted']);
    } finally {
      await silent.close();
    }
  });

  test("not Roost answering (a proxy's page): invalid_answer for a 200, http_<status> for a failure", async () => {
    const proxy = createHttpServer((request, response) => {
      response.writeHead(request.url?.endsWith('/ping') ? 200 : 502, { 'content-type': 'text/html' });
      response.end('<html>Bad gateway</html>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const notJson = await failure(users({ baseUrl }).ping());
      assert.deepEqual(
        [notJson.status, notJson.code, notJson.message],
        [200, 'invalid_answer', 'The answer is not a JSON object.'],
      );
      const gateway = await failure(users({ baseUrl }).profile());
      assert.deepEqual(
        [gateway.status, gateway.code, gateway.message, gateway.fields],
        [502, 'http_502', 'profile failed with HTTP 502', []],
      );
      const upload = await failure(filestore('files', { baseUrl }).write('a.txt', 'x', { onProgress: () => {} }));
      assert.deepEqual([upload.status, upload.code], [502, 'http_502']);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  test('callbacks: onSuccess/onFailure of the options and success/failure of a call', async () => {
    const seen: string[] = [];
    const auth = users({
      baseUrl: s.url,
      onSuccess: (operation) => seen.push(`options success ${operation}`),
      onFailure: (error) => seen.push(`options failure ${error.operation} ${error.code}`),
    });
    const answer = await auth.ping({ success: (result) => seen.push(`call success ${result.result}`) });
    assert.deepEqual(answer, { result: 1 });
    await failure(auth.profile({ failure: (error) => seen.push(`call failure ${error.status}`) }));
    assert.deepEqual(seen, [
      'options success ping',
      'call success 1',
      'options failure profile not_signed_in',
      'call failure 401',
    ]);
  });

  test('a failure callback handles the failure: an unawaited call is no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const failed = new Promise<RoostError>((resolve) => {
        void users({ baseUrl: s.url }).profile({ failure: resolve });
      });
      assert.equal((await failed).code, 'not_signed_in');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  test('options are checked at once: unknown names, a bad baseUrl or timeout throw TypeError', () => {
    assert.throws(() => users({ baseURL: s.url } as never), /unknown connector option\(s\): baseURL/);
    assert.throws(() => users({}), /baseUrl/);
    assert.throws(() => users({ baseUrl: 'ftp://example.com' }), /baseUrl/);
    assert.throws(() => datastore('data', { baseUrl: s.url, timeout: -1 }), /timeout/);
    assert.throws(() => users({ baseUrl: s.url, credentials: true as never }), /credentials/);
  });

  test('isRoostError: by class, and by name and shape across realms', () => {
    assert.equal(isRoostError(new RoostError('x')), true);
    assert.equal(isRoostError(new Error('x')), false);
    assert.equal(isRoostError({ name: 'RoostError' }), false);
    assert.equal(isRoostError(null), false);
    const foreign: unknown = runInNewContext(
      'const e = new Error("x"); e.name = "RoostError"; e.status = 404; e.code = "not_found"; e.fields = []; e',
    );
    assert.equal(foreign instanceof Error, false);
    assert.equal(isRoostError(foreign), true);
  });
});

/** A Roost allowing one failed `token` call a minute per client. */
async function startRoostWithLimit(): Promise<TestServer> {
  const { startServer } = await import('../../server/test/helpers/test-server.js');
  return startServer({ rateLimit: { max: 1, windowSeconds: 60, signinFailures: 1, signinFailureWindowSeconds: 60 } });
}
