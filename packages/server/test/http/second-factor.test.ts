import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseConfig } from '../../src/core/config.js';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { PASSWORD, tokenFromMail, useServer, type CallResult, type TestServer } from '../helpers/test-server.js';
import { programCaller } from '../../src/users/index.js';

/**
 * The second factor over HTTP (users/signin-challenge.ts, users/second-factor-ops.ts): TOTP set
 * up and confirmed, the two-step sign-in with a code or a recovery code, each code once, the
 * requirement by group with enrolment during sign-in, throttling of wrong codes under parallel
 * attempts, and the refusals. Codes are made from the secret the server answered, at the times
 * of a clock the test moves (30-second steps).
 */

let now = Date.UTC(2026, 10, 26, 12, 0, 0);
const clock = { now: () => now };
const STEP = 30_000;
/** The next time step: every code check takes its step once, so each test moves on. */
const nextStep = () => {
  now += STEP;
};

async function enrol(s: TestServer, token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await s.users('totpEnrol', {}, { token });
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  const { secret, uri, qrSvg } = setup.body;
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.match(uri, /^otpauth:\/\/totp\/.+secret=[A-Z2-7]{32}/);
  assert.match(qrSvg, /^<svg[\s\S]*<\/svg>\s*$/);
  const confirmed = await s.users('totpConfirm', { code: totpCode(secret, now), password: PASSWORD }, { token });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  nextStep();
  return { secret, recoveryCodes: confirmed.body.recoveryCodes };
}

/** The first step: the password answers the challenge (asserts it does). */
async function challenge(
  s: TestServer,
  name: string,
  op = 'token',
): Promise<{ challenge: string; body: CallResult['body'] }> {
  const first = await s.users(op, { identity: name, password: PASSWORD });
  assert.equal(first.status, 401, JSON.stringify(first.body));
  assert.equal(first.body.code, 'second_factor_required');
  assert.equal(first.body.result, false);
  assert.equal(typeof first.body.challenge, 'string');
  return { challenge: first.body.challenge, body: first.body };
}

describe('TOTP: set up, confirm, sign in in two steps', () => {
  const s = useServer({ users: { lockoutThreshold: 5 } }, { clock });

  test('enrolment answers a secret, a link and a QR code; a first right code answers ten recovery codes', async () => {
    const token = await s.createUser('tina');
    assert.deepEqual((await s.users('secondFactor', {}, { token })).body, {
      result: true,
      totp: false,
      recoveryCodes: 0,
      required: false,
      providers: [],
      passkeys: 0,
      sms: false,
    });
    const setup = await s.users('totpEnrol', {}, { token });
    const wrong = await s.users(
      'totpConfirm',
      { code: '000000' === totpCode(setup.body.secret, now) ? '111111' : '000000', password: PASSWORD },
      { token },
    );
    assert.equal(wrong.body.result, false);
    assert.deepEqual(wrong.body.invalid, [['code', 'invalid']]);
    // The password is asked again: a session left open does not bind another phone.
    const noPassword = await s.users('totpConfirm', { code: totpCode(setup.body.secret, now) }, { token });
    assert.deepEqual(noPassword.body.invalid, [['password', 'required']]);
    const badPassword = { code: totpCode(setup.body.secret, now), password: 'not-the-password' };
    assert.deepEqual((await s.users('totpConfirm', badPassword, { token })).body.invalid, [['password', 'invalid']]);
    const right = await s.users(
      'totpConfirm',
      { code: totpCode(setup.body.secret, now), password: PASSWORD },
      { token },
    );
    assert.equal(right.status, 200);
    assert.equal(right.body.recoveryCodes.length, 10);
    assert.equal(new Set(right.body.recoveryCodes).size, 10);
    for (const code of right.body.recoveryCodes) assert.match(code, /^[a-z0-9]{5}-[a-z0-9]{5}$/);
    assert.deepEqual((await s.users('secondFactor', {}, { token })).body, {
      result: true,
      totp: true,
      recoveryCodes: 10,
      required: false,
      providers: [],
      passkeys: 0,
      sms: false,
    });
    // A confirmed authenticator is not replaced by a new enrolment.
    assert.equal((await s.users('totpEnrol', {}, { token })).body.code, 'factor_exists');
    nextStep();
  });

  test('the password alone answers second_factor_required; the challenge and a code give a token', async () => {
    const first = await s.createUser('tom');
    const { secret } = await enrol(s, first);
    const { challenge: c, body } = await challenge(s, 'tom');
    assert.deepEqual(body.methods, ['totp', 'recovery']);
    assert.equal(body.enrol, false);
    assert.ok(body.expires > now);
    const code = totpCode(secret, now);
    const done = await s.users('token2', { challenge: c, code });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal((await s.users('identity', {}, { token: done.body.token })).body.name, 'tom');
    // The challenge is used up; the code too, even with a new challenge.
    assert.equal((await s.users('token2', { challenge: c, code })).body.code, 'invalid_token');
    const again = await challenge(s, 'tom');
    assert.equal((await s.users('token2', { challenge: again.challenge, code })).body.code, 'invalid_code');
    // A code of the step before the one taken is refused too; the next step's code is good.
    assert.equal(
      (await s.users('token2', { challenge: again.challenge, code: totpCode(secret, now - STEP) })).body.code,
      'invalid_code',
    );
    nextStep();
    const later = await s.users('token2', { challenge: again.challenge, code: totpCode(secret, now) });
    assert.equal(later.status, 200);
    nextStep();
  });

  test('a wrong code keeps the challenge for another try; a tampered or expired challenge is refused', async () => {
    const token = await s.createUser('tara');
    const { secret } = await enrol(s, token);
    const { challenge: c } = await challenge(s, 'tara');
    const right = totpCode(secret, now);
    const wrong = right === '123456' ? '654321' : '123456';
    const miss = await s.users('token2', { challenge: c, code: wrong });
    assert.equal(miss.status, 401);
    assert.equal(miss.body.code, 'invalid_code');
    const tampered = `${c.slice(0, -2)}${c.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.equal((await s.users('token2', { challenge: tampered, code: right })).body.code, 'invalid_token');
    assert.equal((await s.users('token2', { challenge: c, code: right })).status, 200);
    nextStep();
    const { challenge: old } = await challenge(s, 'tara');
    now += 5 * 60_000 + 1;
    const late = await s.users('token2', { challenge: old, code: totpCode(secret, now) });
    assert.equal(late.body.code, 'invalid_token');
    nextStep();
  });

  test('a recovery code signs in once; the codes can be made anew with the password', async () => {
    const token = await s.createUser('rita');
    const { recoveryCodes } = await enrol(s, token);
    const { challenge: c } = await challenge(s, 'rita');
    // Typed in capitals and without the dash, it is the same code.
    const typed = recoveryCodes[0]!.toUpperCase().replace('-', '');
    const used = await s.users('token2', { challenge: c, recoveryCode: typed });
    assert.equal(used.status, 200, JSON.stringify(used.body));
    const sessions = await s.users('sessions', {}, { token: used.body.token });
    assert.equal(sessions.body.sessions.find((x: { current: boolean }) => x.current).method, 'recovery');
    const { challenge: c2 } = await challenge(s, 'rita');
    assert.equal(
      (await s.users('token2', { challenge: c2, recoveryCode: recoveryCodes[0] })).body.code,
      'invalid_code',
    );
    assert.equal((await s.users('secondFactor', {}, { token })).body.recoveryCodes, 9);
    // New codes: the password is asked again, and the old codes stop working.
    assert.deepEqual((await s.users('recoveryCodes', { password: 'wrong-password' }, { token })).body.invalid, [
      ['password', 'invalid'],
    ]);
    const fresh = await s.users('recoveryCodes', { password: PASSWORD }, { token });
    assert.equal(fresh.body.recoveryCodes.length, 10);
    assert.equal(
      (await s.users('token2', { challenge: c2, recoveryCode: recoveryCodes[1] })).body.code,
      'invalid_code',
    );
    assert.equal((await s.users('token2', { challenge: c2, recoveryCode: fresh.body.recoveryCodes[0] })).status, 200);
  });

  test('signin answers the challenge too, and signin2 sets the cookie', async () => {
    const token = await s.createUser('sina');
    const { secret } = await enrol(s, token);
    const { challenge: c } = await challenge(s, 'sina', 'signin');
    const done = await s.users('signin2', { challenge: c, code: totpCode(secret, now) });
    assert.equal(done.status, 200);
    assert.deepEqual(done.body, { result: true });
    const cookie = done.headers.get('set-cookie') ?? '';
    assert.match(cookie, /auth=[^;]+; .*HttpOnly/i);
    nextStep();
  });

  test('removing the authenticator asks for the password or a code; then the password alone signs in', async () => {
    const token = await s.createUser('rémi');
    const { secret } = await enrol(s, token);
    assert.deepEqual((await s.users('totpRemove', { code: '000000' }, { token })).body.invalid, [['code', 'invalid']]);
    assert.equal((await s.users('totpRemove', {}, { token })).body.result, false);
    assert.equal((await s.users('totpRemove', { code: totpCode(secret, now) }, { token })).status, 200);
    const plain = await s.users('token', { identity: 'rémi', password: PASSWORD });
    assert.equal(plain.status, 200);
    assert.equal(typeof plain.body.token, 'string');
    nextStep();
  });

  test('one code proves presence once: of eight parallel passkeyOptions with it, one goes through', async () => {
    const token = await s.createUser('parra');
    const { secret } = await enrol(s, token);
    const code = totpCode(secret, now);
    // Each re-authentication takes the code's step (users/user-context.ts, reauthenticate).
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.users('passkeyOptions', { code }, { token })));
    const passed = answers.filter((a) => a.body.result === true);
    assert.equal(passed.length, 1, JSON.stringify(answers.map((a) => a.body)));
    assert.equal(typeof passed[0]?.body.options.challenge, 'string');
    for (const refused of answers.filter((a) => a.body.result !== true)) {
      assert.equal(refused.body.code, 'validation_failure');
      assert.deepEqual(refused.body.invalid, [['code', 'invalid']]);
    }
    nextStep();
  });

  test('parallel wrong codes lock the account like wrong passwords; a right code is then refused too', async () => {
    const token = await s.createUser('lena');
    const { secret } = await enrol(s, token);
    const { challenge: c } = await challenge(s, 'lena');
    const right = totpCode(secret, now);
    const wrongs = Array.from({ length: 20 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(wrongs.map((code) => s.users('token2', { challenge: c, code })));
    for (const a of answers) assert.equal(a.body.code, 'invalid_code');
    const locked = await s.users('token2', { challenge: c, code: right });
    assert.equal(locked.body.code, 'invalid_code');
    // The lock ends (lockoutSeconds: 60 by default), and the right code of the time signs in.
    now += 61_000;
    const after = await s.users('token2', {
      challenge: (await challenge(s, 'lena')).challenge,
      code: totpCode(secret, now),
    });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    nextStep();
  });

  test('signing in with the password again does not clear the count of wrong codes', async () => {
    const token = await s.createUser('otto');
    const { secret } = await enrol(s, token);
    const wrong = totpCode(secret, now) === '000000' ? '111111' : '000000';
    // Threshold 5: each first step counts as an attempt until a second step completes, and each
    // wrong code too. Had the right password cleared the count, this would go on for ever.
    for (let round = 0; round < 3; round++) {
      const { challenge: c } = await challenge(s, 'otto');
      assert.equal((await s.users('token2', { challenge: c, code: wrong })).body.code, 'invalid_code');
    }
    const locked = await s.users('token', { identity: 'otto', password: PASSWORD });
    assert.equal(locked.status, 401);
    assert.equal(locked.body.code, 'invalid_credentials');
    now += 61_000;
    const { challenge: c } = await challenge(s, 'otto');
    assert.equal((await s.users('token2', { challenge: c, code: totpCode(secret, now) })).status, 200);
    nextStep();
  });

  test('a password reset does not bypass the second factor', async () => {
    const token = await s.createUser('reset-me');
    const { secret } = await enrol(s, token);
    assert.equal((await s.users('resetPassword', { identity: 'reset-me' })).status, 200);
    const mailed = tokenFromMail(await s.lastMail('reset-me@example.com'));
    const newpassword = 'another-good-password';
    assert.equal((await s.users('resetPassword2', { token: mailed, newpassword })).status, 200);
    const first = await s.users('token', { identity: 'reset-me', password: newpassword });
    assert.equal(first.body.code, 'second_factor_required');
    const done = await s.users('token2', { challenge: first.body.challenge, code: totpCode(secret, now) });
    assert.equal(done.status, 200);
    nextStep();
  });

  test('hostile and malformed input: each refused with the failure body, nothing changed', async () => {
    const token = await s.createUser('hugo');
    const { secret } = await enrol(s, token);
    const { challenge: c } = await challenge(s, 'hugo');
    const cases: Array<[unknown, string]> = [
      [{}, 'validation_failure'],
      [{ challenge: c }, 'validation_failure'],
      [{ challenge: c, code: 123456 }, 'validation_failure'],
      [{ challenge: c, code: ['123456'] }, 'validation_failure'],
      [{ challenge: 'x'.repeat(5000), code: '123456' }, 'validation_failure'],
      [{ challenge: c, code: '1'.repeat(5000) }, 'validation_failure'],
      [{ challenge: c, recoveryCode: { $ne: '' } }, 'validation_failure'],
      [{ challenge: "' or 1=1 --", code: '123456' }, 'invalid_token'],
      [{ challenge: c, code: "' or 1=1 --" }, 'invalid_code'],
    ];
    for (const [body, code] of cases) {
      const answer = await s.users('token2', body);
      assert.equal(answer.body.result, false, JSON.stringify(body));
      assert.equal(answer.body.code, code, JSON.stringify(body));
      assert.equal(typeof answer.body.message, 'string');
    }
    assert.equal((await s.users('token2', { challenge: c, code: totpCode(secret, now) })).status, 200);
    nextStep();
  });

  test('without the permission: anonymous callers are asked to sign in, users cannot reach others', async () => {
    for (const op of ['secondFactor', 'totpConfirm', 'totpRemove', 'recoveryCodes', 'totpEnrol']) {
      const answer = await s.users(op, { code: '123456', password: PASSWORD });
      assert.equal(answer.status, 401, op);
      assert.equal(answer.body.code, 'not_signed_in', op);
    }
    const token = await s.createUser('ulla');
    for (const op of ['userFactors', 'resetSecondFactor'])
      assert.equal((await s.users(op, { identity: 'tina' }, { token })).status, 403, op);
    // An administrator can turn a second step off (the permission `token2`): then nobody passes it.
    const admin = await s.adminToken();
    assert.equal((await s.users('userFactors', { identity: 'tina' }, { token: admin })).body.totp, true);
    assert.equal(
      (await s.users('userFactors', { identity: 'nobody-here' }, { token: admin })).body.code,
      'unknown_user',
    );
  });

  test('an administrator resets a lost authenticator: the password alone signs in again', async () => {
    const token = await s.createUser('lost');
    await enrol(s, token);
    await challenge(s, 'lost');
    const admin = await s.adminToken();
    assert.equal((await s.users('resetSecondFactor', { identity: 'lost' }, { token: admin })).status, 200);
    assert.deepEqual((await s.users('userFactors', { identity: 'lost' }, { token: admin })).body, {
      result: true,
      totp: false,
      recoveryCodes: 0,
      required: false,
      providers: [],
      passkeys: 0,
      sms: false,
    });
    assert.equal((await s.users('token', { identity: 'lost', password: PASSWORD })).status, 200);
  });
});

describe('parallel second steps', () => {
  // A high threshold: here the one-time rules alone decide, not the lock.
  const s = useServer({ users: { lockoutThreshold: 100 } }, { clock });

  test('eight parallel second steps with the same right code make exactly one session', async () => {
    const token = await s.createUser('paula');
    const { secret } = await enrol(s, token);
    const challenges = [];
    for (let i = 0; i < 8; i++) challenges.push((await challenge(s, 'paula')).challenge);
    const code = totpCode(secret, now);
    const answers = await Promise.all(challenges.map((c) => s.users('token2', { challenge: c, code })));
    assert.equal(answers.filter((a) => a.status === 200).length, 1, JSON.stringify(answers.map((a) => a.body.code)));
    for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.body.code, 'invalid_code');
    nextStep();
  });
});

describe('sessions under parallel callers', () => {
  const s = useServer();

  test('eight parallel ends of one session: one ends it, the others find none; the rest stay', async () => {
    const mine = await s.createUser('sam');
    const other = (await s.users('token', { identity: 'sam', password: PASSWORD })).body.token;
    const listed = (await s.users('sessions', {}, { token: mine })).body.sessions;
    const id = listed.find((x: { current: boolean }) => !x.current).id;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => s.users('revokeSession', { session: id }, { token: mine })),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 1);
    for (const a of answers.filter((x) => x.status !== 200)) assert.equal(a.body.code, 'unknown_session');
    assert.equal((await s.users('identity', {}, { token: other })).status, 401);
    assert.equal((await s.users('identity', {}, { token: mine })).status, 200);
    // Another user's session id is no session of this account: nothing ends.
    const bob = await s.createUser('bob');
    const bobs = (await s.users('sessions', {}, { token: bob })).body.sessions[0].id;
    assert.equal((await s.users('revokeSession', { session: bobs }, { token: mine })).body.code, 'unknown_session');
    assert.equal((await s.users('identity', {}, { token: bob })).status, 200);
  });
});

describe('a second factor required for a group', () => {
  const s = useServer({ users: { secondFactorGroups: ['admins'] } }, { clock });
  // Made directly: the test server's `adminToken` signs in with the password alone.
  before(() =>
    s.roost.users.createUser(programCaller('test'), { name: 'admin', password: PASSWORD, groups: ['admins'] }),
  );

  test('a member without a factor enrols during sign-in and gets the token with the recovery codes', async () => {
    const { challenge: c, body } = await challenge(s, 'admin');
    assert.equal(body.enrol, true);
    assert.deepEqual(body.methods, []);
    // Without the enrolment, no code signs in; a random token is not an enrol challenge.
    assert.equal((await s.users('token2', { challenge: c, code: '123456' })).body.code, 'invalid_code');
    assert.equal((await s.users('totpEnrol', { challenge: 'not-a-challenge' })).body.code, 'invalid_token');
    const setup = await s.users('totpEnrol', { challenge: c });
    assert.equal(setup.status, 200, JSON.stringify(setup.body));
    const done = await s.users('token2', { challenge: c, code: totpCode(setup.body.secret, now) });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.recoveryCodes.length, 10);
    const state = await s.users('secondFactor', {}, { token: done.body.token });
    assert.deepEqual(state.body, {
      result: true,
      totp: true,
      recoveryCodes: 10,
      required: true,
      providers: [],
      passkeys: 0,
      sms: false,
    });
    nextStep();
    // From now on it is a plain second step.
    const again = await challenge(s, 'admin');
    assert.equal(again.body.enrol, false);
    const ok = await s.users('token2', { challenge: again.challenge, code: totpCode(setup.body.secret, now) });
    assert.equal(ok.status, 200);
    nextStep();
  });

  test('the setting changes at run time: a group named later asks its members at their next sign-in', async () => {
    await s.createUser('ops-person', { groups: ['ops'] });
    assert.equal((await s.users('token', { identity: 'ops-person', password: PASSWORD })).status, 200);
    await s.roost.settings.change({ secondFactorGroups: ['admins', 'ops'] }, 'test');
    const { body } = await challenge(s, 'ops-person');
    assert.equal(body.enrol, true);
    // An enrol challenge is not a signed-in session: it reaches nothing else.
    assert.equal((await s.users('identity', {}, { token: body.challenge })).status, 401);
  });
});

describe('with users.secretsKey, seeds are sealed in the database', () => {
  const key = randomBytes(32).toString('base64');
  const s = useServer({ users: { secretsKey: key } }, { clock });

  test('the stored seed is not the seed, and the two steps work as without the key', async () => {
    const token = await s.createUser('sealed');
    const { secret } = await enrol(s, token);
    const rows = await s.roost.db.selectFrom('totp_factors').select('secret').execute();
    assert.equal(rows.length, 1);
    assert.match(rows[0]?.secret ?? '', /^v1\./);
    assert.ok(!rows[0]?.secret.includes(secret));
    const { challenge: c } = await challenge(s, 'sealed');
    assert.equal((await s.users('token2', { challenge: c, code: totpCode(secret, now) })).status, 200);
    nextStep();
  });

  test('a key that is not 32 bytes of base64 is refused at start with the reason', () => {
    assert.throws(() => parseConfig({ users: { secretsKey: 'short' } }), /users\.secretsKey: give 32 random bytes/);
  });
});
