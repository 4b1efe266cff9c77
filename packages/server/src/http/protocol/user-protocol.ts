import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { formatTime } from '../../core/clock.js';
import type { Config } from '../../core/config.js';
import { allowedBody, permissionsBody } from './permission-answers.js';
import { allowedInput, setPermissionsInput } from '../../core/validation.js';
import type { Caller, SignupPolicy, User, UserPage, UserService } from '../../users/index.js';
import { clearAuthCookie, startCookieSession } from '../auth.js';
import {
  ALLOWED_ANSWER,
  answerOf,
  DONE_ANSWER,
  ONE_ANSWER,
  PAGE_MEMBERS,
  PERMISSIONS_ANSWER,
  SCALARS,
} from './answer-schemas.js';
import { answered, asInput, type WireValues } from './wire-values.js';

/**
 * The user service in the original protocol (docs/users.md): each
 * operation's name and aliases, what guards it, and how its typed call (users/user-service.ts)
 * answers on the wire. The bodies are the original connectors' contract: they stay byte for
 * byte what they were when the service answered them itself (test/http/users-*.test.ts).
 */
export interface UserOperation {
  op: string;
  summary: string;
  aliases?: string[];
  /** Also answers DELETE (disable, delete). */
  del?: boolean;
  /** Brute-force guarded: answers 429 past the configured rate. */
  limited?: boolean;
  /** Throttled by failed attempts per account and address in the domain (users/signin-throttle.ts), not by requests. */
  signin?: boolean;
  /** Changes nothing, so a cross-site cookie request may call it. */
  read?: boolean;
  /** Checked for a same-origin browser request even without a cookie (sign-in: login CSRF). */
  sameOrigin?: boolean;
  admin?: boolean;
  /** The input's schema, for the API docs (the service checks its input itself). */
  input?: z.ZodType;
  /** The success answer's JSON schema, for the API docs (answer-schemas.ts). */
  answer: object;
  call(caller: Caller, values: WireValues): Promise<object>;
  /** Shapes the reply after a successful call (cookies). */
  after?: (request: FastifyRequest, reply: FastifyReply, answer: object) => object | Promise<object>;
}

/** The response shapes of the seed; `reference` repeats `id` under the original's name. */
const identityView = (user: User) => ({
  name: user.name,
  realname: user.realname,
  email: user.email ?? '',
  id: user.id,
  reference: user.id,
});

export const profileView = (user: User) => ({
  name: user.name,
  email: user.email ?? '',
  realname: user.realname,
  data: user.data,
  activity: formatTime(user.activity),
  notify: user.notify,
  id: user.id,
  reference: user.id,
  active: user.state === 'active',
  pending: user.state === 'pending',
  groups: user.groups,
});

/** What administrators see: the profile plus the state and the creation time. */
const adminView = (user: User) => ({ ...profileView(user), state: user.state, created: formatTime(user.created) });

const pageBody = <T>(page: UserPage, view: (user: User) => T) => ({
  users: page.users.map(view),
  start: page.start,
  size: page.size,
  total: page.total,
});

const IDENTITY_ANSWER = answerOf({
  name: SCALARS.string,
  realname: SCALARS.string,
  email: SCALARS.string,
  id: SCALARS.string,
  reference: { ...SCALARS.string, description: 'The id again, under the original name.' },
});
const PROFILE_MEMBERS = {
  name: SCALARS.string,
  email: SCALARS.string,
  realname: SCALARS.string,
  data: { ...SCALARS.string, description: 'Free text (JSON sent as an object or list is kept as its text).' },
  activity: { ...SCALARS.string, description: 'Last sign-in, `YYYY/MM/DD HH:MM:SS` UTC; empty when never.' },
  notify: SCALARS.boolean,
  id: SCALARS.string,
  reference: SCALARS.string,
  active: SCALARS.boolean,
  pending: SCALARS.boolean,
  groups: SCALARS.strings,
};
const PROFILE_ANSWER = answerOf(PROFILE_MEMBERS);
const ADMIN_MEMBERS = {
  ...PROFILE_MEMBERS,
  state: { enum: ['active', 'pending', 'disabled'] },
  created: SCALARS.string,
};
const ADMIN_VIEW = answerOf(ADMIN_MEMBERS);
const ADMIN_ANSWER = answerOf({ result: { const: true }, ...ADMIN_MEMBERS });
const TOKEN_ANSWER = answerOf({
  result: { const: true },
  token: SCALARS.string,
  expires: { ...SCALARS.integer, description: 'Milliseconds since the epoch.' },
});

const RECOVERY_CODES = {
  ...SCALARS.strings,
  description: 'Ten codes, each good for one sign-in; shown this once (only their hashes are kept).',
};
const SESSION_VIEW = answerOf({
  id: SCALARS.string,
  method: { enum: ['password', 'totp', 'recovery', 'mail', 'provider', 'passkey'] },
  device: { ...SCALARS.string, description: 'The User-Agent the session started from.' },
  address: SCALARS.string,
  created: { ...SCALARS.integer, description: 'Milliseconds since the epoch.' },
  lastUsed: { ...SCALARS.integer, description: 'Milliseconds since the epoch, to about five minutes.' },
  expires: SCALARS.integer,
  current: { ...SCALARS.boolean, description: 'The session of this request.' },
});
const SESSIONS_ANSWER = answerOf({ result: { const: true }, sessions: { type: 'array', items: SESSION_VIEW } });
const FACTORS_ANSWER = answerOf({
  result: { const: true },
  totp: { ...SCALARS.boolean, description: 'A confirmed authenticator app.' },
  recoveryCodes: { ...SCALARS.integer, description: 'Recovery codes left.' },
  required: { ...SCALARS.boolean, description: 'An administrator requires a second factor of this account.' },
  providers: { ...SCALARS.strings, description: 'The sign-in providers linked to the account, by id.' },
  passkeys: { ...SCALARS.integer, description: 'How many passkeys the account has.' },
});
const PASSKEY_VIEW = answerOf({
  id: { ...SCALARS.string, description: 'The credential id (base64url).' },
  name: SCALARS.string,
  created: SCALARS.integer,
  lastUsed: { ...SCALARS.integer, description: 'Milliseconds since the epoch; null before the first use.' },
});
const CEREMONY_ANSWER = answerOf({
  result: { const: true },
  options: {
    type: 'object',
    description: 'WebAuthn options as JSON, for startRegistration or startAuthentication of @simplewebauthn/browser.',
  },
});
const PROVIDERS_ANSWER = answerOf({
  result: { const: true },
  providers: {
    type: 'array',
    items: answerOf({ id: SCALARS.string, label: { ...SCALARS.string, description: 'Sign in with this.' } }),
  },
});
const LINKS_ANSWER = answerOf({
  result: { const: true },
  providers: {
    type: 'array',
    items: answerOf({
      provider: SCALARS.string,
      label: SCALARS.string,
      email: { ...SCALARS.string, description: 'The email the provider gave when it was linked.' },
      created: SCALARS.integer,
    }),
  },
});

const DONE = { result: true } as const;
const done = answered(DONE);

/** A command of the service (no result but success) in the original's form: `{result: true}`. */
const command =
  <I extends object>(run: (caller: Caller, input: I) => Promise<void>) =>
  (caller: Caller, values: WireValues) =>
    done(run(caller, asInput(values)));

/**
 * Every operation of the user service, `/users/api/<op>`, each answering GET (query) and POST
 * (JSON or form body). Validation failures answer 200 with `result: false`, as the original
 * does; docs/errors.md lists the other statuses.
 */
export function userOperations(users: UserService, config: Config): UserOperation[] {
  const i = users.inputs;
  const clearCookie = (request: FastifyRequest, reply: FastifyReply, answer: object) => {
    clearAuthCookie(request, reply);
    return answer;
  };
  /** The cookie variants of the sign-ins (`signin`, `passkeySignin`): the token goes into the cookie only. */
  const intoCookie = async (request: FastifyRequest, reply: FastifyReply, answer: unknown) => {
    await startCookieSession(
      request,
      reply,
      users,
      (answer as { token: string }).token,
      config.users.tokenLifetimeSeconds,
    );
    return DONE;
  };
  const signup = (policy: SignupPolicy) => async (caller: Caller, values: WireValues) => {
    const user = await users.signup(caller, policy, asInput(values));
    // signupUid's name is made by Roost: the caller learns it here only.
    return policy === 'signupUid' ? { result: true, name: user.name } : DONE;
  };
  return [
    {
      op: 'ping',
      answer: ONE_ANSWER,
      summary: 'Health check: answers `result: 1`.',
      read: true,
      call: async (caller) => {
        await users.ping(caller);
        return { result: 1 };
      },
    },
    {
      op: 'token',
      answer: TOKEN_ANSWER,
      summary: 'Exchange identity and password for a token (send it as `x-auth-token` or `Authorization: Bearer`).',
      signin: true,
      input: i.credentials,
      call: async (caller, values) => ({ result: true, ...(await users.token(caller, asInput(values))) }),
    },
    {
      op: 'signin',
      answer: DONE_ANSWER,
      sameOrigin: true,
      summary: 'Sign in: sets the HttpOnly cookie `auth`.',
      signin: true,
      input: i.credentials,
      call: async (caller, values) => users.signin(caller, asInput(values)),
      after: intoCookie,
    },
    {
      op: 'token2',
      answer: answerOf({
        result: { const: true },
        token: SCALARS.string,
        expires: SCALARS.integer,
        recoveryCodes: RECOVERY_CODES,
      }),
      summary:
        'Second step of token when it asked for a second factor: the challenge with a TOTP code or a recovery code.',
      signin: true,
      input: i.secondStep,
      call: async (caller, values) => ({ result: true, ...(await users.token2(caller, asInput(values))) }),
    },
    {
      op: 'signin2',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      sameOrigin: true,
      summary: 'Second step of signin: the challenge with a TOTP code or a recovery code; sets the cookie.',
      signin: true,
      input: i.secondStep,
      call: async (caller, values) => users.signin2(caller, asInput(values)),
      async after(request, reply, answer) {
        const { token, recoveryCodes } = answer as { token: string; recoveryCodes?: string[] };
        await startCookieSession(request, reply, users, token, config.users.tokenLifetimeSeconds);
        return recoveryCodes ? { ...DONE, recoveryCodes } : DONE;
      },
    },
    {
      op: 'signinMail',
      answer: DONE_ANSWER,
      summary: 'Sign-in by mail: mails a one-time code and link; answers the same whether or not the account exists.',
      limited: true,
      input: i.identity,
      call: command(users.signinMail),
    },
    {
      op: 'signinMail2',
      answer: TOKEN_ANSWER,
      summary: 'A token for the mailed link token, or for the identity with the mailed code.',
      signin: true,
      input: i.mailedSignin,
      call: async (caller, values) => ({ result: true, ...(await users.signinMail2(caller, asInput(values))) }),
    },
    {
      op: 'providers',
      answer: PROVIDERS_ANSWER,
      summary:
        'The enabled sign-in providers. A browser signs in with one at /users/providers/ID/start?redirect=ADDRESS.',
      read: true,
      call: async (caller) => ({ result: true, providers: await users.providers(caller) }),
    },
    {
      op: 'signinProvider2',
      answer: TOKEN_ANSWER,
      summary: 'A token for the one-time grant a provider sign-in handed to the app in its address.',
      signin: true,
      input: i.providerGrant,
      call: async (caller, values) => ({ result: true, ...(await users.signinProvider2(caller, asInput(values))) }),
    },
    {
      op: 'providerLinks',
      answer: LINKS_ANSWER,
      summary: 'The sign-in providers linked to the own account (link one on the account page).',
      read: true,
      call: async (caller) => ({ result: true, providers: await users.providerLinks(caller) }),
    },
    {
      op: 'unlinkProvider',
      answer: DONE_ANSWER,
      summary: 'Unlink a sign-in provider from the own account (the password or a current code again).',
      del: true,
      input: i.providerUnlink,
      call: command(users.unlinkProvider),
    },
    {
      op: 'passkeyOptions',
      answer: CEREMONY_ANSWER,
      summary:
        'Options to register a new passkey of the signed-in account (navigator.credentials.create); ' +
        'the password or a current code again.',
      input: i.reauthentication,
      call: async (caller, values) => ({ result: true, options: await users.passkeyOptions(caller, asInput(values)) }),
    },
    {
      op: 'passkeyRegister',
      answer: answerOf({ result: { const: true }, passkey: PASSKEY_VIEW }),
      summary: "Register the browser's answer to passkeyOptions as a passkey, with an optional name.",
      input: i.passkeyRegistration,
      call: async (caller, values) => ({ result: true, passkey: await users.passkeyRegister(caller, asInput(values)) }),
    },
    {
      op: 'passkeys',
      answer: answerOf({ result: { const: true }, passkeys: { type: 'array', items: PASSKEY_VIEW } }),
      summary: 'The passkeys of the own account.',
      read: true,
      call: async (caller) => ({ result: true, passkeys: await users.passkeys(caller) }),
    },
    {
      op: 'renamePasskey',
      answer: DONE_ANSWER,
      summary: 'Give one of the own passkeys another name.',
      input: i.passkeyRename,
      call: command(users.renamePasskey),
    },
    {
      op: 'removePasskey',
      answer: DONE_ANSWER,
      summary: 'Remove one of the own passkeys (the password or a current code again).',
      del: true,
      input: i.passkeyRemoval,
      call: command(users.removePasskey),
    },
    {
      op: 'passkeySigninOptions',
      answer: CEREMONY_ANSWER,
      summary:
        'Options to sign in with a passkey, no name needed (navigator.credentials.get); with a challenge, for token2.',
      limited: true,
      input: i.passkeySigninStart,
      call: async (caller, values) => ({
        result: true,
        options: await users.passkeySigninOptions(caller, asInput(values)),
      }),
    },
    {
      op: 'passkeyToken',
      answer: TOKEN_ANSWER,
      summary: "A token for the browser's answer to passkeySigninOptions: the passkey names the account.",
      signin: true,
      input: i.passkeyAssertion,
      call: async (caller, values) => ({ result: true, ...(await users.passkeyToken(caller, asInput(values))) }),
    },
    {
      op: 'passkeySignin',
      answer: DONE_ANSWER,
      sameOrigin: true,
      summary: 'As passkeyToken, and sets the HttpOnly cookie auth.',
      signin: true,
      input: i.passkeyAssertion,
      call: async (caller, values) => users.passkeySignin(caller, asInput(values)),
      after: intoCookie,
    },
    {
      op: 'secondFactor',
      answer: FACTORS_ANSWER,
      summary: 'The own second factor: a confirmed authenticator, recovery codes left, whether one is required.',
      read: true,
      call: async (caller) => ({ result: true, ...(await users.secondFactor(caller)) }),
    },
    {
      op: 'totpEnrol',
      answer: answerOf({
        result: { const: true },
        secret: { ...SCALARS.string, description: 'The key to type into an app by hand (base32).' },
        uri: { ...SCALARS.string, description: 'The `otpauth://` link a QR code holds.' },
        qrSvg: { ...SCALARS.string, description: 'The link as an SVG QR code.' },
      }),
      summary:
        'A new authenticator (TOTP) secret for the signed-in account, or for a sign-in whose challenge says enrol.',
      limited: true,
      input: i.totpEnrol,
      call: async (caller, values) => ({ result: true, ...(await users.totpEnrol(caller, asInput(values))) }),
    },
    {
      op: 'totpConfirm',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      summary: 'Confirm the new authenticator with a first code and the password; answers the recovery codes.',
      input: i.totpConfirm,
      call: async (caller, values) => ({ result: true, ...(await users.totpConfirm(caller, asInput(values))) }),
    },
    {
      op: 'totpRemove',
      answer: DONE_ANSWER,
      summary: 'Remove the authenticator and the recovery codes (the password or a current code again).',
      del: true,
      input: i.reauthentication,
      call: command(users.totpRemove),
    },
    {
      op: 'recoveryCodes',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      summary: 'New recovery codes in place of the old ones (the password or a current code again).',
      input: i.reauthentication,
      call: async (caller, values) => ({ result: true, ...(await users.recoveryCodes(caller, asInput(values))) }),
    },
    {
      op: 'sessions',
      answer: SESSIONS_ANSWER,
      summary: 'The own sessions: method, device, address, created, last used, and which is this one.',
      read: true,
      call: async (caller) => ({ result: true, sessions: await users.sessions(caller) }),
    },
    {
      op: 'revokeSession',
      answer: DONE_ANSWER,
      summary: 'End one of the own sessions by its id.',
      input: i.sessionRef,
      call: command(users.revokeSession),
    },
    {
      op: 'revokeOtherSessions',
      answer: DONE_ANSWER,
      summary: 'End every own session but this one.',
      call: (caller) => done(users.revokeOtherSessions(caller)),
    },
    {
      op: 'signout',
      answer: DONE_ANSWER,
      summary: 'Revoke the token of this request and clear the cookie.',
      call: (caller) => done(users.signout(caller)),
      after: clearCookie,
    },
    {
      op: 'identity',
      answer: IDENTITY_ANSWER,
      summary: 'The signed-in user: name, realname, email, id (and `reference`).',
      read: true,
      call: async (caller) => identityView(await users.identity(caller)),
    },
    {
      op: 'name',
      answer: answerOf({ name: SCALARS.string, realname: SCALARS.string }),
      summary: 'Name (or email, by the identity policy) and realname.',
      read: true,
      call: (caller) => users.name(caller),
    },
    {
      op: 'profile',
      answer: PROFILE_ANSWER,
      summary: 'The profile of the signed-in user.',
      read: true,
      call: async (caller) => profileView(await users.profile(caller)),
    },
    {
      op: 'authenticated',
      answer: answerOf({ result: SCALARS.boolean }),
      summary: 'Signed in (and, with `groups`, member of one of them)?',
      read: true,
      input: i.authenticated,
      call: async (caller, values) => ({ result: await users.authenticated(caller, asInput(values)) }),
    },
    {
      op: 'allowed',
      answer: ALLOWED_ANSWER,
      summary: 'Does the caller hold these permissions?',
      read: true,
      input: allowedInput,
      call: async (caller, values) => allowedBody(await users.allowed(caller, asInput(values))),
    },
    {
      op: 'signupDirect',
      answer: DONE_ANSWER,
      summary: 'Sign up: active at once.',
      limited: true,
      input: i.signup,
      call: signup('signupDirect'),
    },
    {
      op: 'signupOptin',
      answer: DONE_ANSWER,
      summary: 'Sign up: pending until the mailed activation token is used.',
      limited: true,
      input: i.signup,
      call: signup('signupOptin'),
    },
    {
      op: 'signupReview',
      answer: DONE_ANSWER,
      summary: 'Sign up: pending until an administrator reviews it.',
      limited: true,
      input: i.signup,
      call: signup('signupReview'),
    },
    {
      op: 'signupSendpw',
      answer: DONE_ANSWER,
      summary: 'Sign up: active, with a generated password sent by mail.',
      limited: true,
      input: i.signupSendpw,
      call: signup('signupSendpw'),
    },
    {
      op: 'signupUid',
      answer: answerOf({ result: { const: true }, name: SCALARS.string }),
      summary: 'Sign up: active, with a generated 30-character name returned as `name`.',
      limited: true,
      input: i.signupUid,
      call: signup('signupUid'),
    },
    {
      op: 'activate',
      answer: DONE_ANSWER,
      summary: 'Activate a pending account with its mailed token.',
      limited: true,
      input: i.token,
      call: command(users.activate),
    },
    {
      op: 'update',
      answer: DONE_ANSWER,
      summary: 'Change realname, notify or data.',
      input: i.update,
      call: command(users.update),
    },
    {
      op: 'updatePassword',
      answer: DONE_ANSWER,
      summary: 'Change the password (needs the current one).',
      input: i.updatePassword,
      call: command(users.updatePassword),
    },
    {
      op: 'updateEmail',
      answer: DONE_ANSWER,
      aliases: ['updateMail'],
      summary: 'Change the email at once, without verification (permission-guarded).',
      input: i.email,
      call: command(users.updateEmail),
    },
    {
      op: 'verifyEmail',
      answer: DONE_ANSWER,
      summary: 'Mail a verification token to a new address.',
      input: i.email,
      call: command(users.verifyEmail),
    },
    {
      op: 'verifyEmail2',
      answer: DONE_ANSWER,
      summary: 'Take the new address with its verification token.',
      limited: true,
      input: i.token,
      call: command(users.verifyEmail2),
    },
    {
      op: 'resetPassword',
      answer: DONE_ANSWER,
      summary: 'Mail a reset token; answers the same whether or not the account exists.',
      limited: true,
      input: i.identity,
      call: command(users.resetPassword),
    },
    {
      op: 'resetPassword2',
      answer: DONE_ANSWER,
      summary: 'Set a new password with the reset token.',
      limited: true,
      input: i.resetPassword2,
      call: command(users.resetPassword2),
    },
    {
      op: 'message',
      answer: DONE_ANSWER,
      summary: 'Mail a message (at most 5000 characters) to the administrator.',
      input: i.message,
      call: command(users.message),
    },
    {
      op: 'disable',
      answer: DONE_ANSWER,
      summary: 'Disable the own account and sign out.',
      del: true,
      call: (caller) => done(users.disable(caller)),
      after: clearCookie,
    },
    {
      op: 'delete',
      answer: DONE_ANSWER,
      summary: 'Remove the own account for good.',
      del: true,
      call: (caller) => done(users.delete(caller)),
      after: clearCookie,
    },
    {
      op: 'review',
      answer: DONE_ANSWER,
      summary: 'Review a pending sign-up: accept, optin, activate, reject, disable.',
      admin: true,
      input: i.review,
      call: command(users.review),
    },
    {
      op: 'getUser',
      answer: ADMIN_ANSWER,
      summary: 'A user profile, by name, email or id.',
      admin: true,
      read: true,
      input: i.identity,
      call: async (caller, values) => ({ result: true, ...adminView(await users.getUser(caller, asInput(values))) }),
    },
    {
      op: 'setUser',
      answer: DONE_ANSWER,
      summary: 'Change a user (`values`: realname, email, name, notify, data, groups, password, active).',
      admin: true,
      input: i.setUser,
      call: command(users.setUser),
    },
    {
      op: 'removeUser',
      answer: DONE_ANSWER,
      summary: 'Remove a user.',
      admin: true,
      input: i.identity,
      call: command(users.removeUser),
    },
    {
      op: 'list',
      answer: answerOf({ users: { type: 'array', items: ADMIN_VIEW }, ...PAGE_MEMBERS }),
      summary: 'Users with their profiles: search, paging, sort.',
      admin: true,
      read: true,
      input: i.list,
      call: async (caller, values) => pageBody(await users.list(caller, asInput(values)), adminView),
    },
    {
      op: 'identities',
      answer: answerOf({ users: { type: 'array', items: IDENTITY_ANSWER }, ...PAGE_MEMBERS }),
      summary: 'Users as identities: search, paging, sort.',
      admin: true,
      read: true,
      input: i.list,
      call: async (caller, values) => pageBody(await users.identities(caller, asInput(values)), identityView),
    },
    {
      op: 'userFactors',
      answer: FACTORS_ANSWER,
      summary: "A user's second factor, by name, email or id.",
      admin: true,
      read: true,
      input: i.identity,
      call: async (caller, values) => ({ result: true, ...(await users.userFactors(caller, asInput(values))) }),
    },
    {
      op: 'resetSecondFactor',
      answer: DONE_ANSWER,
      summary: "Remove a user's authenticator and recovery codes (a lost phone).",
      admin: true,
      input: i.identity,
      call: command(users.resetSecondFactor),
    },
    {
      op: 'userSessions',
      answer: SESSIONS_ANSWER,
      summary: "A user's sessions, by name, email or id.",
      admin: true,
      read: true,
      input: i.identity,
      call: async (caller, values) => ({ result: true, sessions: await users.userSessions(caller, asInput(values)) }),
    },
    {
      op: 'revokeUserSessions',
      answer: DONE_ANSWER,
      summary: 'End one session of a user, or all of them.',
      admin: true,
      input: i.userSessionRef,
      call: command(users.revokeUserSessions),
    },
    {
      op: 'getPermissions',
      answer: PERMISSIONS_ANSWER,
      summary: 'The permission entries of the user service.',
      admin: true,
      read: true,
      call: async (caller) => permissionsBody(await users.permissionEntries(caller)),
    },
    {
      op: 'setPermissions',
      answer: PERMISSIONS_ANSWER,
      summary: 'Add, replace or revoke groups of permission entries.',
      admin: true,
      input: setPermissionsInput,
      call: async (caller, values) => permissionsBody(await users.changePermissions(caller, asInput(values))),
    },
  ];
}
