import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer,
  useServer,
  tokenFromMail,
  PASSWORD,
  type CallResult,
  type TestServer,
} from '../helpers/test-server.js';
import { programCaller } from '../../src/users/index.js';

/**
 * The five sign-up policies over HTTP: refused until granted, then the state they leave, the
 * mails they send, and the failure body of every field rule (issue 8; seed "States and
 * transitions"; reference §2).
 */

const ACTIVATION_URL = 'https://app.example.com/activate';
const ADMIN_ADDRESS = 'admin-box@example.com';
const POLICIES = ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'] as const;

/** A request body each policy accepts. */
function bodyFor(policy: string, n: string): Record<string, unknown> {
  if (policy === 'signupSendpw') return { name: n, email: `${n}@example.com` };
  if (policy === 'signupUid') return { email: `${n}@example.com`, password: PASSWORD };
  return { name: n, email: `${n}@example.com`, password: PASSWORD };
}

/** Assert the seed's failure body on HTTP 200 with exactly these field pairs. */
function assertFieldFailure(res: CallResult, pairs: [string, string][]): void {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result, false);
  assert.deepEqual(res.body.invalid, pairs);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0);
  assert.ok(Array.isArray(res.body.messages));
  assert.equal(res.body.messages[0], res.body.message);
  assert.deepEqual(res.body.messages.slice(1), pairs);
}

async function getUser(s: TestServer, identity: string): Promise<CallResult> {
  return s.users('getUser', { identity }, { token: await s.adminToken() });
}

describe('users: sign-up policies', () => {
  let member: string;
  const s = useServer({ users: { activationUrl: ACTIVATION_URL }, mail: { adminAddress: ADMIN_ADDRESS } });
  before(async () => {
    member = await s.createUser('member');
    await s.adminToken();
  });

  for (const policy of POLICIES) {
    test(`${policy}: refused with 403 (anonymous or signed in) until its permission is granted`, async () => {
      const n = `${policy.toLowerCase()}-gate`;
      // Signing in cannot help while nobody holds the permission, so even anonymous callers get 403.
      const anonymous = await s.users(policy, bodyFor(policy, n));
      assert.equal(anonymous.status, 403);
      assert.equal(anonymous.body.result, false);
      assert.equal(anonymous.body.code, 'not_allowed');
      const signedIn = await s.users(policy, bodyFor(policy, n), { token: member });
      assert.equal(signedIn.status, 403);
      assert.equal(signedIn.body.result, false);
      assert.equal(signedIn.body.code, 'not_allowed');
      // Nothing was created by the refused calls.
      const listed = await s.users('list', { search: n }, { token: await s.adminToken() });
      assert.equal(listed.body.users.length, 0);

      const allowedBefore = await s.users('allowed', { permission: policy });
      assert.equal(allowedBefore.body[policy], false);
      await s.grant(policy, ['sys:everyone']);
      const allowedAfter = await s.users('allowed', { permission: policy });
      assert.equal(allowedAfter.body[policy], true);

      const ok = await s.users(policy, bodyFor(policy, n));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(ok.body.result, true);
      // A signed-in caller may use it too once everyone holds it.
      const n2 = `${n}2`;
      const ok2 = await s.users(policy, bodyFor(policy, n2), { token: member });
      assert.equal(ok2.body.result, true, JSON.stringify(ok2.body));

      // Revoking the permission turns the policy off again.
      await s.grant(policy, ['sys:noone']);
      const off = await s.users(policy, bodyFor(policy, `${n}3`));
      assert.equal(off.status, 403);
      await s.grant(policy, ['sys:everyone']);
    });
  }

  test('a policy granted to one group only: members may, others get 403', async () => {
    await s.grant('signupDirect', ['inviters']);
    const inviter = await s.createUser('inviter', { groups: ['inviters'] });
    const refused = await s.users('signupDirect', bodyFor('signupDirect', 'invitee-a'), { token: member });
    assert.equal(refused.status, 403);
    const ok = await s.users('signupDirect', bodyFor('signupDirect', 'invitee-b'), { token: inviter });
    assert.equal(ok.body.result, true);
    await s.grant('signupDirect', ['sys:everyone']);
  });

  test('signupDirect: active at once, no mail, the password works for token', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const res = await s.users('signupDirect', {
      name: 'direct1',
      email: 'direct1@example.com',
      password: PASSWORD,
      realname: 'Dee Rect',
    });
    assert.deepEqual(res.body, { result: true });
    const user = await getUser(s, 'direct1');
    assert.equal(user.body.active, true);
    assert.equal(user.body.pending, false);
    assert.equal(user.body.state, 'active');
    assert.equal(user.body.email, 'direct1@example.com');
    assert.equal(user.body.realname, 'Dee Rect');
    assert.equal((await s.outbox()).filter((m) => m.to === 'direct1@example.com').length, 0);
    const token = await s.users('token', { identity: 'direct1', password: PASSWORD });
    assert.equal(typeof token.body.token, 'string');
    const byEmail = await s.users('token', { identity: 'DIRECT1@example.com', password: PASSWORD });
    assert.equal(typeof byEmail.body.token, 'string');
  });

  test('signupOptin: pending, activation mail with a link to the configured page, activate: active', async () => {
    await s.grant('signupOptin', ['sys:everyone']);
    const res = await s.users('signupOptin', { name: 'optin1', email: 'optin1@example.com', password: PASSWORD });
    assert.deepEqual(res.body, { result: true });
    const user = await getUser(s, 'optin1');
    assert.equal(user.body.state, 'pending');
    assert.equal(user.body.pending, true);
    assert.equal(user.body.active, false);

    const mail = await s.lastMail('optin1@example.com');
    assert.equal(mail.kind, 'activation');
    assert.ok(mail.subject.length > 0);
    const token = tokenFromMail(mail);
    assert.ok(token.length >= 20);
    assert.ok(mail.text.includes(`${ACTIVATION_URL}?token=${encodeURIComponent(token)}`), mail.text);
    assert.ok(mail.html.includes(`href="${ACTIVATION_URL}?token=${encodeURIComponent(token)}"`), mail.html);

    const early = await s.users('token', { identity: 'optin1', password: PASSWORD });
    assert.equal(early.status, 401);
    const activated = await s.users('activate', { token });
    assert.equal(activated.body.result, true);
    assert.equal((await getUser(s, 'optin1')).body.state, 'active');
    const late = await s.users('token', { identity: 'optin1', password: PASSWORD });
    assert.equal(typeof late.body.token, 'string');
  });

  test('signupOptin without a configured activation page links to Roost under publicUrl', async () => {
    const t = await startServer({ publicUrl: 'https://roost.example.org' });
    try {
      await t.grant('signupOptin', ['sys:everyone']);
      await t.users('signupOptin', { name: 'optin2', email: 'optin2@example.com', password: PASSWORD });
      const mail = await t.lastMail('optin2@example.com');
      assert.match(mail.text, /https:\/\/roost\.example\.org\/users\/activate\?token=/);
    } finally {
      await t.close();
    }
  });

  test('signupReview: pending, notification to the administrator address, nothing to the user', async () => {
    await s.grant('signupReview', ['sys:everyone']);
    const res = await s.users('signupReview', {
      name: 'review1',
      email: 'review1@example.com',
      password: PASSWORD,
      realname: 'Rev Iew',
    });
    assert.deepEqual(res.body, { result: true });
    const user = await getUser(s, 'review1');
    assert.equal(user.body.state, 'pending');
    assert.equal(user.body.active, false);
    const notice = await s.lastMail(ADMIN_ADDRESS);
    assert.equal(notice.kind, 'signup_notification');
    assert.ok(notice.text.includes('review1'));
    assert.ok(notice.text.includes('review1@example.com'));
    assert.ok(notice.html.includes('review1'));
    assert.equal((await s.outbox()).filter((m) => m.to === 'review1@example.com').length, 0);
    const token = await s.users('token', { identity: 'review1', password: PASSWORD });
    assert.equal(token.status, 401);
  });

  test('signupReview without an administrator address sends no mail at all', async () => {
    const t = await startServer();
    try {
      await t.grant('signupReview', ['sys:everyone']);
      const res = await t.users('signupReview', { name: 'review2', email: 'review2@example.com', password: PASSWORD });
      assert.equal(res.body.result, true);
      assert.deepEqual(await t.outbox(), []);
    } finally {
      await t.close();
    }
  });

  test('signupSendpw: active, the generated password is mailed and works for token', async () => {
    await s.grant('signupSendpw', ['sys:everyone']);
    const res = await s.users('signupSendpw', { name: 'sendpw1', email: 'sendpw1@example.com' });
    assert.deepEqual(res.body, { result: true });
    assert.equal((await getUser(s, 'sendpw1')).body.state, 'active');
    const mail = await s.lastMail('sendpw1@example.com');
    assert.equal(mail.kind, 'password');
    const match = /password: (\S+)/.exec(mail.text);
    assert.ok(match?.[1], mail.text);
    const password = match[1];
    assert.ok(password.length >= 8);
    assert.ok(mail.html.includes(password));
    assert.match(mail.text, /Sign in with the name sendpw1 and this password/);
    const token = await s.users('token', { identity: 'sendpw1', password });
    assert.equal(token.status, 200);
    assert.equal(typeof token.body.token, 'string');
    // A password sent along is not taken: only the generated one opens the account.
    await s.users('signupSendpw', { name: 'sendpw2', email: 'sendpw2@example.com', password: PASSWORD });
    const chosen = await s.users('token', { identity: 'sendpw2', password: PASSWORD });
    assert.equal(chosen.status, 401);
  });

  test('signupSendpw generates a different password each time', async () => {
    await s.grant('signupSendpw', ['sys:everyone']);
    await s.users('signupSendpw', { name: 'sendpw3', email: 'sendpw3@example.com' });
    await s.users('signupSendpw', { name: 'sendpw4', email: 'sendpw4@example.com' });
    const p3 = /password: (\S+)/.exec((await s.lastMail('sendpw3@example.com')).text)?.[1];
    const p4 = /password: (\S+)/.exec((await s.lastMail('sendpw4@example.com')).text)?.[1];
    assert.ok(p3 && p4);
    assert.notEqual(p3, p4);
  });

  test('signupSendpw under the email identity policy: the mail names the email to sign in with', async () => {
    const t = await startServer({ users: { identityPolicy: 'email' } });
    try {
      await t.roost.users.createUser(programCaller('test'), {
        name: 'admin',
        email: 'admin@example.com',
        password: PASSWORD,
        realname: '',
        data: '',
        notify: false,
        groups: ['admins'],
        state: 'active',
        pending: null,
      });
      const adminToken = (await t.users('token', { identity: 'admin@example.com', password: PASSWORD })).body.token;
      const granted = await t.users(
        'setPermissions',
        { permissions: [{ permission: 'signupSendpw', groups: ['sys:everyone'], action: 'replace' }] },
        { token: adminToken },
      );
      assert.equal(granted.body.result, true);
      assert.deepEqual((await t.users('signupSendpw', { name: 'bymail', email: 'bymail@example.com' })).body, {
        result: true,
      });
      const mail = await t.lastMail('bymail@example.com');
      assert.match(mail.text, /Sign in with the email bymail@example\.com and this password: \S+/);
      const password = /password: (\S+)/.exec(mail.text)![1]!;
      assert.equal(typeof (await t.users('token', { identity: 'bymail@example.com', password })).body.token, 'string');
      assert.equal((await t.users('token', { identity: 'bymail', password })).status, 401);
    } finally {
      await t.close();
    }
  });

  test('signupUid: active, a random 30-character name returned as `name`', async () => {
    await s.grant('signupUid', ['sys:everyone']);
    const a = await s.users('signupUid', { email: 'uid1@example.com', password: PASSWORD });
    assert.equal(a.body.result, true);
    assert.equal(typeof a.body.name, 'string');
    assert.equal(a.body.name.length, 30);
    assert.equal(Buffer.byteLength(a.body.name), 30);
    assert.match(a.body.name, /^[a-z0-9]{30}$/);
    const b = await s.users('signupUid', { email: 'uid2@example.com', password: PASSWORD });
    assert.notEqual(a.body.name, b.body.name);
    const user = await getUser(s, a.body.name);
    assert.equal(user.body.state, 'active');
    assert.equal(user.body.email, 'uid1@example.com');
    const token = await s.users('token', { identity: a.body.name, password: PASSWORD });
    assert.equal(typeof token.body.token, 'string');
    const identity = await s.users('identity', {}, { token: token.body.token });
    assert.equal(identity.body.name, a.body.name);
  });

  test('signupUid needs an email unless the identity policy is name', async () => {
    await s.grant('signupUid', ['sys:everyone']);
    const res = await s.users('signupUid', { password: PASSWORD });
    assertFieldFailure(res, [['email', 'required']]);
    const missingPassword = await s.users('signupUid', { email: 'uid3@example.com' });
    assertFieldFailure(missingPassword, [['password', 'required']]);

    const byEmail = await startServer({ users: { identityPolicy: 'email' } });
    try {
      // The helper's admin signs in by name; under the email policy it signs in by email.
      await byEmail.roost.users.createUser(programCaller('test'), {
        name: 'admin',
        email: 'admin@example.com',
        password: PASSWORD,
        realname: '',
        data: '',
        notify: false,
        groups: ['admins'],
        state: 'active',
        pending: null,
      });
      const adminToken = (await byEmail.users('token', { identity: 'admin@example.com', password: PASSWORD })).body
        .token;
      const granted = await byEmail.users(
        'setPermissions',
        { permissions: [{ permission: 'signupUid', groups: ['sys:everyone'], action: 'replace' }] },
        { token: adminToken },
      );
      assert.equal(granted.body.result, true);
      assertFieldFailure(await byEmail.users('signupUid', { password: PASSWORD }), [['email', 'required']]);
    } finally {
      await byEmail.close();
    }

    const byName = await startServer({ users: { identityPolicy: 'name' } });
    try {
      await byName.grant('signupUid', ['sys:everyone']);
      const ok = await byName.users('signupUid', { password: PASSWORD });
      assert.equal(ok.body.result, true, JSON.stringify(ok.body));
      assert.match(ok.body.name, /^[a-z0-9]{30}$/);
      const token = await byName.users('token', { identity: ok.body.name, password: PASSWORD });
      const profile = await byName.users('profile', {}, { token: token.body.token });
      assert.equal(profile.body.name, ok.body.name);
      assert.equal(profile.body.email, '');
      // Two accounts without email do not collide on the empty address.
      const second = await byName.users('signupUid', { password: PASSWORD });
      assert.equal(second.body.result, true, JSON.stringify(second.body));
    } finally {
      await byName.close();
    }
  });

  test('exists: a taken name or email, compared without case, for every policy', async () => {
    for (const policy of POLICIES) await s.grant(policy, ['sys:everyone']);
    await s.users('signupDirect', { name: 'Taken', email: 'Taken@Example.com', password: PASSWORD });
    for (const policy of ['signupDirect', 'signupOptin', 'signupReview'] as const) {
      assertFieldFailure(await s.users(policy, { name: 'taken', email: 'fresh@example.com', password: PASSWORD }), [
        ['name', 'exists'],
      ]);
      assertFieldFailure(await s.users(policy, { name: 'fresh', email: 'taken@example.COM', password: PASSWORD }), [
        ['email', 'exists'],
      ]);
      assertFieldFailure(await s.users(policy, { name: 'TAKEN', email: 'TAKEN@example.com', password: PASSWORD }), [
        ['name', 'exists'],
        ['email', 'exists'],
      ]);
    }
    assertFieldFailure(await s.users('signupSendpw', { name: 'tAkEn', email: 'fresh@example.com' }), [
      ['name', 'exists'],
    ]);
    assertFieldFailure(await s.users('signupUid', { email: 'taken@EXAMPLE.com', password: PASSWORD }), [
      ['email', 'exists'],
    ]);
    // None of the refused sign-ups left an account behind.
    assert.equal((await getUser(s, 'fresh')).status, 404);
    assert.equal((await getUser(s, 'fresh@example.com')).status, 404);
  });

  test('a name and an email of pending accounts are taken as well', async () => {
    await s.grant('signupReview', ['sys:everyone']);
    await s.users('signupReview', { name: 'waiting', email: 'waiting@example.com', password: PASSWORD });
    assertFieldFailure(
      await s.users('signupDirect', { name: 'Waiting', email: 'other-w@example.com', password: PASSWORD }),
      [['name', 'exists']],
    );
    assertFieldFailure(
      await s.users('signupDirect', { name: 'other-w', email: 'WAITING@example.com', password: PASSWORD }),
      [['email', 'exists']],
    );
  });

  describe('failure body of each field rule (HTTP 200, result false, messages, invalid, message)', () => {
    const ok = { name: 'rules-ok', email: 'rules@example.com', password: PASSWORD };
    const cases: { label: string; policy?: string; body: Record<string, unknown>; pairs: [string, string][] }[] = [
      {
        label: 'everything missing',
        body: {},
        pairs: [
          ['name', 'required'],
          ['email', 'required'],
          ['password', 'required'],
        ],
      },
      { label: 'name missing', body: { ...ok, name: undefined }, pairs: [['name', 'required']] },
      { label: 'name empty', body: { ...ok, name: '' }, pairs: [['name', 'required']] },
      { label: 'name blank', body: { ...ok, name: '   ' }, pairs: [['name', 'required']] },
      { label: 'name null', body: { ...ok, name: null }, pairs: [['name', 'required']] },
      { label: 'name too short', body: { ...ok, name: 'ab' }, pairs: [['name', 'too short']] },
      { label: 'name too long', body: { ...ok, name: 'n'.repeat(41) }, pairs: [['name', 'too long']] },
      { label: 'name with a space', body: { ...ok, name: 'bad name' }, pairs: [['name', 'invalid']] },
      { label: 'name with an @', body: { ...ok, name: 'me@there' }, pairs: [['name', 'invalid']] },
      { label: 'name with a slash', body: { ...ok, name: 'a/b/c' }, pairs: [['name', 'invalid']] },
      { label: 'name not a string', body: { ...ok, name: 12345 }, pairs: [['name', 'invalid']] },
      { label: 'email missing', body: { ...ok, email: undefined }, pairs: [['email', 'required']] },
      { label: 'email invalid', body: { ...ok, email: 'not-an-address' }, pairs: [['email', 'invalid_email']] },
      { label: 'email without domain', body: { ...ok, email: 'someone@' }, pairs: [['email', 'invalid_email']] },
      {
        label: 'email too long',
        body: { ...ok, email: `${'e'.repeat(250)}@example.com` },
        pairs: [['email', 'too long']],
      },
      { label: 'password missing', body: { ...ok, password: undefined }, pairs: [['password', 'required']] },
      { label: 'password too short', body: { ...ok, password: 'short' }, pairs: [['password', 'too short']] },
      { label: 'password too long', body: { ...ok, password: 'p'.repeat(257) }, pairs: [['password', 'too long']] },
      { label: 'data too long', body: { ...ok, data: 'd'.repeat(10_001) }, pairs: [['data', 'too long']] },
      {
        label: 'two fields at once',
        body: { ...ok, name: 'x', email: 'nope' },
        pairs: [
          ['name', 'too short'],
          ['email', 'invalid_email'],
        ],
      },
      {
        label: 'sendpw: name missing',
        policy: 'signupSendpw',
        body: { email: 'rules@example.com' },
        pairs: [['name', 'required']],
      },
      {
        label: 'sendpw: email invalid',
        policy: 'signupSendpw',
        body: { name: 'rules-ok', email: 'x' },
        pairs: [['email', 'invalid_email']],
      },
      {
        label: 'uid: password too short',
        policy: 'signupUid',
        body: { email: 'rules@example.com', password: 'abc' },
        pairs: [['password', 'too short']],
      },
      {
        label: 'uid: email invalid',
        policy: 'signupUid',
        body: { email: 'x', password: PASSWORD },
        pairs: [['email', 'invalid_email']],
      },
    ];
    for (const c of cases) {
      const policies = c.policy ? [c.policy] : ['signupDirect', 'signupOptin', 'signupReview'];
      test(c.label, async () => {
        for (const policy of POLICIES) await s.grant(policy, ['sys:everyone']);
        for (const policy of policies) {
          const res = await s.users(policy, c.body);
          assertFieldFailure(res, c.pairs);
          assert.equal(res.body.code, 'validation_failure');
        }
        // No account was created.
        const listed = await s.users('list', { search: 'rules' }, { token: await s.adminToken() });
        assert.equal(listed.body.users.length, 0);
      });
    }

    test('a form-encoded body fails the same way', async () => {
      await s.grant('signupDirect', ['sys:everyone']);
      const res = await s.request('/users/api/signupDirect', undefined, {
        method: 'POST',
        raw: 'name=ab&email=nope&password=a-good-password',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assertFieldFailure(res, [
        ['name', 'too short'],
        ['email', 'invalid_email'],
      ]);
    });

    test('the limits follow configuration (nameMinLength, passwordMinLength, dataMaxLength)', async () => {
      const t = await startServer({ users: { nameMinLength: 6, passwordMinLength: 12, dataMaxLength: 5 } });
      try {
        await t.grant('signupDirect', ['sys:everyone']);
        assertFieldFailure(
          await t.users('signupDirect', { name: 'abcde', email: 'a@example.com', password: 'abcdefghijk' }),
          [
            ['name', 'too short'],
            ['password', 'too short'],
          ],
        );
        assertFieldFailure(
          await t.users('signupDirect', {
            name: 'abcdef',
            email: 'a@example.com',
            password: 'abcdefghijkl',
            data: { a: 1 },
          }),
          [['data', 'too long']],
        );
        const ok = await t.users('signupDirect', {
          name: 'abcdef',
          email: 'a@example.com',
          password: 'abcdefghijkl',
          data: 'tiny',
        });
        assert.equal(ok.body.result, true);
      } finally {
        await t.close();
      }
    });
  });
});
