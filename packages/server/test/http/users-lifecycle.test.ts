import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, useServer, tokenFromMail, PASSWORD, type CallResult } from '../helpers/test-server.js';

/**
 * The account life cycle over HTTP: every row of the seed's "States and transitions" table, the
 * review actions, the single-use and expiring tokens (with a clock the test moves), login token
 * expiry and revocation, password reset, email change and the administrator message.
 */

const ACTIVATION_URL = 'https://app.example.com/activate';
const VERIFY_URL = 'https://app.example.com/verify';
const RESET_URL = 'https://app.example.com/reset';
const ADMIN_ADDRESS = 'admin-box@example.com';
const LIFETIME = { token: 3600, sessionMax: 4 * 3600, activation: 600, verify: 900, reset: 300 };
const POLICIES = ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'];

let now = Date.now();

const s = useServer(
  {
    users: {
      activationUrl: ACTIVATION_URL,
      verifyEmailUrl: VERIFY_URL,
      resetPasswordUrl: RESET_URL,
      tokenLifetimeSeconds: LIFETIME.token,
      sessionMaxLifetimeSeconds: LIFETIME.sessionMax,
      activationLifetimeSeconds: LIFETIME.activation,
      verifyEmailLifetimeSeconds: LIFETIME.verify,
      resetLifetimeSeconds: LIFETIME.reset,
    },
    mail: { adminAddress: ADMIN_ADDRESS },
  },
  { clock: { now: () => now } },
);
before(async () => {
  await s.adminToken();
  for (const policy of POLICIES) await s.grant(policy, ['sys:everyone']);
});

/** Move the server's clock forward. */
const advance = (seconds: number) => {
  now += seconds * 1000;
};

/** A fresh administrator token (the clock moves, so a cached one may have expired). */
async function admin(): Promise<string> {
  const res = await s.users('token', { identity: 'admin', password: PASSWORD });
  assert.equal(typeof res.body.token, 'string', JSON.stringify(res.body));
  return res.body.token;
}

/** Like `s.grant`, with a fresh administrator token. */
async function grant(permission: string, groups: string[]): Promise<void> {
  const res = await s.users(
    'setPermissions',
    { permissions: [{ permission, groups, action: 'replace' }] },
    { token: await admin() },
  );
  assert.equal(res.body.result, true, JSON.stringify(res.body));
}

async function getUser(identity: string): Promise<CallResult> {
  return s.users('getUser', { identity }, { token: await admin() });
}

/** The account's state as an administrator sees it, `removed` when there is none. */
async function stateOf(identity: string): Promise<string> {
  const res = await getUser(identity);
  if (res.status === 404) {
    assert.equal(res.body.code, 'unknown_user');
    return 'removed';
  }
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.state;
}

async function signup(policy: string, name: string, extra: Record<string, unknown> = {}): Promise<CallResult> {
  const res = await s.users(policy, { name, email: `${name}@example.com`, password: PASSWORD, ...extra });
  assert.equal(res.body.result, true, JSON.stringify(res.body));
  return res;
}

/** `token` for an identity; the whole answer, so refusals can be asserted. */
const tokenCall = (identity: string, password = PASSWORD) => s.users('token', { identity, password });

async function tokenFor(identity: string, password = PASSWORD): Promise<string> {
  const res = await tokenCall(identity, password);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(typeof res.body.token, 'string');
  return res.body.token;
}

async function assertNoToken(identity: string, password = PASSWORD): Promise<void> {
  const res = await tokenCall(identity, password);
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.body.result, false);
  assert.equal(res.body.code, 'invalid_credentials');
  assert.equal(res.body.token, undefined);
  const signin = await s.users('signin', { identity, password });
  assert.equal(signin.status, 401);
  assert.equal(signin.headers.get('set-cookie'), null);
}

/** The token works: the profile answers with this name. */
async function assertSignedIn(token: string, name: string): Promise<void> {
  const res = await s.users('profile', {}, { token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.name, name);
}

async function assertSignedOut(token: string): Promise<void> {
  const res = await s.users('profile', {}, { token });
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.body.result, false);
  const auth = await s.users('authenticated', {}, { token });
  assert.equal(auth.body.result, false);
}

/** A new sign-up with this name or email is refused as `exists`. */
async function assertBlocked(name: string, email: string): Promise<void> {
  const byName = await s.users('signupDirect', { name, email: `other-${name}@example.com`, password: PASSWORD });
  assert.deepEqual(byName.body.invalid, [['name', 'exists']]);
  const byEmail = await s.users('signupDirect', { name: `other-${name}`, email, password: PASSWORD });
  assert.deepEqual(byEmail.body.invalid, [['email', 'exists']]);
}

/** A new sign-up may take this name and email again. */
async function assertReusable(name: string, email: string): Promise<string> {
  const res = await s.users('signupDirect', { name, email, password: 'another-password' });
  assert.deepEqual(res.body, { result: true });
  const user = await getUser(name);
  assert.equal(user.body.state, 'active');
  assert.equal(user.body.email, email);
  return user.body.id;
}

const mailsTo = async (to: string) => (await s.outbox()).filter((m) => m.to === to);

function assertInvalidToken(res: CallResult): void {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, false);
  assert.equal(res.body.code, 'invalid_token');
  assert.deepEqual(res.body.invalid, [['token', 'invalid']]);
}

const review = async (identity: string, action: string) =>
  s.users('review', { identity, action }, { token: await admin() });

describe('users: every row of the state table', () => {
  test('none → active by signupDirect: no verification, no confirmation', async () => {
    assert.equal(await stateOf('row-direct'), 'removed');
    await signup('signupDirect', 'row-direct');
    assert.equal(await stateOf('row-direct'), 'active');
    await assertSignedIn(await tokenFor('row-direct'), 'row-direct');
    assert.deepEqual(await mailsTo('row-direct@example.com'), []);
  });

  test('none → pending by signupOptin; pending (opt-in) → active by activate with a valid token', async () => {
    await signup('signupOptin', 'row-optin');
    assert.equal(await stateOf('row-optin'), 'pending');
    const pending = await getUser('row-optin');
    assert.equal(pending.body.pending, true);
    assert.equal(pending.body.active, false);
    await assertNoToken('row-optin');
    const mail = await s.lastMail('row-optin@example.com');
    assert.ok(mail.text.startsWith('Hello row-optin') || mail.text.includes('row-optin'));
    assert.ok(mail.text.includes(`${ACTIVATION_URL}?token=`));

    const wrong = await s.users('activate', { token: 'not-a-token' });
    assertInvalidToken(wrong);
    assert.equal(await stateOf('row-optin'), 'pending');

    const res = await s.users('activate', { token: tokenFromMail(mail) });
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-optin'), 'active');
    const active = await getUser('row-optin');
    assert.equal(active.body.pending, false);
    assert.equal(active.body.active, true);
    await assertSignedIn(await tokenFor('row-optin'), 'row-optin');
  });

  test('none → pending by signupReview: waits for the administrator', async () => {
    await signup('signupReview', 'row-review');
    assert.equal(await stateOf('row-review'), 'pending');
    await assertNoToken('row-review');
    const listed = await s.users('list', { pending: true, search: 'row-review' }, { token: await admin() });
    assert.deepEqual(
      listed.body.users.map((u: { name: string }) => u.name),
      ['row-review'],
    );
    // No activation token was issued: nothing in the user's mailbox to activate with.
    assert.deepEqual(await mailsTo('row-review@example.com'), []);
    advance(60);
    assert.equal(await stateOf('row-review'), 'pending');
  });

  test('pending (review) → review optin → pending until the mailed token is used → active', async () => {
    await signup('signupReview', 'row-rev-optin');
    const res = await review('row-rev-optin', 'optin');
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-rev-optin'), 'pending');
    await assertNoToken('row-rev-optin');
    const mail = await s.lastMail('row-rev-optin@example.com');
    assert.equal(mail.kind, 'activation');
    assert.ok(mail.text.includes(`${ACTIVATION_URL}?token=`));
    assert.ok(mail.html.includes(ACTIVATION_URL));
    const activated = await s.users('activate', { token: tokenFromMail(mail) });
    assert.deepEqual(activated.body, { result: true });
    assert.equal(await stateOf('row-rev-optin'), 'active');
    await assertSignedIn(await tokenFor('row-rev-optin'), 'row-rev-optin');
  });

  test('pending → review reject → removed: profile gone, name and email reusable', async () => {
    await signup('signupReview', 'row-reject');
    const id = (await getUser('row-reject')).body.id;
    const res = await review('row-reject', 'reject');
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-reject'), 'removed');
    assert.equal(await stateOf(id), 'removed');
    await assertNoToken('row-reject');
    const newId = await assertReusable('row-reject', 'row-reject@example.com');
    assert.notEqual(newId, id);
  });

  test('pending → review reject also removes an opt-in account', async () => {
    await signup('signupOptin', 'row-reject2');
    const token = tokenFromMail(await s.lastMail('row-reject2@example.com'));
    assert.deepEqual((await review('row-reject2', 'reject')).body, { result: true });
    assert.equal(await stateOf('row-reject2'), 'removed');
    // The activation token went with the account.
    assertInvalidToken(await s.users('activate', { token }));
  });

  test('pending → review disable → disabled: kept, cannot sign in, name and email blocked', async () => {
    await signup('signupReview', 'row-rev-disable', { realname: 'Kept Name' });
    const res = await review('row-rev-disable', 'disable');
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-rev-disable'), 'disabled');
    const user = await getUser('row-rev-disable');
    assert.equal(user.body.active, false);
    assert.equal(user.body.pending, false);
    assert.equal(user.body.realname, 'Kept Name');
    await assertNoToken('row-rev-disable');
    await assertBlocked('row-rev-disable', 'row-rev-disable@example.com');
  });

  test('none → active by signupSendpw: reachable only with the mailed password', async () => {
    const res = await s.users('signupSendpw', { name: 'row-sendpw', email: 'row-sendpw@example.com' });
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-sendpw'), 'active');
    const password = /password: (\S+)/.exec((await s.lastMail('row-sendpw@example.com')).text)?.[1];
    assert.ok(password);
    await assertSignedIn(await tokenFor('row-sendpw', password), 'row-sendpw');
    await assertNoToken('row-sendpw', PASSWORD);
  });

  test('none → active by signupUid: generated 30-character name returned', async () => {
    const res = await s.users('signupUid', { email: 'row-uid@example.com', password: PASSWORD });
    assert.equal(res.body.result, true);
    assert.match(res.body.name, /^[a-z0-9]{30}$/);
    assert.equal(await stateOf(res.body.name), 'active');
    assert.equal(await stateOf('row-uid@example.com'), 'active');
    await assertSignedIn(await tokenFor(res.body.name), res.body.name);
  });

  test('active → disable by the caller: disabled, signed out, data kept, name and email blocked', async () => {
    await signup('signupDirect', 'row-disable', { realname: 'Dis Abled', data: { keep: 'me' } });
    const token = await tokenFor('row-disable');
    const other = await tokenFor('row-disable');
    const cookie = await s.users('signin', { identity: 'row-disable', password: PASSWORD });
    const cookieHeader = cookie.headers.get('set-cookie')?.split(';')[0];
    assert.ok(cookieHeader?.startsWith('auth='));

    const res = await s.users('disable', {}, { token });
    assert.deepEqual(res.body, { result: true });
    assert.match(res.headers.get('set-cookie') ?? '', /^auth=;/);
    await assertSignedOut(token);
    await assertSignedOut(other);
    const viaCookie = await s.request('/users/api/profile', undefined, { headers: { cookie: cookieHeader! } });
    assert.equal(viaCookie.status, 401);

    assert.equal(await stateOf('row-disable'), 'disabled');
    const user = await getUser('row-disable');
    assert.equal(user.body.active, false);
    assert.equal(user.body.realname, 'Dis Abled');
    assert.deepEqual(JSON.parse(user.body.data), { keep: 'me' });
    await assertNoToken('row-disable');
    await assertBlocked('row-disable', 'row-disable@example.com');
    await assertBlocked('ROW-DISABLE', 'Row-Disable@Example.com');
  });

  test('active → disable with the DELETE method, and disable needs a signed-in caller', async () => {
    const anonymous = await s.request('/users/api/disable', undefined, { method: 'DELETE' });
    assert.equal(anonymous.status, 401);
    await signup('signupDirect', 'row-disable-del');
    const token = await tokenFor('row-disable-del');
    const res = await s.request('/users/api/disable', undefined, { method: 'DELETE', token });
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-disable-del'), 'disabled');
    await assertSignedOut(token);
  });

  test('disabled → active by the administrator (setUser active true)', async () => {
    await signup('signupDirect', 'row-reactivate');
    await s.users('disable', {}, { token: await tokenFor('row-reactivate') });
    assert.equal(await stateOf('row-reactivate'), 'disabled');
    const res = await s.users(
      'setUser',
      { identity: 'row-reactivate', values: { active: true } },
      { token: await admin() },
    );
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-reactivate'), 'active');
    const token = await tokenFor('row-reactivate');
    const profile = await s.users('profile', {}, { token });
    assert.equal(profile.body.active, true);
    // Also the text form the connectors send.
    await s.users('disable', {}, { token });
    await s.users('setUser', { identity: 'row-reactivate', values: { active: 'true' } }, { token: await admin() });
    assert.equal(await stateOf('row-reactivate'), 'active');
  });

  test('active → disabled by setUser active false: open sessions end, no new token', async () => {
    await signup('signupDirect', 'row-setuser-off');
    const token = await tokenFor('row-setuser-off');
    const res = await s.users(
      'setUser',
      { identity: 'row-setuser-off', values: { active: false } },
      { token: await admin() },
    );
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-setuser-off'), 'disabled');
    await assertSignedOut(token);
    await assertNoToken('row-setuser-off');
    await assertBlocked('row-setuser-off', 'row-setuser-off@example.com');
    const disabled = await s.users('list', { active: false, search: 'row-setuser-off' }, { token: await admin() });
    assert.deepEqual(
      disabled.body.users.map((u: { name: string }) => u.name),
      ['row-setuser-off'],
    );
  });

  test('setUser is for administrators only', async () => {
    await signup('signupDirect', 'row-setuser-self');
    const token = await tokenFor('row-setuser-self');
    const res = await s.users('setUser', { identity: 'row-setuser-self', values: { active: false } }, { token });
    assert.equal(res.status, 403);
    assert.equal(await stateOf('row-setuser-self'), 'active');
  });

  test('active → removed by delete (self): signed out, profile gone, name and email reusable', async () => {
    await signup('signupDirect', 'row-delete');
    const id = (await getUser('row-delete')).body.id;
    const token = await tokenFor('row-delete');
    const other = await tokenFor('row-delete');
    const res = await s.users('delete', {}, { token });
    assert.deepEqual(res.body, { result: true });
    assert.match(res.headers.get('set-cookie') ?? '', /^auth=;/);
    assert.equal(await stateOf('row-delete'), 'removed');
    assert.equal(await stateOf(id), 'removed');
    await assertSignedOut(token);
    await assertSignedOut(other);
    await assertNoToken('row-delete');
    const newId = await assertReusable('row-delete', 'row-delete@example.com');
    assert.notEqual(newId, id);
    // The new account has its own password, not the old one.
    await assertNoToken('row-delete', PASSWORD);
    await tokenFor('row-delete', 'another-password');
  });

  test('active → removed by delete with the DELETE method', async () => {
    await signup('signupDirect', 'row-delete-del');
    const token = await tokenFor('row-delete-del');
    const res = await s.request('/users/api/delete', undefined, { method: 'DELETE', token });
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-delete-del'), 'removed');
  });

  test('active → removed by removeUser: sessions end, name and email reusable', async () => {
    await signup('signupDirect', 'row-remove');
    const token = await tokenFor('row-remove');
    const res = await s.users('removeUser', { identity: 'row-remove' }, { token: await admin() });
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-remove'), 'removed');
    await assertSignedOut(token);
    await assertReusable('row-remove', 'row-remove@example.com');
  });

  test('disabled → removed by removeUser (by email): name and email reusable', async () => {
    await signup('signupDirect', 'row-remove-dis');
    await s.users('disable', {}, { token: await tokenFor('row-remove-dis') });
    await assertBlocked('row-remove-dis', 'row-remove-dis@example.com');
    const res = await s.users('removeUser', { identity: 'row-remove-dis@example.com' }, { token: await admin() });
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('row-remove-dis'), 'removed');
    await assertReusable('row-remove-dis', 'row-remove-dis@example.com');
  });

  test('removeUser: unknown user 404, non-administrator 403', async () => {
    const unknown = await s.users('removeUser', { identity: 'nobody-here' }, { token: await admin() });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'unknown_user');
    await signup('signupDirect', 'row-remove-self');
    const denied = await s.users(
      'removeUser',
      { identity: 'row-remove-self' },
      { token: await tokenFor('row-remove-self') },
    );
    assert.equal(denied.status, 403);
    assert.equal(await stateOf('row-remove-self'), 'active');
  });
});

describe('users: review actions', () => {
  test('accept → active, with a mail to the user', async () => {
    await signup('signupReview', 'rev-accept');
    const res = await review('rev-accept', 'accept');
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('rev-accept'), 'active');
    const mail = await s.lastMail('rev-accept@example.com');
    assert.equal(mail.kind, 'welcome');
    assert.ok(mail.text.includes('rev-accept'));
    await assertSignedIn(await tokenFor('rev-accept'), 'rev-accept');
  });

  test('activate → active, without a mail', async () => {
    await signup('signupReview', 'rev-activate');
    const res = await review('rev-activate', 'activate');
    assert.deepEqual(res.body, { result: true });
    assert.equal(await stateOf('rev-activate'), 'active');
    assert.deepEqual(await mailsTo('rev-activate@example.com'), []);
    await tokenFor('rev-activate');
  });

  test('review works on an opt-in account too (the administrator activates it)', async () => {
    await signup('signupOptin', 'rev-of-optin');
    assert.deepEqual((await review('rev-of-optin', 'activate')).body, { result: true });
    assert.equal(await stateOf('rev-of-optin'), 'active');
  });

  test('review of a user that is not pending fails and changes nothing', async () => {
    await signup('signupDirect', 'rev-active');
    for (const action of ['accept', 'optin', 'activate', 'reject', 'disable']) {
      const res = await review('rev-active', action);
      assert.equal(res.status, 200);
      assert.equal(res.body.result, false, action);
      assert.equal(res.body.code, 'not_pending');
      assert.equal(await stateOf('rev-active'), 'active');
    }
    await signup('signupReview', 'rev-disabled');
    await review('rev-disabled', 'disable');
    const again = await review('rev-disabled', 'accept');
    assert.equal(again.body.result, false);
    assert.equal(await stateOf('rev-disabled'), 'disabled');
  });

  test('unknown action, unknown user, missing fields, non-administrator', async () => {
    await signup('signupReview', 'rev-bad');
    const action = await review('rev-bad', 'approve');
    assert.equal(action.body.result, false);
    assert.equal(action.body.code, 'unknown_action');
    assert.deepEqual(action.body.invalid, [['action', 'invalid']]);
    assert.equal(await stateOf('rev-bad'), 'pending');

    const unknown = await review('nobody-at-all', 'accept');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'unknown_user');

    const missing = await s.users('review', {}, { token: await admin() });
    assert.equal(missing.status, 200);
    assert.deepEqual(missing.body.invalid, [
      ['identity', 'required'],
      ['action', 'required'],
    ]);

    const anonymous = await s.users('review', { identity: 'rev-bad', action: 'accept' });
    assert.equal(anonymous.status, 401);
    await signup('signupDirect', 'rev-nonadmin');
    const denied = await s.users(
      'review',
      { identity: 'rev-bad', action: 'accept' },
      { token: await tokenFor('rev-nonadmin') },
    );
    assert.equal(denied.status, 403);
    assert.equal(await stateOf('rev-bad'), 'pending');
  });
});

describe('users: single-use and expiring tokens', () => {
  test('an activation token works once', async () => {
    await signup('signupOptin', 'tok-act-once');
    const token = tokenFromMail(await s.lastMail('tok-act-once@example.com'));
    assert.deepEqual((await s.users('activate', { token })).body, { result: true });
    assertInvalidToken(await s.users('activate', { token }));
    assert.equal(await stateOf('tok-act-once'), 'active');
  });

  test('an activation token expires after activationLifetimeSeconds', async () => {
    await signup('signupOptin', 'tok-act-late');
    await signup('signupOptin', 'tok-act-intime');
    const late = tokenFromMail(await s.lastMail('tok-act-late@example.com'));
    const intime = tokenFromMail(await s.lastMail('tok-act-intime@example.com'));
    advance(LIFETIME.activation - 5);
    assert.deepEqual((await s.users('activate', { token: intime })).body, { result: true });
    advance(10);
    assertInvalidToken(await s.users('activate', { token: late }));
    assert.equal(await stateOf('tok-act-late'), 'pending');
    // A new review optin issues a fresh token that works.
    await review('tok-act-late', 'optin');
    const fresh = tokenFromMail(await s.lastMail('tok-act-late@example.com'));
    assert.notEqual(fresh, late);
    assert.deepEqual((await s.users('activate', { token: fresh })).body, { result: true });
    assert.equal(await stateOf('tok-act-late'), 'active');
  });

  test('a review optin replaces the earlier activation token', async () => {
    await signup('signupOptin', 'tok-act-replaced');
    const first = tokenFromMail(await s.lastMail('tok-act-replaced@example.com'));
    await review('tok-act-replaced', 'optin');
    const second = tokenFromMail(await s.lastMail('tok-act-replaced@example.com'));
    assertInvalidToken(await s.users('activate', { token: first }));
    assert.deepEqual((await s.users('activate', { token: second })).body, { result: true });
  });

  test('activate without a token fails with required', async () => {
    const res = await s.users('activate', {});
    assert.equal(res.status, 200);
    assert.equal(res.body.result, false);
    assert.deepEqual(res.body.invalid, [['token', 'required']]);
  });

  test('a token of one purpose does not work for another', async () => {
    await signup('signupOptin', 'tok-purpose');
    const token = tokenFromMail(await s.lastMail('tok-purpose@example.com'));
    assertInvalidToken(await s.users('verifyEmail2', { token }));
    assertInvalidToken(await s.users('resetPassword2', { token, newpassword: 'new-password-1' }));
    // ... and is not spent by the wrong use.
    assert.deepEqual((await s.users('activate', { token })).body, { result: true });
  });

  test('a login token expires after tokenLifetimeSeconds', async () => {
    await signup('signupDirect', 'tok-login');
    const token = await tokenFor('tok-login');
    const issued = await tokenCall('tok-login');
    assert.equal(typeof issued.body.expires, 'number');
    assert.equal(issued.body.expires, now + LIFETIME.token * 1000);
    advance(LIFETIME.token - 10);
    // Untouched since issue: still valid just before the end of its lifetime.
    await assertSignedIn(issued.body.token, 'tok-login');
    advance(20);
    await assertSignedOut(token);
    await assertSignedIn(await tokenFor('tok-login'), 'tok-login');
  });

  test('a token in use is extended, an idle one is not', async () => {
    await signup('signupDirect', 'tok-sliding');
    const used = await tokenFor('tok-sliding');
    const idle = await tokenFor('tok-sliding');
    advance(LIFETIME.token * 0.75);
    await assertSignedIn(used, 'tok-sliding');
    advance(LIFETIME.token * 0.5);
    await assertSignedIn(used, 'tok-sliding');
    await assertSignedOut(idle);
  });

  test('a token in use ends at sessionMaxLifetimeSeconds after its sign-in all the same', async () => {
    await signup('signupDirect', 'tok-max');
    const token = await tokenFor('tok-max');
    // Used every 40 minutes: each use past half its lifetime extends it, up to the cap.
    for (let used = 0; used < LIFETIME.sessionMax - 2400; used += 2400) {
      advance(2400);
      await assertSignedIn(token, 'tok-max');
    }
    const listed = await s.users('sessions', {}, { token });
    const issuedAt = now - Math.floor((LIFETIME.sessionMax - 2400) / 2400) * 2400 * 1000;
    assert.ok(listed.body.sessions[0].expires <= issuedAt + LIFETIME.sessionMax * 1000);
    advance(2400);
    await assertSignedOut(token);
    await assertSignedIn(await tokenFor('tok-max'), 'tok-max');
  });

  test('signout revokes the token server-side (header and cookie), other sessions stay', async () => {
    await signup('signupDirect', 'tok-signout');
    const token = await tokenFor('tok-signout');
    const other = await tokenFor('tok-signout');
    const res = await s.users('signout', {}, { token });
    assert.deepEqual(res.body, { result: true });
    await assertSignedOut(token);
    await assertSignedIn(other, 'tok-signout');

    const signin = await s.users('signin', { identity: 'tok-signout', password: PASSWORD });
    assert.deepEqual(signin.body, { result: true });
    const cookie = signin.headers.get('set-cookie')!.split(';')[0]!;
    const value = cookie.slice('auth='.length);
    const viaCookie = await s.request('/users/api/profile', undefined, { headers: { cookie } });
    assert.equal(viaCookie.body.name, 'tok-signout');
    const out = await s.users('signout', {}, { headers: { cookie } });
    assert.equal(out.body.result, true);
    assert.match(out.headers.get('set-cookie') ?? '', /^auth=;/);
    // The old cookie value is dead even if a client keeps sending it.
    assert.equal((await s.request('/users/api/profile', undefined, { headers: { cookie } })).status, 401);
    await assertSignedOut(value);
  });

  test('pending and disabled accounts cannot get a token, a wrong password neither', async () => {
    await signup('signupOptin', 'tok-pending');
    await assertNoToken('tok-pending');
    await assertNoToken('tok-pending@example.com');
    await signup('signupDirect', 'tok-disabled');
    await s.users('disable', {}, { token: await tokenFor('tok-disabled') });
    await assertNoToken('tok-disabled');
    await signup('signupDirect', 'tok-wrongpw');
    await assertNoToken('tok-wrongpw', 'not-the-password');
    await assertNoToken('no-such-account');
  });
});

describe('users: password reset', () => {
  test('resetPassword answers true for unknown identities and mails only real, active accounts', async () => {
    const before = (await s.outbox()).length;
    for (const identity of ['nobody-reset', 'nobody-reset@example.com']) {
      const res = await s.users('resetPassword', { identity });
      assert.deepEqual(res.body, { result: true });
    }
    await signup('signupOptin', 'reset-pending');
    const pendingMails = (await mailsTo('reset-pending@example.com')).length;
    assert.deepEqual((await s.users('resetPassword', { identity: 'reset-pending' })).body, { result: true });
    assert.equal((await mailsTo('reset-pending@example.com')).length, pendingMails);
    assert.equal((await s.outbox()).length, before + 1); // only the activation mail of reset-pending
  });

  test('resetPassword → mail with a link → resetPassword2 sets the password, other sessions end', async () => {
    await signup('signupDirect', 'reset-me');
    const session = await tokenFor('reset-me');
    const res = await s.users('resetPassword', { identity: 'reset-me' });
    assert.deepEqual(res.body, { result: true });
    const mail = await s.lastMail('reset-me@example.com');
    assert.equal(mail.kind, 'reset');
    assert.ok(mail.text.includes(`${RESET_URL}?token=`));
    assert.ok(mail.html.includes(RESET_URL));
    const token = tokenFromMail(mail);
    // Nothing changed yet.
    await assertSignedIn(session, 'reset-me');
    await tokenFor('reset-me');

    const done = await s.users('resetPassword2', { token, newpassword: 'brand-new-secret' });
    assert.deepEqual(done.body, { result: true });
    await assertNoToken('reset-me', PASSWORD);
    await assertSignedIn(await tokenFor('reset-me', 'brand-new-secret'), 'reset-me');
    await assertSignedOut(session);
    // Single use.
    assertInvalidToken(await s.users('resetPassword2', { token, newpassword: 'yet-another-secret' }));
    await tokenFor('reset-me', 'brand-new-secret');
  });

  test('resetPassword by email address (either policy)', async () => {
    await signup('signupDirect', 'reset-by-mail');
    assert.deepEqual((await s.users('resetPassword', { identity: 'Reset-By-Mail@example.com' })).body, {
      result: true,
    });
    const token = tokenFromMail(await s.lastMail('reset-by-mail@example.com'));
    assert.deepEqual((await s.users('resetPassword2', { token, newpassword: 'brand-new-secret' })).body, {
      result: true,
    });
    await tokenFor('reset-by-mail', 'brand-new-secret');
  });

  test('a reset token expires after resetLifetimeSeconds', async () => {
    await signup('signupDirect', 'reset-late');
    await s.users('resetPassword', { identity: 'reset-late' });
    const token = tokenFromMail(await s.lastMail('reset-late@example.com'));
    advance(LIFETIME.reset + 1);
    assertInvalidToken(await s.users('resetPassword2', { token, newpassword: 'brand-new-secret' }));
    await tokenFor('reset-late', PASSWORD);
  });

  test('a second resetPassword replaces the first token', async () => {
    await signup('signupDirect', 'reset-twice');
    await s.users('resetPassword', { identity: 'reset-twice' });
    const first = tokenFromMail(await s.lastMail('reset-twice@example.com'));
    await s.users('resetPassword', { identity: 'reset-twice' });
    const second = tokenFromMail(await s.lastMail('reset-twice@example.com'));
    assert.notEqual(first, second);
    assertInvalidToken(await s.users('resetPassword2', { token: first, newpassword: 'brand-new-secret' }));
    assert.deepEqual((await s.users('resetPassword2', { token: second, newpassword: 'brand-new-secret' })).body, {
      result: true,
    });
  });

  test('resetPassword2 field rules: a too short new password leaves the token usable', async () => {
    await signup('signupDirect', 'reset-rules');
    await s.users('resetPassword', { identity: 'reset-rules' });
    const token = tokenFromMail(await s.lastMail('reset-rules@example.com'));
    const short = await s.users('resetPassword2', { token, newpassword: 'short' });
    assert.equal(short.status, 200);
    assert.equal(short.body.result, false);
    assert.deepEqual(short.body.invalid, [['newpassword', 'too short']]);
    const missing = await s.users('resetPassword2', {});
    assert.deepEqual(missing.body.invalid, [
      ['token', 'required'],
      ['newpassword', 'required'],
    ]);
    assert.deepEqual((await s.users('resetPassword2', { token, newpassword: 'long-enough-now' })).body, {
      result: true,
    });
    const identity = await s.users('resetPassword', {});
    assert.deepEqual(identity.body.invalid, [['identity', 'required']]);
  });
});

describe('users: email change', () => {
  test('verifyEmail mails a token to the new address; the email changes only with verifyEmail2', async () => {
    await signup('signupDirect', 'mail-verify');
    const token = await tokenFor('mail-verify');
    const res = await s.users('verifyEmail', { email: 'mail-verify-new@example.com' }, { token });
    assert.deepEqual(res.body, { result: true });
    const mail = await s.lastMail('mail-verify-new@example.com');
    assert.equal(mail.kind, 'verify_email');
    assert.ok(mail.text.includes(`${VERIFY_URL}?token=`));
    assert.ok(mail.html.includes(VERIFY_URL));
    assert.deepEqual(await mailsTo('mail-verify@example.com'), []);
    assert.equal((await s.users('profile', {}, { token })).body.email, 'mail-verify@example.com');

    const verifyToken = tokenFromMail(mail);
    assert.deepEqual((await s.users('verifyEmail2', { token: verifyToken })).body, { result: true });
    assert.equal((await s.users('profile', {}, { token })).body.email, 'mail-verify-new@example.com');
    await tokenFor('mail-verify-new@example.com');
    await assertNoToken('mail-verify@example.com');
    // Single use.
    assertInvalidToken(await s.users('verifyEmail2', { token: verifyToken }));
    // The old address is free again.
    await assertReusable('mail-verify-old', 'mail-verify@example.com');
  });

  test('a verification token expires after verifyEmailLifetimeSeconds', async () => {
    await signup('signupDirect', 'mail-late');
    await s.users('verifyEmail', { email: 'mail-late-new@example.com' }, { token: await tokenFor('mail-late') });
    const token = tokenFromMail(await s.lastMail('mail-late-new@example.com'));
    advance(LIFETIME.verify + 1);
    assertInvalidToken(await s.users('verifyEmail2', { token }));
    assert.equal((await getUser('mail-late')).body.email, 'mail-late@example.com');
  });

  test('verifyEmail refuses a taken or invalid address and anonymous callers', async () => {
    await signup('signupDirect', 'mail-taken');
    await signup('signupDirect', 'mail-taker');
    const token = await tokenFor('mail-taker');
    const taken = await s.users('verifyEmail', { email: 'MAIL-TAKEN@example.com' }, { token });
    assert.equal(taken.status, 200);
    assert.deepEqual(taken.body.invalid, [['email', 'exists']]);
    const invalid = await s.users('verifyEmail', { email: 'nope' }, { token });
    assert.deepEqual(invalid.body.invalid, [['email', 'invalid_email']]);
    const anonymous = await s.users('verifyEmail', { email: 'free@example.com' });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await mailsTo('free@example.com'), []);
  });

  test('verifyEmail2 fails when the address was taken in the meantime', async () => {
    await signup('signupDirect', 'mail-race');
    await s.users('verifyEmail', { email: 'mail-race-new@example.com' }, { token: await tokenFor('mail-race') });
    const token = tokenFromMail(await s.lastMail('mail-race-new@example.com'));
    await signup('signupDirect', 'mail-race-new');
    const res = await s.users('verifyEmail2', { token });
    assert.equal(res.body.result, false);
    assert.deepEqual(res.body.invalid, [['email', 'exists']]);
    assert.equal((await getUser('mail-race')).body.email, 'mail-race@example.com');
  });

  test('updateEmail (and updateMail) only when permitted: administrators by default', async () => {
    await signup('signupDirect', 'mail-direct');
    const token = await tokenFor('mail-direct');
    for (const op of ['updateEmail', 'updateMail']) {
      const denied = await s.users(op, { email: 'mail-direct-new@example.com' }, { token });
      assert.equal(denied.status, 403, op);
      const anonymous = await s.users(op, { email: 'mail-direct-new@example.com' });
      assert.equal(anonymous.status, 401, op);
    }
    assert.equal((await getUser('mail-direct')).body.email, 'mail-direct@example.com');

    // An administrator changes the own address at once.
    const adminToken = await admin();
    assert.deepEqual((await s.users('updateEmail', { email: 'admin-new@example.com' }, { token: adminToken })).body, {
      result: true,
    });
    assert.equal((await s.users('profile', {}, { token: adminToken })).body.email, 'admin-new@example.com');

    await grant('updateEmail', ['sys:authenticated']);
    try {
      const res = await s.users('updateEmail', { email: 'mail-direct-new@example.com' }, { token });
      assert.deepEqual(res.body, { result: true });
      assert.equal((await s.users('profile', {}, { token })).body.email, 'mail-direct-new@example.com');
      assert.deepEqual(await mailsTo('mail-direct-new@example.com'), []);
      const alias = await s.users('updateMail', { email: 'Mail-Direct-Alias@example.com' }, { token });
      assert.deepEqual(alias.body, { result: true });
      assert.equal((await s.users('profile', {}, { token })).body.email, 'Mail-Direct-Alias@example.com');
      await tokenFor('mail-direct-alias@example.com');

      const invalid = await s.users('updateEmail', { email: 'not an address' }, { token });
      assert.equal(invalid.status, 200);
      assert.equal(invalid.body.result, false);
      assert.deepEqual(invalid.body.invalid, [['email', 'invalid_email']]);
      const empty = await s.users('updateMail', { email: '' }, { token });
      assert.deepEqual(empty.body.invalid, [['email', 'required']]);
      const taken = await s.users('updateEmail', { email: 'ADMIN-NEW@example.com' }, { token });
      assert.deepEqual(taken.body.invalid, [['email', 'exists']]);
      assert.equal((await s.users('profile', {}, { token })).body.email, 'Mail-Direct-Alias@example.com');
    } finally {
      await grant('updateEmail', ['admins']);
    }
    const again = await s.users('updateEmail', { email: 'mail-direct-3@example.com' }, { token });
    assert.equal(again.status, 403);
  });
});

describe('users: message to the administrator', () => {
  test('message is mailed to the administrator address with the sender', async () => {
    await signup('signupDirect', 'msg-sender');
    const token = await tokenFor('msg-sender');
    const text = 'Hello admin, <b>please</b> look at my account.';
    const res = await s.users('message', { message: text }, { token });
    assert.deepEqual(res.body, { result: true });
    const mail = await s.lastMail(ADMIN_ADDRESS);
    assert.equal(mail.kind, 'message');
    assert.ok(mail.subject.includes('msg-sender'));
    assert.ok(mail.text.includes(text));
    assert.ok(mail.text.includes('msg-sender@example.com'));
    // The HTML part escapes what the user wrote.
    assert.ok(mail.html.includes('&lt;b&gt;please&lt;/b&gt;'));
    assert.ok(!mail.html.includes('<b>please</b>'));
  });

  test('message: at most 5000 characters, not empty, signed in only', async () => {
    await signup('signupDirect', 'msg-limits');
    const token = await tokenFor('msg-limits');
    const before = (await mailsTo(ADMIN_ADDRESS)).length;
    const long = await s.users('message', { message: 'x'.repeat(5001) }, { token });
    assert.equal(long.status, 200);
    assert.equal(long.body.result, false);
    assert.deepEqual(long.body.invalid, [['message', 'too long']]);
    const empty = await s.users('message', { message: '' }, { token });
    assert.deepEqual(empty.body.invalid, [['message', 'required']]);
    const anonymous = await s.users('message', { message: 'hi' });
    assert.equal(anonymous.status, 401);
    assert.equal((await mailsTo(ADMIN_ADDRESS)).length, before);
    const max = await s.users('message', { message: 'y'.repeat(5000) }, { token });
    assert.deepEqual(max.body, { result: true });
    assert.ok((await s.lastMail(ADMIN_ADDRESS)).text.includes('y'.repeat(5000)));
  });

  test('message without an administrator address goes to the active administrators; 503 when none', async () => {
    const t = await startServer();
    try {
      const token = await t.createUser('lonely');
      const res = await t.users('message', { message: 'anyone?' }, { token });
      assert.equal(res.status, 503);
      assert.equal(res.body.result, false);
      assert.equal(res.body.code, 'no_admin_address');
      assert.deepEqual(await t.outbox(), []);

      await t.createUser('boss', { groups: ['admins'] });
      await t.createUser('deputy', { groups: ['editors', 'admins'] });
      await t.createUser('gone', { groups: ['admins'] });
      await t.createUser('adminsish', { groups: ['admins2'] });
      assert.equal(
        (await t.users('setUser', { identity: 'gone', values: { active: false } }, { token: await t.adminToken() }))
          .body.result,
        true,
      );
      const sent = await t.users('message', { message: 'hello admins' }, { token });
      assert.deepEqual(sent.body, { result: true });
      const to = (await t.outbox())
        .filter((m) => m.text.includes('hello admins'))
        .map((m) => m.to)
        .sort();
      assert.deepEqual(
        to,
        ['admin@example.com', 'boss@example.com', 'deputy@example.com'],
        'every active member of admins, nobody else',
      );
    } finally {
      await t.close();
    }
  });
});
