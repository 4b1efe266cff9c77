import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Trusted devices (users/trusted-devices.ts; issue 45, item 6) over HTTP: a second step with
 * `trustDevice` answers a device token; the account's next sign-ins that bring it skip the second
 * factor, until it expires, the password changes, the factor is removed or the other devices are
 * signed out; another account, a forged or expired token, and parallel misuse get the challenge.
 * The cookie variant (`signin2`) keeps it in an HttpOnly cookie. Off by default.
 */

let now = Date.UTC(2026, 10, 29, 12, 0, 0);
const clock = { now: () => now };
const STEP = 30_000;
const DAY = 24 * 3600 * 1000;

async function withTotp(s: TestServer, name: string): Promise<string> {
  const token = await s.createUser(name);
  const { secret } = (await s.users('totpEnrol', {}, { token })).body as { secret: string };
  const ok = await s.users('totpConfirm', { code: totpCode(secret, now), password: PASSWORD }, { token });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  now += STEP;
  return secret;
}

/** The first step with an optional device token: the session's token, or null when a challenge came. */
async function firstStep(
  s: TestServer,
  name: string,
  device?: string,
): Promise<{ token: string | null; challenge?: string }> {
  const headers: Record<string, string> = device ? { 'x-roost-trusted-device': device } : {};
  const res = await s.users('token', { identity: name, password: PASSWORD }, { headers });
  if (res.status === 200) return { token: res.body.token };
  assert.equal(res.body.code, 'second_factor_required', JSON.stringify(res.body));
  return { token: null, challenge: res.body.challenge };
}

/** Both steps, trusting the device: its token. */
async function trusted(s: TestServer, name: string, secret: string): Promise<string> {
  const { challenge } = await firstStep(s, name);
  const res = await s.users('token2', { challenge, code: totpCode(secret, now), trustDevice: true });
  now += STEP;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(typeof res.body.deviceToken, 'string');
  assert.equal(res.body.deviceExpires, now - STEP + 30 * DAY);
  return res.body.deviceToken as string;
}

describe('trusted devices', () => {
  let s: TestServer;
  let secretA: string;
  let secretB: string;
  before(async () => {
    s = await startServer({ users: { trustedDeviceDays: 30 } }, { clock });
    secretA = await withTotp(s, 'amy');
    secretB = await withTotp(s, 'ben');
  });
  after(() => s.close());

  test('a second step without trustDevice answers no device token', async () => {
    const { challenge } = await firstStep(s, 'amy');
    const res = await s.users('token2', { challenge, code: totpCode(secretA, now) });
    now += STEP;
    assert.equal(res.status, 200);
    assert.equal(res.body.deviceToken, undefined);
  });

  test('a trusted device skips the second factor; another account, a forged token do not', async () => {
    const device = await trusted(s, 'amy', secretA);
    const again = await firstStep(s, 'amy', device);
    assert.equal(typeof again.token, 'string', 'amy signs in with the password alone');
    assert.equal((await s.users('profile', {}, { token: again.token ?? '' })).status, 200);
    assert.equal((await firstStep(s, 'ben', device)).token, null, "amy's device is not ben's");
    for (const forged of [`${device}x`, 'x'.repeat(300), '', device.toUpperCase()])
      assert.equal((await firstStep(s, 'amy', forged)).token, null, `forged: ${forged.slice(0, 20)}`);
    // A wrong password stays wrong on a trusted device.
    const wrong = await s.users(
      'token',
      { identity: 'amy', password: 'not-the-password' },
      { headers: { 'x-roost-trusted-device': device } },
    );
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'invalid_credentials');
  });

  test('it expires after the configured days', async () => {
    const device = await trusted(s, 'ben', secretB);
    assert.notEqual((await firstStep(s, 'ben', device)).token, null);
    now += 30 * DAY + 1000;
    assert.equal((await firstStep(s, 'ben', device)).token, null);
  });

  test('a password change, signing out the other devices and removing the factor each forget it', async () => {
    const device = await trusted(s, 'amy', secretA);
    const session = (await firstStep(s, 'amy', device)).token ?? '';
    assert.ok(session);
    assert.deepEqual((await s.users('revokeOtherSessions', {}, { token: session })).body, { result: true });
    assert.equal((await firstStep(s, 'amy', device)).token, null, 'signed out elsewhere: forgotten');

    const second = await trusted(s, 'amy', secretA);
    const own = (await firstStep(s, 'amy', second)).token ?? '';
    const changed = await s.users(
      'updatePassword',
      { password: PASSWORD, newpassword: 'another-password-1' },
      {
        token: own,
      },
    );
    assert.deepEqual(changed.body, { result: true });
    const afterChange = await s.users(
      'token',
      { identity: 'amy', password: 'another-password-1' },
      { headers: { 'x-roost-trusted-device': second } },
    );
    assert.equal(afterChange.body.code, 'second_factor_required', 'a new password: forgotten');
    const back = await s.users('token2', { challenge: afterChange.body.challenge, code: totpCode(secretA, now) });
    now += STEP;
    await s.users(
      'updatePassword',
      { password: 'another-password-1', newpassword: PASSWORD },
      { token: back.body.token },
    );

    const third = await trusted(s, 'amy', secretA);
    const admin = await s.adminToken();
    assert.deepEqual((await s.users('resetSecondFactor', { identity: 'amy' }, { token: admin })).body, {
      result: true,
    });
    // Without a factor no challenge comes at all; the device token is gone with it.
    const plain = await firstStep(s, 'amy', third);
    assert.equal(typeof plain.token, 'string');
    await withTotpAgain(s, plain.token ?? '');
    assert.equal((await firstStep(s, 'amy', third)).token, null, 'the removed factor took the trust with it');
  });

  test('the cookie variant: signin2 with trustDevice keeps the token in an HttpOnly cookie', async () => {
    const first = await s.users('signin', { identity: 'ben', password: PASSWORD });
    assert.equal(first.body.code, 'second_factor_required');
    const res = await s.users('signin2', {
      challenge: first.body.challenge,
      code: totpCode(secretB, now),
      trustDevice: '1',
    });
    now += STEP;
    assert.deepEqual(res.body, { result: true });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('roost_trusted_device='));
    assert.ok(cookie, 'the device cookie is set');
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /Max-Age=2592000/);
    const value = cookie.split(';')[0] ?? '';
    const again = await s.users('signin', { identity: 'ben', password: PASSWORD }, { headers: { cookie: value } });
    assert.deepEqual(again.body, { result: true }, 'the cookie skips the second factor');
  });

  async function withTotpAgain(server: TestServer, token: string): Promise<void> {
    const { secret } = (await server.users('totpEnrol', {}, { token })).body as { secret: string };
    const ok = await server.users('totpConfirm', { code: totpCode(secret, now), password: PASSWORD }, { token });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    now += STEP;
  }
});

describe('trusted devices: off (the default)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({}, { clock });
  });
  after(() => s.close());

  test('trustDevice answers no device token, and nothing skips the second factor', async () => {
    const secret = await withTotp(s, 'cal');
    const { challenge } = await firstStep(s, 'cal');
    const res = await s.users('token2', { challenge, code: totpCode(secret, now), trustDevice: true });
    now += STEP;
    assert.equal(res.status, 200);
    assert.equal(res.body.deviceToken, undefined);
  });
});
