import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

/**
 * Mails on a caller's behalf are limited per sending account and per recipient
 * (users/mail-limits.ts, docs/security.md "Mail"), whatever the concurrency: each call is
 * counted in one statement before its mail is made.
 */
describe('mail limits under parallel callers', () => {
  const ADMIN_ADDRESS = 'ops@example.com';
  const s = useServer({
    mail: { adminAddress: ADMIN_ADDRESS },
    rateLimit: {
      max: 10_000,
      signinFailures: 10_000,
      mailsPerAccount: 10,
      mailsPerRecipient: 5,
      mailWindowSeconds: 3600,
    },
  });

  const mailsTo = async (to: string) => (await s.outbox()).filter((m) => m.to === to).length;

  test('45 verifyEmail calls at once from one account to 45 addresses: 10 mails, then too_many_mails', async () => {
    const token = await s.createUser('sender');
    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, i) => s.users('verifyEmail', { email: `target-${i}@example.org` }, { token })),
    );
    assert.equal(answers.filter((a) => a.status === 200 && a.body.result === true).length, 10);
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(refused.length, 35);
    assert.deepEqual([refused[0]!.body.result, refused[0]!.body.code], [false, 'too_many_mails']);
    assert.ok(Number(refused[0]!.headers.get('retry-after')) > 0);
    const sent = (await s.outbox()).filter((m) => m.to.startsWith('target-')).length;
    assert.equal(sent, 10);
  });

  test('verifyEmail to one address from many accounts: 5 mails reach it', async () => {
    const tokens = await Promise.all(
      ['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9'].map((name) => s.createUser(name)),
    );
    const answers = await Promise.all(
      tokens.flatMap((token) =>
        Array.from({ length: 5 }, () => s.users('verifyEmail', { email: 'victim@example.org' }, { token })),
      ),
    );
    assert.equal(answers.length, 45);
    assert.equal(answers.filter((a) => a.status === 200).length, 5);
    assert.equal(await mailsTo('victim@example.org'), 5);
  });

  test('45 messages at once: the administrator receives 5; the others answer 429', async () => {
    const token = await s.createUser('chatty');
    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, i) => s.users('message', { message: `hello ${i}` }, { token })),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 5);
    assert.ok(
      answers.filter((a) => a.status !== 200).every((a) => a.status === 429 && a.body.code === 'too_many_mails'),
    );
    assert.equal(await mailsTo(ADMIN_ADDRESS), 5);
  });

  test('45 resetPassword calls for one account: the same answer every time, 5 mails', async () => {
    await s.createUser('forgetful');
    const answers = await Promise.all(
      Array.from({ length: 45 }, () => s.users('resetPassword', { identity: 'forgetful' })),
    );
    assert.deepEqual(
      [...new Set(answers.map((a) => JSON.stringify([a.status, a.body])))],
      [JSON.stringify([200, { result: true }])],
    );
    assert.equal(await mailsTo('forgetful@example.com'), 5);
  });
});
