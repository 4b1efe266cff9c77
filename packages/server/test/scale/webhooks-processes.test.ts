import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBeside } from '../security/support/child-roost.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { eventually, onPostgres, useTwoProcesses } from './scale-helpers.js';
import { programCaller } from '../../src/users/index.js';

/** Webhooks are managed by administrators (core/grants.ts `backendGrants`): the tests call as one. */
const ADMIN = programCaller('test').principal;

/**
 * Issue 37, item 8: a webhook added on one process reaches the others within the change feed's
 * delivery, like a permission (storage/webhook-store.ts), and so does its removal. They used to
 * read the webhooks again every 5 s, and a change made meanwhile on another process got no
 * delivery at all (its process was not listening), or one to a removed webhook.
 */
describe('webhooks across two processes on PostgreSQL', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  const two = useTwoProcesses({ webhooks: { retrySeconds: 0.05 } });

  test('a webhook added on A gets the changes made on B at once; removed on A, it gets none', async () => {
    const { a, b } = two;
    const alice = await a.createUser('alice');
    const hook = await receiver();
    const onB = (key: string) =>
      fetch(`${b.url}/data/api/newItem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': alice },
        body: JSON.stringify({ key, value: 1 }),
      });
    const keys = () => hook.received.map((r) => JSON.parse(r.body).key as string);
    // Far below the 5 s of the old reading, far above a NOTIFY's delivery.
    const moment = () => new Promise((resolve) => setTimeout(resolve, 300));
    try {
      const webhook = await a.roost.webhooks.add(ADMIN, { url: hook.url, service: 'data', kinds: ['item.created'] });
      await moment();
      assert.equal((await onB('after-add')).status, 200);
      await eventually(async () => keys().includes('after-add'), 'the change made on B is delivered', 5000);
      await a.roost.webhooks.remove(ADMIN, webhook.id);
      await moment();
      assert.equal((await onB('after-remove')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.deepEqual(keys(), ['after-add']);
    } finally {
      await hook.close();
    }
  });
});

/**
 * Issue 46, part 3: a delivery whose process was killed mid-try is held by its claim for the
 * try's limit (`webhooks.timeoutSeconds`) and 10 s more, then another process tries it; the
 * claim used to be a fixed minute. A's worker is stopped, so B makes the try, and C (started
 * after B is killed) the next.
 */
describe('a webhook delivery whose process was killed mid-try', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  const config = { webhooks: { timeoutSeconds: 1, retrySeconds: 0.05 } };
  const two = useTwoProcesses(config);

  test("is tried by another process once the try's limit and 10 s have passed", async () => {
    const { a, b } = two;
    await a.roost.webhooks.close();
    const tries: number[] = [];
    // The first try is never answered (its process is killed meanwhile); the next is.
    const hook = createServer((request, response) => {
      tries.push(Date.now());
      if (tries.length === 1) b.process.kill('SIGKILL');
      else request.resume().on('end', () => response.end());
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const dir = await mkdtemp(join(tmpdir(), 'roost-webhooks-c-'));
    let c: Awaited<ReturnType<typeof startBeside>> | null = null;
    try {
      const alice = await a.createUser('alice');
      await a.roost.webhooks.add(ADMIN, { url, service: 'data', kinds: ['item.created'] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await fetch(`${b.url}/data/api/newItem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': alice },
        body: JSON.stringify({ key: 'mid-try', value: 1 }),
      });
      await eventually(async () => tries.length === 1, 'B tries it', 5000);
      await b.exited;
      c = await startBeside(a, dir, config);
      await eventually(async () => tries.length >= 2, 'C tries it again', 30_000);
      const waited = (tries[1] ?? 0) - (tries[0] ?? 0);
      assert.ok(waited < 1000 + 10_000 + 3000, `tried again after ${waited} ms`);
    } finally {
      c?.process.kill('SIGTERM');
      await c?.exited;
      hook.closeAllConnections();
      await new Promise((resolve) => hook.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
