import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { users, isRoostError, secondFactorChallenge, type RoostError, type Users } from '../src/index.js';
import { totpCode } from '../../server/src/users/signin-methods/totp/totp.js';
import { userOperations } from '../../server/src/http/protocol/user-protocol.js';
import {
  Coverage,
  documentedOperations,
  passwordFromMail,
  PASSKEY_OPERATIONS,
  PASSWORD,
  startRoost,
  tokenFromMail,
  type TestServer,
} from './helpers/roost.js';
import { startOpenIdProvider } from '../../server/test/helpers/oidc-provider.js';
import { CookieJar, walk } from '../../server/test/helpers/provider-flow.js';
import { receiver } from '../../server/test/helpers/webhook-receiver.js';

/**
 * Every operation of the user service through the TypeScript connector in Node, against a real
 * Roost: the answers' shapes, the token the connector keeps, and the failures it raises.
 */

describe('users connector (Node)', () => {
  let s: TestServer;
  let admin: Users;
  let gateway: Awaited<ReturnType<typeof receiver>>;
  const coverage = new Coverage();
  const connect = (token?: string) =>
    users({ baseUrl: s.url, onSuccess: coverage.onSuccess, ...(token ? { token } : {}) });

  before(async () => {
    gateway = await receiver();
    s = await startRoost({ smsGateway: gateway.url });
    admin = connect(await s.adminToken());
  });
  after(async () => {
    await s.close();
    await gateway.close();
  });

  test('ping, getPermissions and setPermissions open the sign-up policies', async () => {
    assert.deepEqual(await connect().ping(), { result: 1 });
    const before = await admin.getPermissions();
    assert.equal(before.result, true);
    assert.deepEqual(
      before.permissions.find((p) => p.permission === 'signupDirect'),
      { permission: 'signupDirect', groups: ['sys:noone'] },
    );
    const policies = ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'];
    const changed = await admin.setPermissions(
      policies.map((permission) => ({ permission, groups: ['sys:everyone'], action: 'replace' as const })),
    );
    for (const permission of policies)
      assert.deepEqual(changed.permissions.find((p) => p.permission === permission)?.groups, ['sys:everyone']);
  });

  test('signupDirect, token (kept by the connector), identity, name, profile, authenticated, allowed', async () => {
    const alice = connect();
    assert.deepEqual(
      await alice.signupDirect('alice', 'alice@example.com', PASSWORD, {
        realname: 'Alice Adams',
        data: { theme: 'dark' },
      }),
      { result: true },
    );
    const token = await alice.token('alice', PASSWORD);
    assert.equal(token.result, true);
    assert.equal(typeof token.token, 'string');
    assert.ok(token.expires > Date.now());
    assert.equal(alice.options.token, token.token);

    const identity = await alice.identity();
    assert.deepEqual(Object.keys(identity).sort(), ['email', 'id', 'name', 'realname', 'reference']);
    assert.equal(identity.name, 'alice');
    assert.equal(identity.reference, identity.id);
    assert.deepEqual(await alice.name(), { name: 'alice', realname: 'Alice Adams' });
    const profile = await alice.profile();
    assert.equal(profile.data, '{"theme":"dark"}');
    assert.equal(profile.active, true);
    assert.equal(profile.pending, false);
    assert.deepEqual(profile.groups, []);
    assert.match(profile.activity, /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d$/);

    assert.deepEqual(await alice.authenticated(), { result: true });
    assert.deepEqual(await alice.authenticated('admins'), { result: false });
    assert.deepEqual(await admin.authenticated(['editors', 'admins']), { result: true });
    assert.deepEqual(await connect().authenticated(), { result: false });
    assert.deepEqual(await alice.allowed(['profile', 'getUser']), { result: false, profile: true, getUser: false });

    // A token function may hand on another connector's source, itself a function: it is followed.
    const follower = users({ baseUrl: s.url, token: () => alice.options.token });
    const chained = users({ baseUrl: s.url, onSuccess: coverage.onSuccess, token: () => follower.options.token });
    assert.equal((await chained.identity()).name, 'alice');
    alice.options.token = () => token.token;
    assert.equal((await chained.identity()).name, 'alice');
    alice.options.token = token.token;

    // `store: false` answers the token without keeping it.
    const other = connect();
    const kept = await other.token('alice@example.com', PASSWORD, { store: false });
    assert.equal(other.options.token, undefined);
    assert.notEqual(kept.token, token.token);
  });

  test('signupOptin and activate with the mailed token', async () => {
    assert.deepEqual(await connect().signupOptin('olga', 'olga@example.com', PASSWORD), { result: true });
    await assert.rejects(
      connect().token('olga', PASSWORD),
      (e: RoostError) => e.status === 401 && e.code === 'invalid_credentials',
    );
    assert.deepEqual(await connect().activate(tokenFromMail(await s.lastMail('olga@example.com'))), { result: true });
    assert.equal((await connect().token('olga', PASSWORD)).result, true);
  });

  test('signupReview, then review by an administrator', async () => {
    await connect().signupReview('rita', 'rita@example.com', PASSWORD);
    await connect().signupReview('rolf', 'rolf@example.com', PASSWORD);
    assert.equal((await admin.getUser('rita')).state, 'pending');
    assert.deepEqual(await admin.review('rita', 'accept'), { result: true });
    assert.deepEqual(await admin.review('rolf@example.com', 'reject'), { result: true });
    assert.equal((await admin.getUser('rita')).state, 'active');
    await assert.rejects(admin.getUser('rolf'), (e: RoostError) => e.status === 404 && e.code === 'unknown_user');
  });

  test('signupSendpw mails a password that works; signupUid answers the generated name', async () => {
    await connect().signupSendpw('sven', 'sven@example.com', { realname: 'Sven' });
    const password = passwordFromMail((await s.lastMail('sven@example.com')).text);
    assert.equal((await connect().token('sven', password)).result, true);

    const uid = await connect().signupUid(PASSWORD, 'uid@example.com');
    assert.equal(uid.result, true);
    assert.equal(uid.name.length, 30);
    assert.equal((await connect().token(uid.name, PASSWORD)).result, true);
  });

  test('update, updatePassword, updateEmail (and updateMail), verifyEmail, verifyEmail2', async () => {
    await connect().signupDirect('bert', 'bert@example.com', PASSWORD);
    const bert = connect();
    await bert.token('bert', PASSWORD);
    assert.deepEqual(await bert.update({ realname: 'Bert B.', notify: true, data: 'plain' }), { result: true });
    const profile = await bert.profile();
    assert.equal(profile.realname, 'Bert B.');
    assert.equal(profile.notify, true);
    assert.equal(profile.data, 'plain');

    assert.deepEqual(await bert.updatePassword(PASSWORD, 'bert-password-2'), { result: true });
    assert.equal((await connect().token('bert', 'bert-password-2')).result, true);

    assert.deepEqual(await admin.updateEmail('root@example.com'), { result: true });
    assert.deepEqual(await admin.updateMail('admin@example.com'), { result: true });
    assert.equal((await admin.identity()).email, 'admin@example.com');
    await assert.rejects(
      bert.updateEmail('b@example.com'),
      (e: RoostError) => e.status === 403 && e.code === 'not_allowed',
    );

    assert.deepEqual(await bert.verifyEmail('bert@example.org'), { result: true });
    assert.deepEqual(await connect().verifyEmail2(tokenFromMail(await s.lastMail('bert@example.org'))), {
      result: true,
    });
    assert.equal((await bert.identity()).email, 'bert@example.org');
  });

  test('resetPassword and resetPassword2; message to the administrator', async () => {
    assert.deepEqual(await connect().resetPassword('bert'), { result: true });
    const token = tokenFromMail(await s.lastMail('bert@example.org'));
    assert.deepEqual(await connect().resetPassword2(token, 'bert-password-3'), { result: true });
    const bert = connect();
    await bert.token('bert', 'bert-password-3');
    assert.deepEqual(await bert.message('Hello from the connector'), { result: true });
    const mail = await s.lastMail('postmaster@example.com');
    assert.match(mail.text, /Hello from the connector/);
  });

  test('signin answers without a token in the body; signout revokes the token and forgets it', async () => {
    const carl = connect();
    await connect().signupDirect('carl', 'carl@example.com', PASSWORD);
    // Node's fetch keeps no cookies: the cookie itself is checked in chromium (browser.test.ts).
    assert.deepEqual(await carl.signin('carl', PASSWORD), { result: true });
    await carl.token('carl', PASSWORD);
    const token = carl.options.token as string;
    assert.deepEqual(await carl.signout(), { result: true });
    assert.equal(carl.options.token, undefined);
    await assert.rejects(connect(token).identity(), (e: RoostError) => e.status === 401 && e.code === 'not_signed_in');
  });

  test('administrators: getUser, setUser, list, identities, removeUser', async () => {
    const record = await admin.getUser('alice');
    assert.equal(record.result, true);
    assert.equal(record.name, 'alice');
    assert.equal(record.state, 'active');
    assert.match(record.created, /^\d{4}\/\d\d\/\d\d/);
    assert.deepEqual(await admin.setUser('alice', { groups: ['editors'], realname: 'Alice A.' }), { result: true });
    assert.deepEqual((await admin.getUser(record.id)).groups, ['editors']);

    const all = await admin.list({ active: true, sort: 'name', size: 100 });
    assert.ok(all.users.some((u) => u.name === 'alice' && u.state === 'active' && u.groups[0] === 'editors'));
    const page = await admin.list({ active: true, sort: 'name', order: '<', start: 2, size: 2 });
    assert.deepEqual(
      page.users.map((u) => u.name),
      all.users.slice(1, 3).map((u) => u.name),
    );
    assert.deepEqual([page.start, page.size, page.total], [2, 2, all.total]);
    const identities = await admin.identities({ search: 'alice' });
    assert.deepEqual(identities.users, [
      { name: 'alice', realname: 'Alice A.', email: 'alice@example.com', id: record.id, reference: record.id },
    ]);

    assert.deepEqual(await admin.setUser('sven', { active: false }), { result: true });
    assert.equal((await admin.getUser('sven')).state, 'disabled');
    assert.deepEqual(await admin.removeUser('sven'), { result: true });
    await assert.rejects(
      admin.removeUser('sven'),
      (e: RoostError) => e.status === 404 && e.code === 'unknown_user' && e.reason('identity') === 'unknown_user',
    );
  });

  test('disable and delete end the own account and forget the token', async () => {
    await connect().signupDirect('dora', 'dora@example.com', PASSWORD);
    await connect().signupDirect('dirk', 'dirk@example.com', PASSWORD);
    const dora = connect();
    await dora.token('dora', PASSWORD);
    assert.deepEqual(await dora.disable(), { result: true });
    assert.equal(dora.options.token, undefined);
    assert.equal((await admin.getUser('dora')).state, 'disabled');
    const dirk = connect();
    await dirk.token('dirk', PASSWORD);
    assert.deepEqual(await dirk.delete(), { result: true });
    assert.equal(dirk.options.token, undefined);
    // The name is free again.
    assert.deepEqual(await connect().signupDirect('dirk', 'dirk@example.com', PASSWORD), { result: true });
  });

  test('validation failures (HTTP 200, result false) reject with the field pairs', async () => {
    const error = await connect()
      .signupDirect('al', 'alice-at-example', '')
      .then(
        () => assert.fail('resolved'),
        (e: unknown) => e,
      );
    assert.ok(isRoostError(error));
    assert.equal(error.status, 200);
    assert.equal(error.code, 'validation_failure');
    assert.equal(error.operation, 'signupDirect');
    assert.equal(error.message, 'Some fields are missing or invalid.');
    assert.deepEqual(error.fields, [
      ['name', 'too short'],
      ['email', 'invalid_email'],
      ['password', 'required'],
    ]);
    assert.deepEqual(error.messages, ['Some fields are missing or invalid.']);
    assert.equal(error.body.result, false);
  });

  test('second factor and sessions: enrol, two steps with a code or recovery code, sessions, admins', async () => {
    const fern = connect();
    await fern.signupDirect('fern', 'fern@example.com', PASSWORD);
    await fern.token('fern', PASSWORD);
    assert.deepEqual(await fern.secondFactor(), {
      result: true,
      totp: false,
      recoveryCodes: 0,
      required: false,
      providers: [],
      passkeys: 0,
      sms: false,
    });
    const setup = await fern.totpEnrol();
    assert.match(setup.uri, /^otpauth:\/\/totp\//);
    const { recoveryCodes } = await fern.totpConfirm(totpCode(setup.secret, Date.now()), PASSWORD);
    assert.equal(recoveryCodes.length, 10);

    // Another device: the password answers the challenge, the next step's code the token.
    const phone = connect();
    const refused = await phone.token('fern', PASSWORD).catch((error: unknown) => error);
    const step = secondFactorChallenge(refused);
    assert.ok(step, String(refused));
    assert.deepEqual(step.methods, ['totp', 'recovery']);
    assert.equal(step.enrol, false);
    assert.equal(secondFactorChallenge(new Error('other')), null);
    await phone.token2(step.challenge, { code: totpCode(setup.secret, Date.now() + 30_000) });
    assert.equal((await phone.identity()).name, 'fern');
    // Cookie mode, with a recovery code.
    const browser = connect();
    const viaCookie = secondFactorChallenge(await browser.signin('fern', PASSWORD).catch((e: unknown) => e));
    assert.ok(viaCookie);
    assert.deepEqual(await browser.signin2(viaCookie.challenge, { recoveryCode: recoveryCodes[0] as string }), {
      result: true,
    });

    const { sessions } = await fern.sessions();
    assert.equal(sessions.length, 3);
    assert.deepEqual(sessions.map((x) => x.method).sort(), ['password', 'recovery', 'totp']);
    assert.equal(sessions.find((x) => x.current)?.method, 'password');
    await fern.revokeSession(sessions.find((x) => x.method === 'totp')?.id as string);
    await assert.rejects(phone.identity(), (e: RoostError) => e.status === 401);
    await fern.revokeOtherSessions();
    assert.equal((await fern.sessions()).sessions.length, 1);

    assert.equal((await fern.recoveryCodes({ password: PASSWORD })).recoveryCodes.length, 10);
    assert.deepEqual(await admin.userFactors('fern'), {
      result: true,
      totp: true,
      recoveryCodes: 10,
      required: false,
      providers: [],
      passkeys: 0,
      sms: false,
    });
    await fern.totpRemove({ password: PASSWORD });
    assert.equal((await admin.userFactors('fern')).totp, false);
    assert.deepEqual(await admin.resetSecondFactor('fern'), { result: true });
    const listed = await admin.userSessions('fern');
    assert.equal(listed.sessions.length, 1);
    assert.equal(listed.sessions[0]?.current, false);
    await admin.revokeUserSessions('fern', listed.sessions[0]?.id);
    await assert.rejects(fern.identity(), (e: RoostError) => e.status === 401);
    await fern.token('fern', PASSWORD);
    await admin.revokeUserSessions('fern');
    await assert.rejects(fern.identity(), (e: RoostError) => e.status === 401);
  });

  test('sign-in by mail: refused while off; once on, the mailed code and the link each sign in once', async () => {
    await assert.rejects(connect().signinMail('fern'), (e: RoostError) => e.code === 'not_allowed');
    await admin.setPermissions([{ permission: 'signinMail', groups: ['sys:everyone'], action: 'replace' }]);
    const fern = connect();
    assert.deepEqual(await fern.signinMail('fern@example.com'), { result: true });
    const text = (await s.lastMail('fern@example.com')).text;
    const code = /sign-in code is (\d{6})/.exec(text)?.[1] as string;
    await fern.signinMail2({ identity: 'fern@example.com', code });
    assert.equal((await fern.identity()).name, 'fern');
    await assert.rejects(fern.signinMail2({ identity: 'fern', code }), (e: RoostError) => e.code === 'invalid_code');
    await fern.signinMail('fern');
    const again = await connect().signinMail2({ token: tokenFromMail(await s.lastMail('fern@example.com')) });
    assert.equal(typeof again.token, 'string');
  });

  test('a provider sign-in: the address to start it, the grant traded, links listed and unlinked', async () => {
    const op = await startOpenIdProvider([`${s.url}/users/providers/corp/callback`]);
    try {
      const app = `${s.url}/app/`;
      const provider = {
        id: 'corp',
        kind: 'oidc',
        issuer: op.issuer,
        clientId: op.clientId,
        clientSecret: op.clientSecret,
      };
      await s.roost.settings.change({ providers: [provider], providerRedirects: [app] }, 'test');
      const pia = connect();
      assert.deepEqual(await pia.providers(), { result: true, providers: [{ id: 'corp', label: '127.0.0.1' }] });
      const start = pia.providerSigninUrl('corp', `${app}home`);
      assert.equal(start, `${s.url}/users/providers/corp/start?redirect=${encodeURIComponent(`${app}home`)}`);
      // The browser's way through the provider, played by the server tests' helper (sign-up is open).
      const end = await walk(new CookieJar(), start, 'pia');
      assert.equal(end.url.pathname, '/app/home');
      assert.equal(await pia.completeProviderSignin(`${app}home`), null);
      const signedIn = await pia.completeProviderSignin(end.url.href);
      assert.equal(typeof signedIn?.token, 'string');
      assert.equal((await pia.identity()).name, 'pia');
      await assert.rejects(
        connect().completeProviderSignin(end.url.href),
        (e: RoostError) => e.code === 'invalid_token',
      );
      await assert.rejects(
        connect().completeProviderSignin(`${app}?roost_error=signup_closed`),
        (e: RoostError) => e.code === 'signup_closed',
      );
      await assert.rejects(
        connect().completeProviderSignin(`${app}?roost_pending=review`),
        (e: RoostError) => e.code === 'account_pending' && e.body.pending === 'review',
      );
      const links = await pia.providerLinks();
      assert.deepEqual(
        links.providers.map((l) => [l.provider, l.email]),
        [['corp', 'pia@example.com']],
      );
      // Pia's account was made by the provider with a random password, so unlinking, which asks
      // for the password again, needs one set first (here by an administrator, then signed in).
      await assert.rejects(
        pia.unlinkProvider('corp', { password: PASSWORD }),
        (e: RoostError) => e.code === 'validation_failure' && e.status === 200,
      );
      await admin.setUser('pia@example.com', { password: PASSWORD });
      await pia.token('pia@example.com', PASSWORD);
      assert.deepEqual(await pia.unlinkProvider('corp', { password: PASSWORD }), { result: true });
      await assert.rejects(
        pia.unlinkProvider('corp', { password: PASSWORD }),
        (e: RoostError) => e.code === 'not_linked' && e.status === 404,
      );
    } finally {
      await s.roost.settings.change({ providers: [], providerRedirects: [] }, 'test');
      await op.close();
    }
  });

  test('challenge; signinAnonymous (the token kept) and upgradeAnonymous keep the account id', async () => {
    const challenge = await connect().challenge();
    assert.equal(challenge.result, true);
    assert.equal(challenge.required, false);
    assert.equal(typeof challenge.signature, 'string');
    await admin.setPermissions([{ permission: 'signinAnonymous', groups: ['sys:everyone'], action: 'replace' }]);
    const guest = connect();
    const anonymous = await guest.signinAnonymous();
    assert.equal(guest.options.token, anonymous.token);
    assert.deepEqual(await guest.upgradeAnonymous('gwen', PASSWORD, { email: 'gwen@example.com' }), { result: true });
    const who = await guest.identity();
    assert.equal(who.id, anonymous.id);
    assert.equal(who.name, 'gwen');
  });

  test('codes by SMS: add, confirm, phone, challenge with token2, signin and signin2, remove', async () => {
    /** The code of the last text the gateway got. */
    const lastCode = async () => {
      await s.roost.mailQueue.idle();
      const text = JSON.parse(gateway.received.at(-1)?.body ?? '{}') as { text: string };
      return /\d{6}/.exec(text.text)?.[0] ?? '';
    };
    const sara = connect(await s.createUser('sara'));
    const added = await sara.smsAdd('+1 202 555 0143', { password: PASSWORD });
    assert.equal(added.phone, '+12025550143');
    assert.equal(added.delivery, 'sent');
    assert.equal((await sara.smsConfirm(await lastCode())).recoveryCodes.length, 10);
    assert.deepEqual(await sara.smsPhone(), { result: true, phone: '+12025550143', pending: null });

    const device = connect();
    const step = secondFactorChallenge(await device.token('sara', PASSWORD).catch((e: unknown) => e));
    assert.ok(step);
    assert.deepEqual(step.methods, ['recovery', 'sms-code']);
    assert.equal((await device.smsChallenge(step.challenge)).delivery, 'sent');
    await device.token2(step.challenge, { smsCode: await lastCode() });
    assert.equal((await device.identity()).name, 'sara');

    await admin.setPermissions([{ permission: 'smsSignin', groups: ['sys:everyone'], action: 'replace' }]);
    const guest = connect();
    assert.deepEqual(await guest.smsSignin('+12025550143'), { result: true });
    const signed = await guest.smsSignin2('+12025550143', await lastCode());
    assert.equal(guest.options.token, signed.token);
    assert.equal((await guest.identity()).name, 'sara');
    assert.deepEqual(await sara.smsRemove({ password: PASSWORD }), { result: true });
    assert.equal((await sara.secondFactor()).sms, false);
  });

  test('every operation of the user service was called through the connector', () => {
    const routes = userOperations(s.roost.users, s.roost.config).map((r) => r.op);
    assert.deepEqual([...routes].sort(), [...documentedOperations('users')].sort());
    // An ID token comes from a provider's app sign-in on a device: test/http/id-token-signin.test.ts
    // makes them with a local OpenID provider and calls the operation over HTTP.
    coverage.assertCalled(routes.filter((op) => !PASSKEY_OPERATIONS.includes(op) && op !== 'signinIdToken'));
  });

  test('a name option is refused: the service is always `users`', () => {
    assert.throws(() => users({ baseUrl: s.url, name: 'accounts' } as never), TypeError);
  });
});
