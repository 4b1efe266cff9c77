import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PASSWORD, useServer } from '../helpers/test-server.js';
import { operationsOf } from './support/operations.js';
import { checkOperation, describeStats, PropertyWorld, PROPERTY_RUNS, PROPERTY_SEED } from './support/property-run.js';
import { SIGNIN_COUNTERS } from './support/snapshot.js';
import { FAKE_WEBAUTHN } from './support/access-table.js';

type Template = (w: PropertyWorld) => Record<string, unknown>;

const newAccount = (name: string) => () => ({
  name,
  email: `${name}@example.com`,
  password: PASSWORD,
  realname: 'New',
  notify: true,
  data: '{"a":1}',
});
const someToken = () => ({ token: 'T'.repeat(43) });

/** Valid values of each user operation, for the fixture user (sign-up policies are open here). */
const TEMPLATES: Record<string, Template> = {
  ping: () => ({}),
  challenge: () => ({}),
  token: (w) => ({ identity: w.userName, password: PASSWORD }),
  signin: (w) => ({ identity: w.userName, password: PASSWORD }),
  signout: () => ({}),
  identity: () => ({}),
  name: () => ({}),
  profile: () => ({}),
  authenticated: () => ({ groups: ['admins', 'editors'] }),
  allowed: () => ({ permission: ['profile', 'signupDirect'] }),
  signupDirect: newAccount('direct'),
  signupOptin: newAccount('optin'),
  signupReview: newAccount('review'),
  signupSendpw: () => ({ name: 'sendpw', email: 'sendpw@example.com' }),
  signupUid: () => ({ password: PASSWORD, email: 'uid@example.com' }),
  activate: someToken,
  update: () => ({ realname: 'Property', notify: true, data: { theme: 'dark' } }),
  updatePassword: () => ({ password: PASSWORD, newpassword: PASSWORD }),
  updateEmail: (w) => ({ email: `${w.userName}@example.org` }),
  updateMail: (w) => ({ email: `${w.userName}@example.net` }),
  verifyEmail: (w) => ({ email: `${w.userName}@example.com` }),
  verifyEmail2: someToken,
  resetPassword: (w) => ({ identity: w.userName }),
  resetPassword2: () => ({ ...someToken(), newpassword: 'a-new-password' }),
  message: () => ({ message: 'Hello administrator' }),
  disable: () => ({}),
  delete: () => ({}),
  review: () => ({ identity: 'review', action: 'accept' }),
  getUser: (w) => ({ identity: w.userName }),
  setUser: (w) => ({ identity: w.userName, values: { realname: 'Set', notify: false } }),
  removeUser: () => ({ identity: 'nobody-here' }),
  list: () => ({ search: 'prop', active: true, start: 1, size: 5, sort: 'name', order: '<' }),
  identities: () => ({ search: 'prop', start: 2, size: 5, sort: 'email', order: '>' }),
  getPermissions: () => ({}),
  setPermissions: () => ({ permissions: [{ permission: 'ping', groups: ['sys:everyone'], action: 'replace' }] }),
  token2: () => ({ challenge: 'C'.repeat(43), code: '123456' }),
  signinMail: (w) => ({ identity: w.userName }),
  signinMail2: (w) => ({ identity: w.userName, code: '123456' }),
  signin2: () => ({ challenge: 'C'.repeat(43), recoveryCode: 'abcde-fghij' }),
  passkeyOptions: () => ({ password: PASSWORD }),
  passkeyRegister: () => ({ response: FAKE_WEBAUTHN, name: 'laptop' }),
  passkeys: () => ({}),
  renamePasskey: () => ({ id: 'P'.repeat(20), name: 'phone' }),
  removePasskey: () => ({ id: 'P'.repeat(20), password: PASSWORD }),
  passkeySigninOptions: () => ({}),
  passkeyToken: () => ({ response: FAKE_WEBAUTHN }),
  passkeySignin: () => ({ response: FAKE_WEBAUTHN }),
  signinAnonymous: () => ({}),
  upgradeAnonymous: () => ({ name: 'upgraded', password: PASSWORD, email: 'upgraded@example.com' }),
  signinIdToken: () => ({ provider: 'corp', idToken: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', nonce: 'n'.repeat(22) }),
  smsAdd: () => ({ phone: '+491701234567', password: PASSWORD }),
  smsConfirm: () => ({ code: '123456' }),
  smsRemove: () => ({ password: PASSWORD }),
  smsPhone: () => ({}),
  smsSignin: () => ({ phone: '+491701234567' }),
  smsSignin2: () => ({ phone: '+491701234567', code: '123456' }),
  smsChallenge: () => ({ challenge: 'C'.repeat(43) }),
  providers: () => ({}),
  signinProvider2: () => ({ grant: 'G'.repeat(43) }),
  providerLinks: () => ({}),
  unlinkProvider: () => ({ provider: 'corp', password: PASSWORD }),
  secondFactor: () => ({}),
  totpEnrol: () => ({}),
  totpConfirm: () => ({ code: '123456', password: PASSWORD }),
  totpRemove: () => ({ password: PASSWORD }),
  recoveryCodes: () => ({ code: '123456' }),
  sessions: () => ({}),
  revokeSession: () => ({ session: 'S'.repeat(16) }),
  revokeOtherSessions: () => ({}),
  userFactors: (w) => ({ identity: w.userName }),
  resetSecondFactor: (w) => ({ identity: w.userName }),
  userSessions: (w) => ({ identity: w.userName }),
  revokeUserSessions: () => ({ identity: 'nobody-here', session: 'S'.repeat(16) }),
};

describe(`property: user operations, hostile input (seed ${PROPERTY_SEED}, ${PROPERTY_RUNS} runs each)`, () => {
  let world: PropertyWorld;
  const s = useServer({
    mail: { adminAddress: 'admin@example.com' },
    // Texts go to a port that refuses them: the codes by SMS are reached, their texts tried once.
    users: {
      lockoutThreshold: 1000,
      sms: { sender: { url: 'http://127.0.0.1:9/sms', timeoutSeconds: 1, maxAttempts: 1 } },
    },
  });
  before(async () => {
    // Sign-up policies open, so their validation and storage are reached too.
    for (const op of ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'])
      await s.grant(op, ['sys:everyone']);
    world = new PropertyWorld(s, async () => {}, [(op) => `/users/api/${op}`]);
    await world.setUp();
  });

  test('every operation of the route table has a property case', () => {
    const ops = operationsOf(s.roost)
      .filter((o) => o.service === 'users')
      .map((o) => o.op);
    assert.deepEqual(
      ops.filter((op) => !TEMPLATES[op]),
      [],
    );
  });

  for (const [op, template] of Object.entries(TEMPLATES)) {
    test(`${op}: answers below 500 with the failure body, and a refusal stores nothing`, async (t) => {
      const info = operationsOf(s.roost).find((o) => o.service === 'users' && o.op === op);
      assert.ok(info, `${op} is not in the route table any more`);
      // Sign-ins count refusals; texts are counted before they are made, refused or not (sms-codes.ts).
      const counted = ['token', 'signin', 'token2', 'signin2', 'signinMail2', 'smsAdd', 'smsSignin', 'smsSignin2'];
      const ignore = counted.includes(op) ? SIGNIN_COUNTERS : {};
      const stats = await checkOperation(world, {
        info,
        path: () => fc.constant(`/users/api/${op}`),
        template,
        ignore,
      });
      t.diagnostic(describeStats(stats));
    });
  }
});
