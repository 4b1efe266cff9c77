import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { mailJob } from '../../src/mail/mail-job.js';
import { createRoost } from '../../src/roost.js';
import { connectDatabase } from '../../src/storage/database-errors.js';
import { migrateTo } from '../../src/storage/migrations/index.js';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { createMigratedPostgresDatabase, createPostgresDatabase, startServer } from '../helpers/test-server.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { ANONYMOUS_CALLER, programCaller } from '../../src/users/index.js';
import { isRoostError } from '../../src/core/errors.js';

const ADMIN = programCaller('test').principal;

/**
 * The job queue (core/job-queue.ts, storage/job-store.ts; issue 38, item 4): a failed job runs
 * again after a growing pause, is kept as failed after its kind's last attempt, shows on the
 * admin page `/admin/jobs` and runs again from there; processes sharing PostgreSQL never run one
 * job twice; what waited in the tables before the queue (mail_queue, webhook_deliveries) is
 * carried over by its migration and delivered.
 */
const onPostgres = process.env.ROOST_TEST_DIALECT === 'postgres';

describe('the job queue', () => {
  test('a failing job is retried with backoff, kept as failed, shown on the admin page and run again', async () => {
    let now = Date.now();
    const clock = { now: () => now };
    const hook = await receiver([500, 502, 503]);
    const s = await startServer({ webhooks: { retrySeconds: 10, maxAttempts: 3 } }, { clock });
    try {
      const alice = await s.createUser('alice');
      const webhook = await s.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: ['item.created'] });
      await s.request('/data/api/newItem', { key: 'j1', value: 1 }, { token: alice });
      await s.roost.webhooks.idle();
      assert.equal(hook.received.length, 1);
      const [job] = await s.roost.jobs.list(ADMIN, { kind: 'webhook', limit: 10 });
      assert.ok(job);
      assert.equal(job.subject, webhook.id);
      assert.deepEqual([job.state, job.attempts, job.lastStatus, job.runAt], ['pending', 1, 500, now + 10_000]);

      // Not before its time; then after 10 s, then after 20 s (doubling), then failed.
      now += 9_000;
      await s.roost.jobs.idle();
      assert.equal(hook.received.length, 1, 'not tried again before the pause is over');
      now += 1_001;
      await s.roost.jobs.idle();
      assert.equal(hook.received.length, 2);
      const [second] = await s.roost.jobs.list(ADMIN, { id: job.id, limit: 1 });
      assert.deepEqual([second?.attempts, second?.runAt], [2, now + 20_000]);
      now += 20_001;
      await s.roost.jobs.idle();
      assert.equal(hook.received.length, 3);
      assert.deepEqual(
        new Set(hook.received.map((r) => r.headers['x-roost-delivery'])),
        new Set([job.id]),
        'one delivery id on every try',
      );
      const [failed] = await s.roost.jobs.list(ADMIN, { id: job.id, limit: 1 });
      assert.deepEqual([failed?.state, failed?.attempts, failed?.runAt], ['failed', 3, null]);
      assert.match(failed?.lastError ?? '', /^HTTP 503: thanks/);
      assert.deepEqual(await s.roost.jobs.counts(ADMIN, 'webhook'), { due: 0, retrying: 0, failed: 1 });

      // The admin page lists it, by kind and state, with its attempts and error.
      await s.adminToken();
      const cookie = await authCookie(s, 'admin');
      const list = await getPage(s, '/admin/jobs?kind=webhook&state=failed', cookie);
      assert.equal(list.status, 200, textOf(list.html));
      assert.match(textOf(list.html), /webhook\s*failed\s*3\s*HTTP 503: thanks/);
      assert.match(list.html, new RegExp(`href="/admin/jobs/${job.id}"`));
      assert.doesNotMatch(textOf((await getPage(s, '/admin/jobs?state=done', cookie)).html), /HTTP 503/);
      const bogus = await getPage(s, '/admin/jobs?state=bogus', cookie);
      assert.equal(bogus.status, 422);
      assert.match(textOf(bogus.html), /There is no state "bogus"/);

      // Run again from its page (CSRF checked), from its first attempt; the receiver answers 200 now.
      const page = await getPage(s, `/admin/jobs/${job.id}`, cookie);
      assert.equal(page.status, 200);
      assert.match(textOf(page.html), /Run again/);
      const withoutToken = await postForm(
        s,
        `/admin/jobs/${job.id}`,
        { confirm: job.id, retry$: 'retry$' },
        { cookie, headers: { origin: s.url } },
      );
      assert.equal(withoutToken.status, 403);
      assert.equal((await s.roost.jobs.list(ADMIN, { id: job.id, limit: 1 }))[0]?.state, 'failed');
      const retried = await postForm(
        s,
        `/admin/jobs/${job.id}`,
        { confirm: job.id, retry$: 'retry$', csrf: csrfOf(page.html) },
        { cookie, headers: { origin: s.url } },
      );
      assert.equal(retried.status, 303, textOf(retried.html));
      await s.roost.jobs.idle();
      assert.equal(hook.received.length, 4);
      const [done] = await s.roost.webhooks.deliveries(ADMIN, webhook.id, 10);
      assert.deepEqual([done?.state, done?.attempts, done?.lastStatus], ['delivered', 1, 200]);
      assert.match(textOf((await getPage(s, `/admin/jobs/${job.id}`, cookie)).html), /done/);

      // Administrators only; an unknown job is the failure page.
      await s.createUser('bob');
      assert.equal((await getPage(s, '/admin/jobs', await authCookie(s, 'bob'))).status, 403);
      assert.equal((await getPage(s, '/admin/jobs/nothing', cookie)).status, 404);
    } finally {
      await s.close();
      await hook.close();
    }
  });

  test("the queue's list and retry are for a caller that administers (issue 38, item 7)", async () => {
    const s = await startServer();
    try {
      await s.createUser('plain');
      const plain = s.roost.users.callerFor((await s.roost.users.findUser('plain'))!).principal;
      const refused = (code: string) => (err: unknown) => isRoostError(err) && err.code === code;
      await assert.rejects(s.roost.jobs.list(plain, { limit: 10 }), refused('not_allowed'));
      await assert.rejects(s.roost.jobs.retry(plain, 'no-such-job'), refused('not_allowed'));
      await assert.rejects(s.roost.jobs.counts(plain), refused('not_allowed'));
      await assert.rejects(s.roost.jobs.counts(ANONYMOUS_CALLER.principal), refused('not_signed_in'));
      await assert.rejects(s.roost.jobs.list(ANONYMOUS_CALLER.principal, { limit: 10 }), refused('not_signed_in'));
      await assert.rejects(s.roost.jobs.retry(ANONYMOUS_CALLER.principal, 'no-such-job'), refused('not_signed_in'));
      assert.deepEqual(await s.roost.jobs.list(ADMIN, { id: 'no-such-job', limit: 1 }), []);
      assert.equal(await s.roost.jobs.retry(ADMIN, 'no-such-job'), false);
    } finally {
      await s.close();
    }
  });

  test('a delayed job waits for its time; a second job with the same key is not added', async () => {
    let now = Date.now();
    const clock = { now: () => now };
    const s = await startServer({}, { clock });
    try {
      const mail = { to: 'later@example.com', subject: 'Later', text: 'later', html: '<p>later</p>', kind: 'note' };
      await s.roost.jobs.add(mailJob, mail, { runAt: now + 60_000, key: 'note-1' });
      await s.roost.jobs.add(mailJob, mail, { runAt: now + 60_000, key: 'note-1' });
      await s.roost.jobs.idle();
      assert.deepEqual(await s.roost.jobs.counts(ADMIN, 'mail'), { due: 0, retrying: 1, failed: 0 });
      now += 60_000;
      await s.roost.jobs.idle();
      assert.equal((await s.outbox()).filter((m) => m.kind === 'note').length, 1);
      assert.deepEqual(await s.roost.jobs.counts(ADMIN, 'mail'), { due: 0, retrying: 0, failed: 0 });
    } finally {
      await s.close();
    }
  });

  test('two processes on one PostgreSQL database never run one job twice', {
    skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
  }, async () => {
    const hook = await receiver();
    const a = await startServer();
    const b = await createRoost(a.roost.config);
    await b.listen({ port: 0, host: '127.0.0.1' });
    try {
      const alice = await a.createUser('alice');
      await a.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: ['item.created'] });
      const keys = Array.from({ length: 120 }, (_, i) => `p${i}`);
      await Promise.all(keys.map((key) => a.request('/data/api/newItem', { key, value: 1 }, { token: alice })));
      await Promise.all([a.roost.webhooks.idle(20_000), b.jobs.idle(20_000)]);
      await Promise.all([a.roost.jobs.idle(), b.jobs.idle()]);
      const ids = hook.received.map((r) => String(r.headers['x-roost-delivery']));
      assert.equal(ids.length, keys.length, 'each delivered once');
      assert.equal(new Set(ids).size, keys.length);
      const keysSent = hook.received.map((r) => (JSON.parse(r.body) as { key: string }).key).sort();
      assert.deepEqual(keysSent, [...keys].sort());
    } finally {
      await b.close();
      await a.close();
      await hook.close();
    }
  });

  test('mails and webhook deliveries waiting before the upgrade are carried over and delivered', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'roost-jobs-'));
    const pgDb = onPostgres ? await createPostgresDatabase() : null;
    const where = { dataDir, ...pgDb?.settings };
    const hook = await receiver();
    try {
      // The schema before the queue, with a pending mail, a pending and a delivered delivery.
      const { db } = await connectDatabase(where);
      const old = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      await migrateTo(db as Kysely<unknown>, '2026-11-29-01-datastore-counts');
      const now = Date.now();
      const mail = { to: 'old@example.com', subject: 'Old', text: 'old', html: '<p>old</p>', kind: 'reset' };
      await old
        .insertInto('mail_queue')
        .values({
          id: 'm1',
          kind: 'reset',
          recipient: mail.to,
          mail: JSON.stringify(mail),
          created: now,
          attempts: 2,
          next_attempt: now - 1,
          claimed_until: null,
          last_error: 'down',
        })
        .execute();
      await old
        .insertInto('webhooks')
        .values({ id: 'w1', url: hook.url, secret: 's', service: 'data', kinds: '[]', created: now })
        .execute();
      const delivery = (id: string, state: string, body: string) => ({
        id,
        webhook_id: 'w1',
        kind: 'item.created',
        payload: body,
        state,
        attempts: state === 'delivered' ? 1 : 0,
        created: now - (state === 'delivered' ? 1000 : 0),
        next_attempt: state === 'delivered' ? null : now - 1,
        claimed_until: null,
        last_status: state === 'delivered' ? 204 : null,
        last_error: null,
        delivered_at: state === 'delivered' ? now - 500 : null,
      });
      await old
        .insertInto('webhook_deliveries')
        .values([delivery('d1', 'delivered', '{"key":"sent"}'), delivery('d2', 'pending', '{"key":"waiting"}')])
        .execute();
      await db.destroy();

      const s = await startServer(where);
      try {
        assert.equal((await s.lastMail('old@example.com')).subject, 'Old');
        await s.roost.jobs.idle();
        assert.deepEqual(
          hook.received.map((r) => [r.headers['x-roost-delivery'], r.body]),
          [['d2', '{"key":"waiting"}']],
        );
        const log = await s.roost.webhooks.deliveries(ADMIN, 'w1', 10);
        assert.deepEqual(
          log.map((d) => [d.id, d.state, d.attempts, d.lastStatus]),
          [
            ['d2', 'delivered', 1, 200],
            ['d1', 'delivered', 1, 204],
          ],
        );
      } finally {
        await s.close();
      }
    } finally {
      await hook.close();
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('a stopping process claims nothing more: the due jobs are left to the next one (issue 42)', async () => {
    // A receiver that holds every delivery until told: the first claimed batch is in flight at the stop.
    const held: Array<() => void> = [];
    const deliveries: string[] = [];
    const slow = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        deliveries.push(String(request.headers['x-roost-delivery']));
        held.push(() => response.end('thanks'));
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`;
    const dataDir = await mkdtemp(join(tmpdir(), 'roost-jobs-stop-'));
    const pgDb = onPostgres ? await createMigratedPostgresDatabase() : null;
    const input = { dataDir, ...pgDb?.settings };
    try {
      const first = await startServer(input);
      const alice = await first.createUser('alice');
      await first.roost.webhooks.add(ADMIN, { url: hookUrl, service: 'data', kinds: ['item.created'] });
      for (let i = 0; i < 30; i++)
        await first.request('/data/api/newItem', { key: `s${i}`, value: i }, { token: alice });
      for (let waited = 0; deliveries.length === 0 && waited < 10_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const claimed = deliveries.length;
      assert.ok(claimed >= 1 && claimed < 30, `${claimed} in flight`);
      const closing = first.close();
      // The deliveries in flight finish during the stop; nothing more is claimed after them.
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const release of held.splice(0)) release();
      await closing;
      assert.equal(deliveries.length, claimed, 'no job claimed once the stop began');

      const next = await startServer(input);
      try {
        for (let waited = 0; new Set(deliveries).size < 30 && waited < 15_000; waited += 20) {
          for (const release of held.splice(0)) release();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        for (const release of held.splice(0)) release();
        assert.equal(new Set(deliveries).size, 30, 'every job delivered by the next process');
      } finally {
        await next.close();
      }
    } finally {
      await new Promise((resolve) => slow.close(resolve));
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
