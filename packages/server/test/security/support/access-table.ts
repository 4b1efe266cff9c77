import assert from 'node:assert/strict';
import { addAccount, PASSWORD, type CallResult, type TestServer } from '../../helpers/test-server.js';
import { DOWNLOAD, type Service } from './operations.js';
import { SIGNIN_COUNTERS, type IgnoredColumns } from './snapshot.js';

/**
 * The access-control table: for every operation of every service, a valid call and the answer
 * each kind of caller must get on default permissions (used by the access matrix, and by the
 * CSRF tests to find a caller for whom a write succeeds).
 *
 * Live callers: anonymous, a signed-in user, an administrator; for the stores the signed-in
 * user is either the owner of the item or file at hand or another user. (In the user service
 * the signed-in user acts on the own account; "another user" is what the administrator
 * operations name.) Dead callers carry a token that must count for nothing: the user was
 * disabled, signed out (revoked), the token expired (the test clock moved past its lifetime),
 * or the account was removed.
 */

export type Live = 'anonymous' | 'user' | 'owner' | 'other' | 'admin';
export const DEAD = ['disabled', 'revoked', 'expired', 'removed'] as const;
export type Dead = (typeof DEAD)[number];

/** An expected status, or status and `result` (or `code`) where the status alone says too little. */
export type Expect = number | { status: number; result?: unknown; code?: string };

export interface Cell {
  /** Path and values of the call, once its target exists. */
  path: string;
  values?: Record<string, unknown>;
  method?: 'GET' | 'POST';
}

export interface Row {
  expect: Partial<Record<Live, Expect>>;
  /** Make the call (creating what it acts on first: an item, a file, a pending account). */
  prepare(m: Matrix, caller: Live | Dead): Promise<Cell>;
  /** A success uses the caller up (signs it out, disables or deletes it): a new one is made. */
  consumes?: boolean;
  /** A refusal is a failed sign-in, and counted as one (signin-throttle.ts): columns it may change. */
  counts?: IgnoredColumns;
}

export const TOKEN_LIFETIME_SECONDS = 3600;
const START = Date.UTC(2026, 10, 1);

export class Matrix {
  now = START;
  readonly tokens = new Map<Live | Dead, string | null>();
  readonly names = new Map<Live | Dead, string>();
  #n = 0;
  s!: TestServer;

  unique(prefix: string): string {
    return `${prefix}-${++this.#n}`;
  }

  async account(name: string, groups: string[] = []): Promise<string> {
    await addAccount(this.s.roost, name, { groups });
    const res = await this.s.users('token', { identity: name, password: PASSWORD });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.token as string;
  }

  async renew(kind: Live): Promise<void> {
    if (kind === 'anonymous') {
      this.tokens.set(kind, null);
      return;
    }
    const name = this.unique(kind);
    this.names.set(kind, name);
    this.tokens.set(kind, await this.account(name, kind === 'admin' ? ['admins'] : []));
  }

  async setUp(s: TestServer): Promise<void> {
    this.s = s;
    // The expired token is issued first; then the clock passes its lifetime, and every other
    // token is issued after that.
    this.names.set('expired', 'dead-expired');
    this.tokens.set('expired', await this.account('dead-expired'));
    this.now += (TOKEN_LIFETIME_SECONDS + 60) * 1000;
    for (const kind of ['anonymous', 'user', 'owner', 'other', 'admin'] as const) await this.renew(kind);
    const admin = this.tokens.get('admin') as string;
    for (const kind of ['disabled', 'revoked', 'removed'] as const) {
      this.names.set(kind, `dead-${kind}`);
      this.tokens.set(kind, await this.account(`dead-${kind}`));
    }
    assert.equal(
      (await s.users('setUser', { identity: 'dead-disabled', values: { active: false } }, { token: admin })).status,
      200,
    );
    assert.equal((await s.users('signout', {}, { token: this.tokens.get('revoked') as string })).status, 200);
    assert.equal((await s.users('removeUser', { identity: 'dead-removed' }, { token: admin })).status, 200);
  }

  token(kind: Live | Dead): string | undefined {
    return this.tokens.get(kind) ?? undefined;
  }

  name(kind: Live | Dead): string {
    return this.names.get(kind) ?? '';
  }

  /** An item of the data store owned by the owner. */
  async item(): Promise<string> {
    const key = this.unique('item');
    const res = await this.s.request('/data/api/newItem', { key, value: 'v' }, { token: this.token('owner') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return key;
  }

  /** A file of the file store owned by the owner. */
  async file(): Promise<string> {
    const name = this.unique('file');
    const res = await this.s.request('/files/@newItem', { name, contents: 'contents' }, { token: this.token('owner') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return name;
  }
}

const all = (e: Expect): Row['expect'] => ({ anonymous: e, user: e, owner: e, other: e, admin: e });
/** Open to any signed-in user. */
const signedIn = (ok: Expect = 200): Row['expect'] => ({ anonymous: 401, user: ok, owner: ok, other: ok, admin: ok });
/** Administrators only. */
const adminOnly: Row['expect'] = { anonymous: 401, user: 403, owner: 403, other: 403, admin: 200 };
/** The owner of the item or file and administrators; another user may read it, so 403. */
const ownerOrAdmin: Row['expect'] = { anonymous: 401, owner: 200, other: 403, admin: 200 };

const invalidToken = { status: 200, result: false, code: 'invalid_token' };
/** A WebAuthn answer in the right shape with nothing true in it. */
export const FAKE_WEBAUTHN = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30', attestationObject: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
  clientExtensionResults: {},
};
const noPolicy = all(403);
const newAccount = (m: Matrix) => {
  const name = m.unique('signup');
  return { name, email: `${name}@example.com`, password: PASSWORD };
};

/** A TOTP secret being set up for the caller (when it has a live token), so there is one to confirm or remove. */
async function enrolling(m: Matrix, caller: Live | Dead): Promise<void> {
  const token = m.token(caller);
  if (token) await m.s.users('totpEnrol', {}, { token });
}

const USERS: Record<string, Row> = {
  ping: { expect: all(200), prepare: async () => ({ path: '/users/api/ping' }) },
  challenge: { expect: all(200), prepare: async () => ({ path: '/users/api/challenge' }) },
  token: {
    expect: all({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/token', values: { identity: 'credentials', password: PASSWORD } }),
  },
  signin: {
    expect: all({ status: 200, result: true }),
    // With the caller's cookie it ends the session the cookie carried (ASVS 7.2.4, http/auth.ts).
    consumes: true,
    prepare: async () => ({ path: '/users/api/signin', values: { identity: 'credentials', password: PASSWORD } }),
  },
  signout: {
    expect: all({ status: 200, result: true }),
    consumes: true,
    prepare: async () => ({ path: '/users/api/signout' }),
  },
  identity: { expect: signedIn(), prepare: async () => ({ path: '/users/api/identity' }) },
  name: { expect: signedIn(), prepare: async () => ({ path: '/users/api/name' }) },
  profile: { expect: signedIn(), prepare: async () => ({ path: '/users/api/profile' }) },
  authenticated: {
    expect: { ...signedIn({ status: 200, result: true }), anonymous: { status: 200, result: false } },
    prepare: async () => ({ path: '/users/api/authenticated' }),
  },
  allowed: {
    expect: { ...signedIn({ status: 200, result: true }), anonymous: { status: 200, result: false } },
    prepare: async () => ({ path: '/users/api/allowed', values: { permission: 'profile' } }),
  },
  signupDirect: {
    expect: noPolicy,
    prepare: async (m) => ({ path: '/users/api/signupDirect', values: newAccount(m) }),
  },
  signupOptin: { expect: noPolicy, prepare: async (m) => ({ path: '/users/api/signupOptin', values: newAccount(m) }) },
  signupReview: {
    expect: noPolicy,
    prepare: async (m) => ({ path: '/users/api/signupReview', values: newAccount(m) }),
  },
  signupSendpw: {
    expect: noPolicy,
    prepare: async (m) => ({ path: '/users/api/signupSendpw', values: { ...newAccount(m), password: undefined } }),
  },
  signupUid: {
    expect: noPolicy,
    prepare: async (m) => ({
      path: '/users/api/signupUid',
      values: { password: PASSWORD, email: `${m.unique('uid')}@example.com` },
    }),
  },
  activate: {
    expect: all(invalidToken),
    prepare: async () => ({ path: '/users/api/activate', values: { token: 'A'.repeat(43) } }),
  },
  update: {
    expect: signedIn({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/update', values: { realname: 'Matrix' } }),
  },
  updatePassword: {
    expect: signedIn({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/updatePassword', values: { password: PASSWORD, newpassword: PASSWORD } }),
  },
  updateEmail: {
    expect: adminOnly,
    prepare: async (m) => ({ path: '/users/api/updateEmail', values: { email: `${m.unique('changed')}@example.org` } }),
  },
  updateMail: {
    expect: adminOnly,
    prepare: async (m) => ({ path: '/users/api/updateMail', values: { email: `${m.unique('changed')}@example.org` } }),
  },
  verifyEmail: {
    expect: signedIn({ status: 200, result: true }),
    prepare: async (m) => ({ path: '/users/api/verifyEmail', values: { email: `${m.unique('verify')}@example.org` } }),
  },
  verifyEmail2: {
    expect: all(invalidToken),
    prepare: async () => ({ path: '/users/api/verifyEmail2', values: { token: 'V'.repeat(43) } }),
  },
  resetPassword: {
    expect: all({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/resetPassword', values: { identity: 'credentials' } }),
  },
  resetPassword2: {
    expect: all(invalidToken),
    prepare: async () => ({
      path: '/users/api/resetPassword2',
      values: { token: 'R'.repeat(43), newpassword: 'another-password' },
    }),
  },
  message: {
    expect: signedIn({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/message', values: { message: 'Hello' } }),
  },
  disable: {
    expect: signedIn({ status: 200, result: true }),
    consumes: true,
    prepare: async () => ({ path: '/users/api/disable' }),
  },
  delete: {
    expect: signedIn({ status: 200, result: true }),
    consumes: true,
    prepare: async () => ({ path: '/users/api/delete' }),
  },
  review: {
    expect: adminOnly,
    async prepare(m) {
      const name = m.unique('pending');
      await addAccount(m.s.roost, name, { state: 'pending' });
      return { path: '/users/api/review', values: { identity: name, action: 'accept' } };
    },
  },
  getUser: {
    expect: adminOnly,
    prepare: async (m) => ({ path: '/users/api/getUser', values: { identity: m.name('other') } }),
  },
  setUser: {
    expect: adminOnly,
    prepare: async (m) => ({
      path: '/users/api/setUser',
      values: { identity: m.name('other'), values: { realname: 'Set by admin' } },
    }),
  },
  removeUser: {
    expect: adminOnly,
    async prepare(m) {
      const name = m.unique('victim');
      await m.account(name);
      return { path: '/users/api/removeUser', values: { identity: name } };
    },
  },
  token2: {
    expect: all(invalidToken),
    prepare: async () => ({ path: '/users/api/token2', values: { challenge: 'C'.repeat(43), code: '123456' } }),
  },
  signin2: {
    expect: all(invalidToken),
    prepare: async () => ({ path: '/users/api/signin2', values: { challenge: 'C'.repeat(43), code: '123456' } }),
  },
  signinMail: { expect: noPolicy, prepare: async () => ({ path: '/users/api/signinMail', values: { identity: 'x' } }) },
  signinMail2: {
    // An identity of no account: a wrong code for a real one would count towards its lock.
    expect: all({ status: 401, code: 'invalid_code' }),
    counts: SIGNIN_COUNTERS,
    prepare: async () => ({ path: '/users/api/signinMail2', values: { identity: 'nobody-here', code: '123456' } }),
  },
  // Off by default: 403 to everybody, as a sign-up policy switched off.
  signinAnonymous: { expect: noPolicy, prepare: async () => ({ path: '/users/api/signinAnonymous' }) },
  upgradeAnonymous: {
    // Only an anonymous account may: every caller of the matrix has a full account.
    expect: signedIn({ status: 409, code: 'not_anonymous' }),
    prepare: async (m) => ({
      path: '/users/api/upgradeAnonymous',
      values: { name: m.unique('upgraded'), password: PASSWORD },
    }),
  },
  signinIdToken: {
    // No provider is configured in the matrix: the id names none.
    expect: all({ status: 404, code: 'unknown_provider' }),
    prepare: async () => ({
      path: '/users/api/signinIdToken',
      values: { provider: 'corp', idToken: 'a.b.c', nonce: 'n'.repeat(22) },
    }),
  },
  // No SMS sender in the matrix: what would send a text answers sms_unavailable.
  smsAdd: {
    expect: signedIn({ status: 503, code: 'sms_unavailable' }),
    prepare: async () => ({ path: '/users/api/smsAdd', values: { phone: '+491701234567', password: PASSWORD } }),
  },
  smsConfirm: {
    expect: signedIn({ status: 409, code: 'no_phone_pending' }),
    prepare: async () => ({ path: '/users/api/smsConfirm', values: { code: '123456' } }),
  },
  smsRemove: {
    expect: signedIn({ status: 409, code: 'no_phone' }),
    prepare: async () => ({ path: '/users/api/smsRemove', values: { password: PASSWORD } }),
  },
  smsPhone: { expect: signedIn(), prepare: async () => ({ path: '/users/api/smsPhone' }) },
  // Off by default: 403 to everybody, as signinMail.
  smsSignin: {
    expect: noPolicy,
    prepare: async () => ({ path: '/users/api/smsSignin', values: { phone: '+491701234567' } }),
  },
  smsSignin2: {
    // A number of no account: a wrong code for a real one would count towards its lock.
    expect: all({ status: 401, code: 'invalid_code' }),
    counts: SIGNIN_COUNTERS,
    prepare: async () => ({ path: '/users/api/smsSignin2', values: { phone: '+491701234567', code: '123456' } }),
  },
  smsChallenge: {
    expect: all(invalidToken),
    prepare: async () => ({ path: '/users/api/smsChallenge', values: { challenge: 'C'.repeat(43) } }),
  },
  providers: { expect: all({ status: 200, result: true }), prepare: async () => ({ path: '/users/api/providers' }) },
  signinProvider2: {
    expect: all(invalidToken),
    prepare: async () => ({ path: '/users/api/signinProvider2', values: { grant: 'G'.repeat(43) } }),
  },
  providerLinks: { expect: signedIn(), prepare: async () => ({ path: '/users/api/providerLinks' }) },
  unlinkProvider: {
    expect: signedIn({ status: 404, code: 'not_linked' }),
    prepare: async () => ({ path: '/users/api/unlinkProvider', values: { provider: 'corp', password: PASSWORD } }),
  },
  passkeyOptions: {
    expect: signedIn(),
    prepare: async () => ({ path: '/users/api/passkeyOptions', values: { password: PASSWORD } }),
  },
  passkeyRegister: {
    // A made-up answer: its challenge was never handed out.
    expect: signedIn({ status: 200, result: false, code: 'passkey_failed' }),
    prepare: async () => ({ path: '/users/api/passkeyRegister', values: { response: FAKE_WEBAUTHN } }),
  },
  passkeys: { expect: signedIn(), prepare: async () => ({ path: '/users/api/passkeys' }) },
  renamePasskey: {
    expect: signedIn({ status: 404, code: 'unknown_passkey' }),
    prepare: async () => ({ path: '/users/api/renamePasskey', values: { id: 'P'.repeat(20), name: 'x' } }),
  },
  removePasskey: {
    expect: signedIn({ status: 404, code: 'unknown_passkey' }),
    prepare: async () => ({ path: '/users/api/removePasskey', values: { id: 'P'.repeat(20), password: PASSWORD } }),
  },
  passkeySigninOptions: {
    expect: all({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/passkeySigninOptions' }),
  },
  passkeyToken: {
    expect: all({ status: 401, code: 'invalid_passkey' }),
    prepare: async () => ({ path: '/users/api/passkeyToken', values: { response: FAKE_WEBAUTHN } }),
  },
  passkeySignin: {
    expect: all({ status: 401, code: 'invalid_passkey' }),
    prepare: async () => ({ path: '/users/api/passkeySignin', values: { response: FAKE_WEBAUTHN } }),
  },
  secondFactor: { expect: signedIn(), prepare: async () => ({ path: '/users/api/secondFactor' }) },
  totpEnrol: { expect: signedIn(), prepare: async () => ({ path: '/users/api/totpEnrol' }) },
  totpConfirm: {
    // A secret is being set up; '000000' is (all but surely) not its code.
    expect: signedIn({ status: 200, result: false, code: 'validation_failure' }),
    prepare: async (m, caller) => {
      await enrolling(m, caller);
      return { path: '/users/api/totpConfirm', values: { code: '000000', password: PASSWORD } };
    },
  },
  totpRemove: {
    expect: signedIn({ status: 200, result: true }),
    prepare: async (m, caller) => {
      await enrolling(m, caller);
      return { path: '/users/api/totpRemove', values: { password: PASSWORD } };
    },
  },
  recoveryCodes: {
    expect: signedIn({ status: 200, result: false, code: 'no_factor' }),
    prepare: async () => ({ path: '/users/api/recoveryCodes', values: { password: PASSWORD } }),
  },
  sessions: { expect: signedIn(), prepare: async () => ({ path: '/users/api/sessions' }) },
  revokeSession: {
    expect: signedIn({ status: 404, code: 'unknown_session' }),
    prepare: async () => ({ path: '/users/api/revokeSession', values: { session: 'S'.repeat(16) } }),
  },
  revokeOtherSessions: {
    expect: signedIn({ status: 200, result: true }),
    prepare: async () => ({ path: '/users/api/revokeOtherSessions' }),
  },
  userFactors: {
    expect: adminOnly,
    prepare: async (m) => ({ path: '/users/api/userFactors', values: { identity: m.name('other') } }),
  },
  resetSecondFactor: {
    expect: adminOnly,
    prepare: async (m) => ({ path: '/users/api/resetSecondFactor', values: { identity: m.name('other') } }),
  },
  userSessions: {
    expect: adminOnly,
    prepare: async (m) => ({ path: '/users/api/userSessions', values: { identity: m.name('other') } }),
  },
  revokeUserSessions: {
    expect: adminOnly,
    async prepare(m) {
      const name = m.unique('sessions');
      await m.account(name);
      return { path: '/users/api/revokeUserSessions', values: { identity: name } };
    },
  },
  list: { expect: adminOnly, prepare: async () => ({ path: '/users/api/list' }) },
  identities: { expect: adminOnly, prepare: async () => ({ path: '/users/api/identities' }) },
  getPermissions: { expect: adminOnly, prepare: async () => ({ path: '/users/api/getPermissions' }) },
  setPermissions: {
    expect: adminOnly,
    prepare: async () => ({
      path: '/users/api/setPermissions',
      values: { permissions: [{ permission: 'ping', groups: ['sys:everyone'], action: 'replace' }] },
    }),
  },
};

const onItem =
  (op: string, extra: (m: Matrix) => Record<string, unknown> = () => ({})) =>
  async (m: Matrix) => ({ path: `/data/api/${op}`, values: { key: await m.item(), ...extra(m) } });

const DATASTORE: Record<string, Row> = {
  getItem: { expect: signedIn(), prepare: onItem('getItem') },
  newItem: {
    expect: signedIn(),
    prepare: async (m) => ({ path: '/data/api/newItem', values: { key: m.unique('new'), value: 1 } }),
  },
  setItem: { expect: ownerOrAdmin, prepare: onItem('setItem', () => ({ value: 'changed' })) },
  removeItem: { expect: ownerOrAdmin, prepare: onItem('removeItem') },
  list: { expect: signedIn(), prepare: async () => ({ path: '/data/api/list' }) },
  keys: { expect: signedIn(), prepare: async () => ({ path: '/data/api/keys' }) },
  getOwner: { expect: signedIn(), prepare: onItem('getOwner') },
  setOwner: { expect: adminOnly, prepare: onItem('setOwner', (m) => ({ newOwner: m.name('owner') })) },
  allowed: {
    expect: all(200),
    prepare: async () => ({ path: '/data/api/allowed', values: { permission: ['getItem', 'setItem'] } }),
  },
  getPermissions: { expect: adminOnly, prepare: async () => ({ path: '/data/api/getPermissions' }) },
  setPermissions: {
    expect: adminOnly,
    prepare: async () => ({
      path: '/data/api/setPermissions',
      values: { permissions: [{ permission: 'ping', groups: ['sys:everyone'], action: 'replace' }] },
    }),
  },
  ping: { expect: all(200), prepare: async () => ({ path: '/data/api/ping' }) },
};

const onFile =
  (op: string, values: (m: Matrix) => Record<string, unknown> = () => ({}), method: 'GET' | 'POST' = 'POST') =>
  async (m: Matrix) => ({ path: `/files/${await m.file()}/@${op}`, values: values(m), method });

const FILESTORE: Record<string, Row> = {
  getItem: { expect: signedIn(), prepare: onFile('getItem') },
  newItem: {
    expect: signedIn(),
    prepare: async (m) => ({ path: '/files/@newItem', values: { name: m.unique('new'), contents: 'x' } }),
  },
  setItem: { expect: ownerOrAdmin, prepare: onFile('setItem', () => ({ contents: 'changed' })) },
  read: { expect: signedIn(), prepare: onFile('read', () => ({}), 'GET') },
  write: { expect: ownerOrAdmin, prepare: onFile('write', () => ({ contents: 'written' })) },
  move: { expect: ownerOrAdmin, prepare: onFile('move', (m) => ({ newpath: m.unique('moved') })) },
  removeItem: { expect: ownerOrAdmin, prepare: onFile('removeItem') },
  list: { expect: signedIn(), prepare: async () => ({ path: '/files/@list' }) },
  allowed: { expect: all(200), prepare: onFile('allowed', () => ({ permission: ['getItem', 'write'] })) },
  getPermissions: { expect: adminOnly, prepare: async () => ({ path: '/files/@getPermissions' }) },
  setPermissions: {
    expect: adminOnly,
    prepare: async () => ({
      path: '/files/@setPermissions',
      values: { permissions: [{ permission: 'ping', groups: ['sys:everyone'], action: 'replace' }] },
    }),
  },
  getOwner: { expect: signedIn(), prepare: onFile('getOwner') },
  setOwner: { expect: adminOnly, prepare: onFile('setOwner', (m) => ({ newOwner: m.name('owner') })) },
  ping: { expect: all(200), prepare: async () => ({ path: '/files/@ping' }) },
  // The matrix's store keeps its blobs where the pass puts them, without `direct`: no such
  // operation there, for anyone (test/http/filestore-direct.test.ts has who may call them on S3).
  directUpload: { expect: all(404), prepare: onFile('directUpload', () => ({ size: 1 })) },
  directFinish: { expect: all(404), prepare: onFile('directFinish', () => ({ upload: 'u'.repeat(32) })) },
  link: { expect: all(404), prepare: onFile('link', () => ({}), 'GET') },
  [DOWNLOAD]: { expect: signedIn(), prepare: async (m) => ({ path: `/files/${await m.file()}`, method: 'GET' }) },
};

export const TABLES: Record<Service, Record<string, Row>> = {
  users: USERS,
  datastore: DATASTORE,
  filestore: FILESTORE,
};
export const LIVE: Record<Service, Live[]> = {
  users: ['anonymous', 'user', 'admin'],
  datastore: ['anonymous', 'owner', 'other', 'admin'],
  filestore: ['anonymous', 'owner', 'other', 'admin'],
};

export function call(m: Matrix, cell: Cell, token: string | undefined): Promise<CallResult> {
  const method = cell.method ?? 'POST';
  const options = { method, ...(token ? { token } : {}) };
  return method === 'GET'
    ? m.s.request(cell.path, undefined, options)
    : m.s.request(cell.path, cell.values ?? {}, options);
}

/** What must match between answers: the status, and the failure code or `result`. */
export const gist = (res: CallResult) => ({ status: res.status, code: res.body?.code, result: res.body?.result });

export function assertExpected(res: CallResult, expect: Expect, where: string): void {
  const e = typeof expect === 'number' ? { status: expect } : expect;
  assert.equal(res.status, e.status, `${where}: ${JSON.stringify(res.body)?.slice(0, 300)}`);
  if (e.result !== undefined) assert.equal(res.body?.result, e.result, where);
  if (e.code !== undefined) assert.equal(res.body?.code, e.code, where);
  // A 401 is "sign in first" unless the row names another code (a wrong mailed code is a 401 too).
  if (e.status === 401 && e.code === undefined) assert.equal(res.body?.code, 'not_signed_in', where);
  if (e.status === 403) assert.ok(['not_allowed'].includes(res.body?.code), `${where}: ${res.body?.code}`);
}
