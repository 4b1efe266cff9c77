import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../src/core/config.js';
import { belowOwasp } from '../../src/users/passwords.js';
import {
  createMigratedPostgresDatabase,
  type TestPostgresDatabase,
  PASSWORD,
  startServer,
  tokenFromMail,
  type TestServer,
} from '../helpers/test-server.js';

/**
 * `users.passwordHashing` (docs/configuration.md): new hashes at the configured argon2id cost,
 * OWASP's 19 MiB and 2 passes by default; a hash of another cost still signs in, and that
 * sign-in stores the password at today's cost, never over a password changed meanwhile.
 */

const onPostgres = process.env.ROOST_TEST_DIALECT === 'postgres';

async function storedHash(s: TestServer, name: string): Promise<string> {
  const row = await s.roost.db
    .selectFrom('users')
    .select('password_hash')
    .where('name_key', '=', name.toLowerCase())
    .executeTakeFirstOrThrow();
  return row.password_hash;
}

const costOf = (hash: string) => /^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$/.exec(hash)?.[1];

describe('password hashing', () => {
  let dataDir: string;
  let pgDb: TestPostgresDatabase | null;
  let base: ConfigInput;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'roost-hashing-'));
    pgDb = onPostgres ? await createMigratedPostgresDatabase() : null;
    base = { dataDir, ...pgDb?.settings };
  });
  after(async () => {
    await pgDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const withCost = (memoryKiB: number, iterations: number) =>
    startServer({ ...base, users: { passwordHashing: { memoryKiB, iterations } } });

  test("by default a password is stored at OWASP's cost, and a change and a reset use it too", async () => {
    const s = await startServer({ ...base, users: { passwordHashing: undefined } });
    try {
      const token = await s.createUser('dora');
      const made = await storedHash(s, 'dora');
      assert.equal(costOf(made), 'm=19456,t=2,p=1');
      const changed = await s.users(
        'updatePassword',
        { password: PASSWORD, newpassword: 'dora-password-2' },
        { token },
      );
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const second = await storedHash(s, 'dora');
      assert.notEqual(second, made);
      assert.equal(costOf(second), 'm=19456,t=2,p=1');
      await s.users('resetPassword', { identity: 'dora' });
      const reset = await s.users('resetPassword2', {
        token: tokenFromMail(await s.lastMail('dora@example.com')),
        newpassword: 'dora-password-3',
      });
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      const third = await storedHash(s, 'dora');
      assert.notEqual(third, second);
      assert.equal(costOf(third), 'm=19456,t=2,p=1');
      assert.equal((await s.users('token', { identity: 'dora', password: 'dora-password-3' })).status, 200);
    } finally {
      await s.close();
    }
  });

  test('a hash of another cost signs in, and that sign-in stores it at the configured cost', async () => {
    const cheap = await withCost(64, 1);
    try {
      await cheap.createUser('alice');
      await cheap.createUser('bruno');
      assert.equal(costOf(await storedHash(cheap, 'alice')), 'm=64,t=1,p=1');
    } finally {
      await cheap.close();
    }

    const raised = await withCost(128, 2);
    try {
      // A wrong password changes nothing.
      const wrong = await raised.users('token', { identity: 'alice', password: 'not-the-password' });
      assert.equal(wrong.status, 401);
      assert.equal(costOf(await storedHash(raised, 'alice')), 'm=64,t=1,p=1');
      // The right one signs in, and the hash is made anew at the new cost; it keeps working.
      const before = await storedHash(raised, 'alice');
      const signedIn = await raised.users('token', { identity: 'alice', password: PASSWORD });
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
      const after = await storedHash(raised, 'alice');
      assert.notEqual(after, before);
      assert.equal(costOf(after), 'm=128,t=2,p=1');
      assert.equal((await raised.users('token', { identity: 'alice', password: PASSWORD })).status, 200);
      assert.equal(await storedHash(raised, 'alice'), after, 'a hash at the configured cost is kept');
      // Parallel sign-ins of an account with an old hash all succeed; one hash is left, at the new cost.
      const parallel = await Promise.all(
        Array.from({ length: 8 }, () => raised.users('token', { identity: 'bruno', password: PASSWORD })),
      );
      assert.deepEqual(
        parallel.map((r) => r.status),
        Array(8).fill(200),
      );
      assert.equal(costOf(await storedHash(raised, 'bruno')), 'm=128,t=2,p=1');
      assert.equal((await raised.users('token', { identity: 'bruno', password: PASSWORD })).status, 200);
    } finally {
      await raised.close();
    }
  });

  test('a password changed while a sign-in with the old one is under way is not put back', async () => {
    const cheap = await withCost(64, 1);
    let token: string;
    try {
      token = await cheap.createUser('carol');
    } finally {
      await cheap.close();
    }
    // A cost that takes a while (about 100 ms a hash), so sign-ins that read the old hash are
    // still hashing it anew when the change has written the new password.
    const raised = await withCost(65_536, 4);
    try {
      const change = raised.users(
        'updatePassword',
        { password: PASSWORD, newpassword: 'carol-new-password' },
        { token },
      );
      const signins = [0, 5, 10, 20, 40].map(async (ms) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return raised.users('token', { identity: 'carol', password: PASSWORD });
      });
      const [changed] = await Promise.all([change, ...signins]);
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal((await raised.users('token', { identity: 'carol', password: PASSWORD })).status, 401);
      assert.equal((await raised.users('token', { identity: 'carol', password: 'carol-new-password' })).status, 200);
      assert.equal(costOf(await storedHash(raised, 'carol')), 'm=65536,t=4,p=1');
    } finally {
      await raised.close();
    }
  });

  test('a cost is refused with the setting named when it is not two whole numbers in range', async () => {
    for (const passwordHashing of [
      { memoryKiB: 8, iterations: 1 },
      { memoryKiB: 19456, iterations: 0 },
      { memoryKiB: '19456', iterations: 2 },
      { memoryKiB: 19456.5, iterations: 2 },
      { memoryKiB: 19456 },
      { memoryKiB: 19456, iterations: 2, parallelism: 4 },
      'strong',
    ])
      await assert.rejects(
        // @ts-expect-error: wrong on purpose
        startServer({ users: { passwordHashing } }),
        (err: Error) => /users\.passwordHashing/.test(err.message),
        JSON.stringify(passwordHashing),
      );
  });

  test("OWASP's settings and stronger ones are not below OWASP; weaker ones are", () => {
    for (const [memoryKiB, iterations] of [
      [47104, 1],
      [19456, 2],
      [12288, 3],
      [9216, 4],
      [7168, 5],
      [65536, 3],
    ] as const)
      assert.equal(belowOwasp({ memoryKiB, iterations }), false, `${memoryKiB} × ${iterations}`);
    for (const [memoryKiB, iterations] of [
      [64, 1],
      [19456, 1],
      [47103, 1],
      [7167, 5],
      [4096, 100],
    ] as const)
      assert.equal(belowOwasp({ memoryKiB, iterations }), true, `${memoryKiB} × ${iterations}`);
  });
});
