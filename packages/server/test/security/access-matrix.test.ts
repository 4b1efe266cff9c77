import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, startServer, type CallResult } from '../helpers/test-server.js';
import {
  assertExpected,
  call,
  DEAD,
  gist,
  LIVE,
  Matrix,
  TABLES,
  TOKEN_LIFETIME_SECONDS,
} from './support/access-table.js';
import { operationsOf } from './support/operations.js';
import { snapshot, snapshotDiff } from './support/snapshot.js';

/**
 * Who may call what: every operation of every service (read off the route tables) against
 * every kind of caller (see support/access-table.ts), on default permissions. Dead tokens
 * (disabled, signed out, expired, removed account) must be answered exactly as an anonymous
 * caller is, and every refusal must leave the store as it was.
 */

describe('access control: every operation × every kind of caller', () => {
  const m = new Matrix();
  before(async () => {
    const s = await startServer(
      { users: { tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS }, mail: { adminAddress: 'admin@example.com' } },
      { clock: { now: () => m.now } },
    );
    await m.setUp(s);
    await m.account('credentials');
  });
  after(() => m.s.close());

  test('the matrix has a row for every operation of the route tables, and none for an operation that is gone', () => {
    for (const service of ['users', 'datastore', 'filestore'] as const) {
      const ops = operationsOf(m.s.roost)
        .filter((o) => o.service === service)
        .map((o) => o.op)
        .sort();
      assert.deepEqual(Object.keys(TABLES[service]).sort(), ops, service);
    }
  });

  for (const service of ['users', 'datastore', 'filestore'] as const) {
    for (const [op, row] of Object.entries(TABLES[service])) {
      test(`${service} ${op}`, async () => {
        let anonymous: CallResult | undefined;
        for (const kind of LIVE[service]) {
          const expect = row.expect[kind];
          assert.ok(expect !== undefined, `no expectation for ${kind}`);
          const cell = await row.prepare(m, kind);
          const refusal = (typeof expect === 'number' ? expect : expect.status) >= 400;
          const before = refusal ? await snapshot(m.s.roost) : null;
          const res = await call(m, cell, m.token(kind));
          assertExpected(res, expect, `${service} ${op} by ${kind}`);
          if (before)
            assert.deepEqual(
              snapshotDiff(before, await snapshot(m.s.roost), row.counts),
              [],
              `${op} by ${kind} was refused but changed the store`,
            );
          if (kind === 'anonymous') anonymous = res;
          if (row.consumes && !refusal) await m.renew(kind);
        }
        // Where the anonymous call is refused, so are all four: one target and one snapshot
        // around them (a store that changed names the culprit by the diff).
        const refused = (anonymous as CallResult).status >= 400;
        const shared = refused ? await row.prepare(m, 'anonymous') : null;
        const before = refused ? await snapshot(m.s.roost) : null;
        for (const kind of DEAD) {
          const res = await call(m, shared ?? (await row.prepare(m, kind)), m.token(kind));
          assert.deepEqual(
            gist(res),
            gist(anonymous as CallResult),
            `${service} ${op} with the token of a ${kind} user must be answered as anonymous`,
          );
        }
        if (before)
          assert.deepEqual(
            snapshotDiff(before, await snapshot(m.s.roost), row.counts),
            [],
            `${op} by a dead token changed the store`,
          );
      });
    }
  }

  test('dead tokens count for nothing in any header or the cookie', async () => {
    for (const kind of DEAD) {
      const token = m.token(kind) as string;
      for (const headers of [
        { 'x-auth-token': token },
        { authorization: `Bearer ${token}` },
        { cookie: `auth=${token}` },
      ] as Record<string, string>[]) {
        for (const path of ['/users/api/profile', '/data/api/keys', '/files/@list']) {
          const res = await m.s.request(path, {}, { method: 'POST', headers });
          assert.equal(res.status, 401, `${kind} ${Object.keys(headers)[0]} ${path}`);
        }
      }
    }
  });

  test('a dead token stays dead: expired after its account is used, revoked after a new sign-in', async () => {
    assert.equal((await m.s.users('token', { identity: 'dead-expired', password: PASSWORD })).status, 200);
    assert.equal((await m.s.users('token', { identity: 'dead-revoked', password: PASSWORD })).status, 200);
    for (const kind of ['expired', 'revoked'] as const)
      assert.equal((await m.s.users('profile', {}, { token: m.token(kind) })).status, 401, kind);
  });
});
