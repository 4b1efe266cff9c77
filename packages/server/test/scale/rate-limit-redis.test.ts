import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoost, type Roost } from '../../src/roost.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startServer, type TestServer } from '../helpers/test-server.js';

/** Two Roost instances with `rateLimit.redisUrl` on one real redis-server count together. */
describe('rate limits shared through Redis', () => {
  let redis: TestRedis;
  let a: TestServer;
  let b: Roost;
  let bUrl: string;
  before(async () => {
    redis = await startRedis();
    a = await startServer({ rateLimit: { max: 4, windowSeconds: 60, redisUrl: redis.url } });
    b = await createRoost(a.roost.config);
    bUrl = await b.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await b.close();
    await a.close();
    await redis.stop();
  });

  const post = async (url: string, op: string, body: unknown) => {
    const res = await fetch(`${url}/users/api/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { code?: string } };
  };
  const reset = { identity: 'nobody' };

  test('calls spread over both instances share one limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(i % 2 === 0 ? a.url : bUrl, 'resetPassword', reset)).status);
    // Four allowed in the window, wherever they arrived; each instance alone saw only three.
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    const refused = await post(bUrl, 'resetPassword', reset);
    assert.deepEqual([refused.status, refused.body.code], [429, 'rate_limited']);
  });

  test('each operation has a counter of its own', async () => {
    const res = await post(bUrl, 'activate', { token: 'not-a-token' });
    assert.notEqual(res.status, 429);
  });

  test('without Redis, requests are let through (not refused, not held)', async () => {
    await redis.stop();
    const res = await post(a.url, 'signupDirect', {
      name: 'someone',
      email: 'someone@example.com',
      password: 'a-good-password',
    });
    assert.notEqual(res.status, 429);
    assert.notEqual(res.status, 500);
  });
});
