import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { PASSWORD, tokenFromMail, useServer, type TestServer } from '../helpers/test-server.js';

/**
 * Sign-in by mail (users/signin-methods/mail-code/): off until `signinMail` is granted; a mailed code
 * (with the identity) or the mailed link's token signs in once, the newest only, for ten minutes;
 * the answer tells nothing about which accounts exist; wrong codes count like wrong passwords,
 * also in parallel; an account with a second factor still needs it.
 */

let now = Date.UTC(2026, 10, 26, 15, 0, 0);
const clock = { now: () => now };

/** The code and the link's token of the newest sign-in mail to `to`. */
async function mailed(s: TestServer, to: string): Promise<{ code: string; token: string }> {
  const mail = await s.lastMail(to);
  const code = /sign-in code is (\d{6})/.exec(mail.text)?.[1];
  assert.ok(code, mail.text);
  return { code, token: tokenFromMail(mail) };
}

describe('sign-in by mail', () => {
  const s = useServer({ users: { lockoutThreshold: 5 } }, { clock });

  test('off by default: nobody may ask for a code', async () => {
    const answer = await s.users('signinMail', { identity: 'nobody@example.com' });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.code, 'not_allowed');
  });

  describe('turned on', () => {
    before(() => s.grant('signinMail', ['sys:everyone']));

    test('the mailed code with the identity signs in once; the session says how', async () => {
      await s.createUser('mia');
      assert.deepEqual((await s.users('signinMail', { identity: 'mia@example.com' })).body, { result: true });
      const { code } = await mailed(s, 'mia@example.com');
      const signedIn = await s.users('signinMail2', { identity: 'mia@example.com', code });
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
      const sessions = await s.users('sessions', {}, { token: signedIn.body.token });
      assert.equal(sessions.body.sessions.find((x: { current: boolean }) => x.current).method, 'mail');
      const again = await s.users('signinMail2', { identity: 'mia@example.com', code });
      assert.equal(again.status, 401);
      assert.equal(again.body.code, 'invalid_code');
    });

    test("the link's token signs in once; only the newest mail's code works", async () => {
      await s.createUser('max');
      await s.users('signinMail', { identity: 'max' });
      const first = await mailed(s, 'max@example.com');
      await s.users('signinMail', { identity: 'max' });
      const second = await mailed(s, 'max@example.com');
      assert.equal((await s.users('signinMail2', { token: first.token })).body.code, 'invalid_token');
      assert.equal((await s.users('signinMail2', { token: second.token })).status, 200);
      assert.equal((await s.users('signinMail2', { token: second.token })).body.code, 'invalid_token');
    });

    test('the same answer for an unknown account, and no mail', async () => {
      const before = (await s.outbox()).length;
      assert.deepEqual((await s.users('signinMail', { identity: 'ghost@example.com' })).body, { result: true });
      assert.equal((await s.outbox()).length, before);
      const answer = await s.users('signinMail2', { identity: 'ghost@example.com', code: '123456' });
      assert.equal(answer.body.code, 'invalid_code');
    });

    test('a code older than ten minutes is refused', async () => {
      await s.createUser('old');
      await s.users('signinMail', { identity: 'old' });
      const { code } = await mailed(s, 'old@example.com');
      now += 10 * 60_000 + 1;
      assert.equal((await s.users('signinMail2', { identity: 'old', code })).body.code, 'invalid_code');
    });

    test('twenty parallel wrong codes lock the account; then the right code is refused too', async () => {
      await s.createUser('guess');
      await s.users('signinMail', { identity: 'guess' });
      const { code } = await mailed(s, 'guess@example.com');
      const wrongs = Array.from({ length: 20 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
      const answers = await Promise.all(wrongs.map((c) => s.users('signinMail2', { identity: 'guess', code: c })));
      for (const a of answers) assert.equal(a.body.code, 'invalid_code');
      assert.equal((await s.users('signinMail2', { identity: 'guess', code })).body.code, 'invalid_code');
      now += 61_000;
    });

    test('eight parallel uses of one right code make exactly one session', async () => {
      await s.createUser('para');
      await s.users('signinMail', { identity: 'para' });
      const { code } = await mailed(s, 'para@example.com');
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => s.users('signinMail2', { identity: 'para', code })),
      );
      assert.equal(answers.filter((a) => a.status === 200).length, 1);
    });

    test('an account with an authenticator still needs its code after the mailed one', async () => {
      const token = await s.createUser('tess');
      const { secret } = (await s.users('totpEnrol', {}, { token })).body;
      await s.users('totpConfirm', { code: totpCode(secret, now), password: PASSWORD }, { token });
      now += 30_000;
      await s.users('signinMail', { identity: 'tess' });
      const { code } = await mailed(s, 'tess@example.com');
      const first = await s.users('signinMail2', { identity: 'tess', code });
      assert.equal(first.body.code, 'second_factor_required');
      const done = await s.users('token2', { challenge: first.body.challenge, code: totpCode(secret, now) });
      assert.equal(done.status, 200);
      now += 30_000;
    });

    test('hostile and malformed input: the failure body, nothing signed in', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'validation_failure'],
        [{ identity: 'mia' }, 'validation_failure'],
        [{ code: '123456' }, 'validation_failure'],
        [{ identity: 'mia', code: 123456 }, 'validation_failure'],
        [{ token: 'x'.repeat(5000) }, 'validation_failure'],
        [{ token: { $ne: '' } }, 'validation_failure'],
        [{ token: "' or 1=1 --" }, 'invalid_token'],
        [{ identity: "' or 1=1 --", code: '000000' }, 'invalid_code'],
      ];
      for (const [body, code] of cases) {
        const answer = await s.users('signinMail2', body);
        assert.equal(answer.body.result, false, JSON.stringify(body));
        assert.equal(answer.body.code, code, JSON.stringify(body));
      }
      assert.equal((await s.users('signinMail', { identity: ['a', 'b'] })).body.code, 'validation_failure');
    });
  });
});
