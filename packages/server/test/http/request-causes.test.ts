import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { RoostExtension } from '../../src/extend/extension.js';
import { programCaller } from '../../src/users/index.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/** Webhooks and jobs are listed by administrators (core/grants.ts `backendGrants`). */
const ADMIN = programCaller('test').principal;

/** Retries `check` until it passes (log lines are written after the answers and the runs), 10 s at most. */
async function eventually(check: () => void): Promise<void> {
  for (const deadline = Date.now() + 10_000; ; ) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

type Line = Record<string, unknown> & { reqId?: string; msg?: string; job?: { kind: string; id: string } };

/**
 * An after-hook on the data store's creates, and the background job it enqueues with its caller
 * as the cause (extend/jobs.ts `EnqueueOptions.cause`): both are jobs a request caused.
 */
const followUps: Array<{ key: string; attempt: number }> = [];
/** Enqueues the follow-up as a program does: no request, no cause. */
let enqueueUncaused: (key: string) => Promise<string> = async () => '';
const extension: RoostExtension = (roost) => {
  const followUp = roost.jobs.define<{ key: string }>('follow-up', ({ key }, { attempt }) => {
    followUps.push({ key, attempt });
  });
  enqueueUncaused = (key) => roost.jobs.enqueue(followUp, { key });
  roost.hooks.after('item.create', { store: 'data' }, async ({ item, caller }) => {
    await roost.jobs.enqueue(followUp, { key: item.key }, { cause: caller });
  });
};

/**
 * A request's id carried into what it causes (issue 42, item 2; docs/operations.md, "Logs"): the
 * caller's principal carries it (http/auth.ts), the change's event keeps it (core/events.ts), the
 * webhook delivery sends it as `X-Request-Id` and keeps it in its delivery log, and the jobs the
 * request caused (the delivery, an after-hook, a job enqueued by it) keep it and log each run
 * with it as `reqId`, as the request's own line has it. Over HTTP, with a real receiver.
 */
describe("a request's id in the webhooks and jobs it causes", () => {
  let s: TestServer;
  const lines: Line[] = [];
  let hook: Awaited<ReturnType<typeof receiver>>;
  let alice: string;
  before(async () => {
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Line) });
    s = await startServer(
      {
        logLevel: 'info',
        trustRequestId: true,
        webhooks: { retrySeconds: 0.05, maxAttempts: 3 },
        fileStores: { files: {} },
      },
      { log, extensions: [extension] },
    );
    hook = await receiver();
    alice = await s.createUser('alice');
  });
  after(async () => {
    await s.close();
    await hook.close();
  });

  const runLines = (id: string) => lines.filter((l) => l.msg === 'job run' && l.reqId === id);

  test('a write with a trusted x-request-id: the receiver and the delivery log have it, each job logs it', async () => {
    const webhook = await s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: ['item.created'] });
    try {
      const id = `abc-${randomUUID()}`;
      const written = await s.request(
        '/data/api/newItem',
        { key: 'caused', value: 1 },
        { token: alice, headers: { 'x-request-id': id } },
      );
      assert.equal(written.status, 200);
      assert.equal(written.headers.get('x-request-id'), id);
      await s.roost.webhooks.idle();
      await s.roost.jobs.idle();

      const got = hook.received.find((r) => JSON.parse(r.body).key === 'caused');
      assert.equal(got?.headers['x-request-id'], id, 'the receiver sees the request id');
      const [delivery] = await s.roost.webhooks.deliveries(ADMIN, webhook.id, 10);
      assert.deepEqual([delivery?.state, delivery?.requestId], ['delivered', id]);

      // The delivery, the after-hook and the job the hook enqueued: each kept and logged with it.
      assert.deepEqual(followUps, [{ key: 'caused', attempt: 1 }]);
      const jobs = await s.roost.jobs.list(ADMIN, { requestId: id, limit: 10 });
      assert.deepEqual(jobs.map((j) => j.kind).sort(), ['hook', 'job:follow-up', 'webhook']);
      assert.ok(jobs.every((j) => j.state === 'done' && j.requestId === id));
      await eventually(() => assert.equal(runLines(id).length, 3));
      assert.deepEqual(
        runLines(id)
          .map((l) => l.job?.kind)
          .sort(),
        ['hook', 'job:follow-up', 'webhook'],
      );
      // The request's own line has the same id: one search finds the request and what it caused.
      assert.ok(lines.some((l) => l.msg === 'request completed' && l.reqId === id));
    } finally {
      await s.roost.webhooks.remove(ADMIN, webhook.id);
    }
  });

  test('no header: the generated id travels; a failing receiver gets it on every try', async () => {
    const failing = await receiver([500]);
    const webhook = await s.roost.webhooks.add(ADMIN, { url: failing.url, service: 'files', kinds: [] });
    try {
      const written = await s.request(
        '/files/api/@newItem',
        { name: 'caused.txt', type: 'f', contents: 'x' },
        { token: alice },
      );
      assert.equal(written.status, 200);
      const id = written.headers.get('x-request-id') ?? '';
      assert.notEqual(id, '');
      // The retry waits its backoff (50 ms), so it is not due when the first try is done.
      await eventually(() => assert.equal(failing.received.length, 2));
      assert.deepEqual(
        failing.received.map((r) => [
          r.headers['x-roost-event'],
          r.headers['x-request-id'],
          r.headers['x-roost-delivery'],
        ]),
        [
          ['file.created', id, failing.received[0]?.headers['x-roost-delivery']],
          ['file.created', id, failing.received[0]?.headers['x-roost-delivery']],
        ],
        'tried again with the same request id and delivery id',
      );
      await eventually(() =>
        assert.deepEqual(
          lines
            .filter((l) => l.reqId === id && (l.msg === 'job run' || l.msg === 'job run failed'))
            .map((l) => [l.msg, l.outcome]),
          [
            ['job run failed', 'failed'],
            ['job run', 'done'],
          ],
        ),
      );
    } finally {
      await s.roost.webhooks.remove(ADMIN, webhook.id);
      await failing.close();
    }
  });

  test("a mail a request sends is a job with the request's id: its run line has it", async () => {
    const id = `mail-${randomUUID()}`;
    const asked = await s.users(
      'verifyEmail',
      { email: 'alice-new@example.com' },
      { token: alice, headers: { 'x-request-id': id } },
    );
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    assert.equal((await s.lastMail('alice-new@example.com')).kind, 'verify_email');
    // A delivered mail's job is deleted (it holds a token); its line stays.
    await eventually(() =>
      assert.deepEqual(
        runLines(id).map((l) => [l.job?.kind, l.outcome]),
        [['mail', 'done']],
      ),
    );
  });

  test('a job no request caused logs no reqId', async () => {
    await s.roost.webhooks.idle();
    const before = lines.length;
    const jobId = await enqueueUncaused('by-a-program');
    await s.roost.jobs.idle();
    await eventually(() => assert.ok(followUps.some((f) => f.key === 'by-a-program')));
    const line = lines.slice(before).find((l) => l.msg === 'job run' && l.job?.id === jobId);
    assert.ok(line);
    assert.equal((await s.roost.jobs.list(ADMIN, { id: jobId, limit: 1 }))[0]?.requestId, null);
    assert.equal('reqId' in line, false);
  });
});
