import type { CallOptions } from './options.js';
import type { AllowedAnswer, DoneAnswer, PermissionChange, PermissionsAnswer, PingAnswer } from './shared-types.js';
import { Connector } from './connector.js';
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { isRoostError, RoostError } from './errors.js';
import type {
  PasskeyOptionsAnswer,
  PasskeySigninOptionsAnswer,
  FactorState,
  PasskeyAnswer,
  PasskeysAnswer,
  ProviderLinksAnswer,
  ProvidersAnswer,
  RecoveryCodesAnswer,
  Reauthentication,
  SecondFactorChallenge,
  SecondFactorProof,
  SessionsAnswer,
  Signin2Answer,
  SmsAddAnswer,
  SmsPhoneAnswer,
  SmsSentAnswer,
  Token2Answer,
  TotpSetup,
  Identity,
  NameAnswer,
  Profile,
  ProfileFields,
  ReviewAction,
  SignupUidAnswer,
  TokenAnswer,
  AnonymousAnswer,
  ChallengeAnswer,
  UserAnswer,
  UserRecord,
  UserSearch,
  UsersPage,
  UserValues,
} from './users-types.js';

/**
 * The user identity service, `/users/api/<operation>`: one method per operation (docs/users.md).
 * Each resolves with the server's JSON answer and rejects with `RoostError`, also for the
 * validation failures the server answers with HTTP 200 and `result: false`.
 *
 * @example
 * const auth = users({ baseUrl: 'http://127.0.0.1:8080' });
 * await auth.token('alice', 'alice-password-1'); // keeps the token
 * const me = await auth.identity();
 */
export class Users extends Connector {
  #call<T>(operation: string, values: object = {}, call?: CallOptions<T>): Promise<T> {
    return this.transport.call(operation, `/users/api/${operation}`, values, call);
  }

  /** An operation that answers a new session's token: the connector keeps it unless `store: false`. */
  #issuing<T extends TokenAnswer>(
    operation: string,
    values: object,
    call: CallOptions<T> & { store?: boolean },
  ): Promise<T> {
    const { store = true, ...rest } = call;
    return this.transport.settle(operation, rest, async () => {
      const answer = await this.transport.request<T>(operation, `/users/api/${operation}`, values, rest);
      if (store) this.options.token = answer.token;
      return answer;
    });
  }

  /** An operation after which the token is dead (sign-out, disable, delete): the connector forgets it. */
  #ending(operation: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.transport.settle(operation, call, async () => {
      const answer = await this.transport.request<DoneAnswer>(operation, `/users/api/${operation}`, {}, call);
      this.options.token = undefined;
      return answer;
    });
  }

  // Service

  /** Health check: `{result: 1}`. */
  ping(call?: CallOptions<PingAnswer>): Promise<PingAnswer> {
    return this.#call('ping', {}, call);
  }

  /**
   * A proof-of-work challenge (ALTCHA's shape) and `required`: whether sign-ins, sign-ups and
   * resets ask for a solved one now (`users.proofOfWork`); its solution goes in the
   * `X-Roost-Proof` header (docs/users.md, `challenge`).
   */
  challenge(call?: CallOptions<ChallengeAnswer>): Promise<ChallengeAnswer> {
    return this.#call('challenge', {}, call);
  }

  // Tokens and sessions

  /**
   * Exchange an identity (name or email) and a password for a token. The connector keeps it
   * and sends it from now on, unless `store: false`.
   */
  token(
    identity: string,
    password: string,
    call: CallOptions<TokenAnswer> & { store?: boolean } = {},
  ): Promise<TokenAnswer> {
    return this.#issuing('token', { identity, password }, call);
  }

  /**
   * The second step of a sign-in whose first (`token`) failed with `second_factor_required`
   * (see {@link secondFactorChallenge}): the challenge with a code of the authenticator app or a
   * recovery code. The connector keeps the token, unless `store: false`.
   *
   * @example
   * try {
   *   await auth.token('alice', password);
   * } catch (error) {
   *   const step = secondFactorChallenge(error);
   *   if (!step) throw error;
   *   await auth.token2(step.challenge, { code: await askForCode() });
   * }
   */
  token2(
    challenge: string,
    proof: SecondFactorProof,
    call: CallOptions<Token2Answer> & { store?: boolean } = {},
  ): Promise<Token2Answer> {
    return this.#issuing('token2', { ...proof, challenge }, call);
  }

  /** The second step of `signin` (cookie mode): as {@link token2}, the browser keeps the cookie. */
  signin2(challenge: string, proof: SecondFactorProof, call?: CallOptions<Signin2Answer>): Promise<Signin2Answer> {
    return this.#call('signin2', { ...proof, challenge }, call);
  }

  /** Sign-in by mail (when an administrator turned it on): mails the account a one-time code and link. */
  signinMail(identity: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('signinMail', { identity }, call);
  }

  /**
   * A token for a mailed sign-in: `{ identity, code }` with the mailed code, or `{ token }` from
   * the mailed link. The connector keeps it, unless `store: false`; an account with a second
   * factor fails with `second_factor_required` here too ({@link token2} follows).
   */
  signinMail2(
    proof: { identity: string; code: string } | { token: string },
    call: CallOptions<TokenAnswer> & { store?: boolean } = {},
  ): Promise<TokenAnswer> {
    return this.#issuing('signinMail2', proof, call);
  }

  // Sign-in providers (docs/users.md, "Providers")

  /** The enabled sign-in providers, `{ id, label }` each, for the buttons. */
  providers(call?: CallOptions<ProvidersAnswer>): Promise<ProvidersAnswer> {
    return this.#call('providers', {}, call);
  }

  /**
   * The address that starts a sign-in with provider `id`. The browser ends at `redirect` (an
   * address of the server's `users.providerRedirects`) with `roost_signin` (a one-time grant for
   * {@link completeProviderSignin}), or `roost_pending` (`review`, `optin`), or `roost_error`.
   */
  providerSigninUrl(id: string, redirect: string): string {
    return this.transport.url(
      `/users/providers/${encodeURIComponent(id)}/start?redirect=${encodeURIComponent(redirect)}`,
    );
  }

  /**
   * Sends this page's browser to provider `id`; it comes back to `redirect` (this page by default),
   * where {@link completeProviderSignin} ends the sign-in.
   *
   * @example
   * button.onclick = () => auth.signinWithProvider('github');
   * // on load:
   * const signedIn = await auth.completeProviderSignin();
   */
  signinWithProvider(id: string, redirect: string = globalThis.location.href): void {
    globalThis.location.assign(this.providerSigninUrl(id, redirect));
  }

  /**
   * Back from a provider: trades the `roost_signin` grant of `address` (this page's by default)
   * for a token, kept unless `store: false`. Answers null when the address has no grant; rejects
   * with the `roost_error` code the server sent, with `account_pending` (and `body.pending`:
   * `review` or `optin`) for an account that is not open yet, and with `second_factor_required`
   * when {@link token2} must follow.
   */
  async completeProviderSignin(
    address: string = globalThis.location.href,
    call: CallOptions<TokenAnswer> & { store?: boolean } = {},
  ): Promise<TokenAnswer | null> {
    const params = new URL(address).searchParams;
    const error = params.get('roost_error');
    if (error) throw new RoostError(`The sign-in with the provider failed: ${error}.`, { code: error });
    const pending = params.get('roost_pending');
    if (pending)
      throw new RoostError(
        pending === 'review'
          ? 'The account waits for an administrator to review it.'
          : 'The account is made: follow the link of the activation mail.',
        { code: 'account_pending', body: { pending } },
      );
    const grant = params.get('roost_signin');
    return grant ? this.signinProvider2(grant, call) : null;
  }

  /** A token for the one-time grant of a provider sign-in (see {@link completeProviderSignin}). */
  signinProvider2(grant: string, call: CallOptions<TokenAnswer> & { store?: boolean } = {}): Promise<TokenAnswer> {
    return this.#issuing('signinProvider2', { grant }, call);
  }

  /** The providers linked to the own account (they are linked on Roost's account page, `/users/account`). */
  providerLinks(call?: CallOptions<ProviderLinksAnswer>): Promise<ProviderLinksAnswer> {
    return this.#call('providerLinks', {}, call);
  }

  /** Unlink provider `id` from the own account, with the password or a current code again. */
  unlinkProvider(id: string, proof: Reauthentication, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('unlinkProvider', { provider: id, ...proof }, call);
  }

  // Passkeys (docs/users.md, "Passkeys")

  /**
   * Register a passkey for the signed-in account, in a browser: the authenticator (the device's
   * screen lock, a security key, a phone) makes a credential for this site, and the server keeps it.
   * `proof`: the password or a current code again (a passkey is a way in of its own).
   */
  async registerPasskey(
    proof: Reauthentication,
    name?: string,
    call?: CallOptions<PasskeyAnswer>,
  ): Promise<PasskeyAnswer> {
    const { options } = await this.passkeyOptions(proof);
    const response = await startRegistration({ optionsJSON: options });
    return this.passkeyRegister({ ...response }, name, call);
  }

  /**
   * Sign in with a passkey, in a browser, no name typed: the browser offers this site's passkeys
   * and the chosen one names the account. With `cookie: true` the server sets the `auth` cookie
   * (`passkeySignin`); otherwise the connector keeps the token (`passkeyToken`), unless `store: false`.
   */
  async signinWithPasskey(
    call: CallOptions<TokenAnswer> & { store?: boolean; cookie?: boolean } = {},
  ): Promise<TokenAnswer | DoneAnswer> {
    const { cookie, ...rest } = call;
    const { options } = await this.passkeySigninOptions();
    const response = { ...(await startAuthentication({ optionsJSON: options })) };
    return cookie ? this.passkeySignin(response) : this.passkeyToken(response, rest);
  }

  /**
   * Options for `navigator.credentials.create` (the first half of {@link registerPasskey}), given
   * for the password or a current code.
   */
  passkeyOptions(proof: Reauthentication, call?: CallOptions<PasskeyOptionsAnswer>): Promise<PasskeyOptionsAnswer> {
    return this.#call('passkeyOptions', proof, call);
  }

  /** Store the browser's answer to {@link passkeyOptions} as a passkey (the second half of {@link registerPasskey}). */
  passkeyRegister(
    response: Record<string, unknown>,
    name?: string,
    call?: CallOptions<PasskeyAnswer>,
  ): Promise<PasskeyAnswer> {
    return this.#call('passkeyRegister', { response, ...(name ? { name } : {}) }, call);
  }

  /** The own passkeys. */
  passkeys(call?: CallOptions<PasskeysAnswer>): Promise<PasskeysAnswer> {
    return this.#call('passkeys', {}, call);
  }

  renamePasskey(id: string, name: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('renamePasskey', { id, name }, call);
  }

  /** Remove one of the own passkeys, with the password or a current code again. */
  removePasskey(id: string, proof: Reauthentication, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('removePasskey', { id, ...proof }, call);
  }

  /**
   * The second step of a sign-in with a passkey instead of a code, in a browser: the challenge
   * of `second_factor_required` (its `methods` include `passkey`). Keeps the token unless
   * `store: false`; with `cookie: true` it is `signin2`'s (the server sets the cookie).
   */
  async passkeySecondStep(
    challenge: string,
    call: CallOptions<Token2Answer> & { store?: boolean; cookie?: boolean } = {},
  ): Promise<Token2Answer | Signin2Answer> {
    const { cookie, ...rest } = call;
    const { options } = await this.passkeySigninOptions(challenge);
    const passkey = { ...(await startAuthentication({ optionsJSON: options })) };
    return cookie ? this.signin2(challenge, { passkey }) : this.token2(challenge, { passkey }, rest);
  }

  /**
   * Options for `navigator.credentials.get` (the first half of {@link signinWithPasskey}); with a
   * sign-in's `challenge`, for its second step ({@link passkeySecondStep}).
   */
  passkeySigninOptions(
    challenge?: string,
    call?: CallOptions<PasskeySigninOptionsAnswer>,
  ): Promise<PasskeySigninOptionsAnswer> {
    return this.#call('passkeySigninOptions', challenge ? { challenge } : {}, call);
  }

  /** A token for the browser's answer to {@link passkeySigninOptions}; kept unless `store: false`. */
  passkeyToken(
    response: Record<string, unknown>,
    call: CallOptions<TokenAnswer> & { store?: boolean } = {},
  ): Promise<TokenAnswer> {
    return this.#issuing('passkeyToken', { response }, call);
  }

  /** As {@link passkeyToken}, in cookie mode: the server sets the `auth` cookie. */
  passkeySignin(response: Record<string, unknown>, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('passkeySignin', { response }, call);
  }

  /** Sign in with the HttpOnly cookie `auth`, which the browser keeps and sends (cookie mode). */
  signin(identity: string, password: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('signin', { identity, password }, call);
  }

  /** Revoke this connector's token (header or cookie) on the server, clear the cookie, and forget the token. */
  signout(call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#ending('signout', call);
  }

  /** The own sessions: how each was signed into, device, address, created, last used; `current` is this one. */
  sessions(call?: CallOptions<SessionsAnswer>): Promise<SessionsAnswer> {
    return this.#call('sessions', {}, call);
  }

  /** End one of the own sessions by its `id` (from {@link sessions}). */
  revokeSession(id: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('revokeSession', { session: id }, call);
  }

  /** End every own session but this connector's. */
  revokeOtherSessions(call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('revokeOtherSessions', {}, call);
  }

  // Second factor

  /** The own second factor: a confirmed authenticator, recovery codes left, whether one is required. */
  secondFactor(call?: CallOptions<FactorState>): Promise<FactorState> {
    return this.#call('secondFactor', {}, call);
  }

  /**
   * A new authenticator (TOTP) secret: show `qrSvg` (or `secret` to type), then confirm with
   * {@link totpConfirm}. With the `challenge` of a sign-in that must enrol, for that account: the
   * first code then goes to {@link token2} or {@link signin2}, which sign in.
   */
  totpEnrol(challenge?: string, call?: CallOptions<TotpSetup>): Promise<TotpSetup> {
    return this.#call('totpEnrol', challenge === undefined ? {} : { challenge }, call);
  }

  /**
   * Confirm the new authenticator with its first code and the account's password; answers the
   * recovery codes, shown this once.
   */
  totpConfirm(code: string, password: string, call?: CallOptions<RecoveryCodesAnswer>): Promise<RecoveryCodesAnswer> {
    return this.#call('totpConfirm', { code, password }, call);
  }

  /** Remove the authenticator and the recovery codes (the password or a current code again). */
  totpRemove(proof: Reauthentication, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('totpRemove', proof, call);
  }

  /** New recovery codes in place of the old ones (the password or a current code again). */
  recoveryCodes(proof: Reauthentication, call?: CallOptions<RecoveryCodesAnswer>): Promise<RecoveryCodesAnswer> {
    return this.#call('recoveryCodes', proof, call);
  }

  // Codes by SMS

  /**
   * Add a phone number (any common notation; answered in E.164): a code is sent to it, which
   * {@link smsConfirm} takes. The password (or a current app code) again.
   */
  smsAdd(phone: string, proof: Reauthentication, call?: CallOptions<SmsAddAnswer>): Promise<SmsAddAnswer> {
    return this.#call('smsAdd', { phone, ...proof }, call);
  }

  /** Confirm the number being added with its code; answers new recovery codes, shown this once. */
  smsConfirm(code: string, call?: CallOptions<RecoveryCodesAnswer>): Promise<RecoveryCodesAnswer> {
    return this.#call('smsConfirm', { code }, call);
  }

  /** Remove the own phone number (the password or a current app code again). */
  smsRemove(proof: Reauthentication, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('smsRemove', proof, call);
  }

  /** The own confirmed phone number and the one being added. */
  smsPhone(call?: CallOptions<SmsPhoneAnswer>): Promise<SmsPhoneAnswer> {
    return this.#call('smsPhone', {}, call);
  }

  /** Sign-in by SMS (when an administrator granted `smsSignin`): a code to the number's account. */
  smsSignin(phone: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('smsSignin', { phone }, call);
  }

  /** A session for the number with the code it got; the connector keeps the token unless `store: false`. */
  smsSignin2(
    phone: string,
    code: string,
    call: CallOptions<TokenAnswer> & { store?: boolean } = {},
  ): Promise<TokenAnswer> {
    return this.#issuing('smsSignin2', { phone, code }, call);
  }

  /** Send the second step's code to the challenged account's phone; then {@link token2} with `{ smsCode }`. */
  smsChallenge(challenge: string, call?: CallOptions<SmsSentAnswer>): Promise<SmsSentAnswer> {
    return this.#call('smsChallenge', { challenge }, call);
  }

  // The signed-in user

  /** `{name, realname, email, id, reference}` of the signed-in user. */
  identity(call?: CallOptions<Identity>): Promise<Identity> {
    return this.#call('identity', {}, call);
  }

  /** `{name, realname}`; `name` holds the email under the identity policy `email`. */
  name(call?: CallOptions<NameAnswer>): Promise<NameAnswer> {
    return this.#call('name', {}, call);
  }

  profile(call?: CallOptions<Profile>): Promise<Profile> {
    return this.#call('profile', {}, call);
  }

  /** `{result}`: signed in, and with `groups` a member of at least one of them? */
  authenticated(groups?: string | string[], call?: CallOptions<{ result: boolean }>): Promise<{ result: boolean }> {
    return this.#call('authenticated', { groups }, call);
  }

  /** Does the caller hold these permissions? */
  allowed(permissions: string | string[], call?: CallOptions<AllowedAnswer>): Promise<AllowedAnswer> {
    return this.#call('allowed', { permission: permissions }, call);
  }

  /**
   * A new anonymous account and its session (granted with `signinAnonymous` first): the connector
   * keeps the token unless `store: false`; {@link upgradeAnonymous} makes it a full account.
   */
  signinAnonymous(call: CallOptions<AnonymousAnswer> & { store?: boolean } = {}): Promise<AnonymousAnswer> {
    return this.#issuing('signinAnonymous', {}, call);
  }

  /**
   * The signed-in anonymous account becomes a full one with the same id, its items and files kept.
   * An `email` is mailed a verification and becomes the account's when it is answered (`verifyEmail2`).
   */
  upgradeAnonymous(
    name: string,
    password: string,
    fields: ProfileFields & { email?: string } = {},
    call?: CallOptions<DoneAnswer>,
  ): Promise<DoneAnswer> {
    return this.#call('upgradeAnonymous', { name, password, ...fields }, call);
  }

  /** A session for an ID token an app got on the device (Sign in with Apple, Google), with its nonce. */
  signinIdToken(
    provider: string,
    idToken: string,
    nonce: string,
    call: CallOptions<TokenAnswer> & { store?: boolean } = {},
  ): Promise<TokenAnswer> {
    return this.#issuing('signinIdToken', { provider, idToken, nonce }, call);
  }

  // Sign-up and activation (each policy must be granted with setPermissions first)

  /** Sign up, active at once. */
  signupDirect(
    name: string,
    email: string,
    password: string,
    fields: ProfileFields = {},
    call?: CallOptions<DoneAnswer>,
  ): Promise<DoneAnswer> {
    return this.#call('signupDirect', { ...fields, name, email, password }, call);
  }

  /** Sign up, pending until the mailed activation token is used ({@link activate}). */
  signupOptin(
    name: string,
    email: string,
    password: string,
    fields: ProfileFields = {},
    call?: CallOptions<DoneAnswer>,
  ): Promise<DoneAnswer> {
    return this.#call('signupOptin', { ...fields, name, email, password }, call);
  }

  /** Sign up, pending until an administrator reviews the account ({@link review}). */
  signupReview(
    name: string,
    email: string,
    password: string,
    fields: ProfileFields = {},
    call?: CallOptions<DoneAnswer>,
  ): Promise<DoneAnswer> {
    return this.#call('signupReview', { ...fields, name, email, password }, call);
  }

  /** Sign up, active, with a generated password sent by mail. */
  signupSendpw(
    name: string,
    email: string,
    fields: ProfileFields = {},
    call?: CallOptions<DoneAnswer>,
  ): Promise<DoneAnswer> {
    return this.#call('signupSendpw', { ...fields, name, email }, call);
  }

  /** Sign up with a generated name, answered as `name`; the email may be left out under the identity policy `name`. */
  signupUid(
    password: string,
    email?: string,
    fields: ProfileFields = {},
    call?: CallOptions<SignupUidAnswer>,
  ): Promise<SignupUidAnswer> {
    return this.#call('signupUid', { ...fields, password, email }, call);
  }

  /** Activate a pending account with its mailed token. */
  activate(token: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('activate', { token }, call);
  }

  // Changing the own account

  /** Change realname, notify or data. */
  update(fields: ProfileFields, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('update', fields, call);
  }

  /** Change the password (other sessions of the user are revoked). */
  updatePassword(password: string, newpassword: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('updatePassword', { password, newpassword }, call);
  }

  /** Change the email at once, without verification (administrators by default). */
  updateEmail(email: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('updateEmail', { email }, call);
  }

  /** The original connectors' name of {@link updateEmail}. */
  updateMail(email: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.updateEmail(email, call);
  }

  /** Mail a verification token to a new address; {@link verifyEmail2} takes the address. */
  verifyEmail(email: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('verifyEmail', { email }, call);
  }

  verifyEmail2(token: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('verifyEmail2', { token }, call);
  }

  /** Mail a reset token (the answer is the same whether or not the account exists). */
  resetPassword(identity: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('resetPassword', { identity }, call);
  }

  resetPassword2(token: string, newpassword: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('resetPassword2', { token, newpassword }, call);
  }

  /** Mail a message (at most 5000 characters) to the administrator. */
  message(message: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('message', { message }, call);
  }

  /** Disable the own account and sign out. */
  disable(call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#ending('disable', call);
  }

  /** Remove the own account for good. */
  delete(call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#ending('delete', call);
  }

  // Administrator functions

  /** Review a pending sign-up. */
  review(identity: string, action: ReviewAction, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('review', { identity, action }, call);
  }

  /** A user by name, email or id. */
  getUser(identity: string, call?: CallOptions<UserAnswer>): Promise<UserAnswer> {
    return this.#call('getUser', { identity }, call);
  }

  setUser(identity: string, values: UserValues, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('setUser', { identity, values }, call);
  }

  removeUser(identity: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('removeUser', { identity }, call);
  }

  /** A user's second factor, by name, email or id. */
  userFactors(identity: string, call?: CallOptions<FactorState>): Promise<FactorState> {
    return this.#call('userFactors', { identity }, call);
  }

  /** Remove a user's authenticator and recovery codes (a lost phone); the password alone signs in again. */
  resetSecondFactor(identity: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('resetSecondFactor', { identity }, call);
  }

  /** A user's sessions, by name, email or id. */
  userSessions(identity: string, call?: CallOptions<SessionsAnswer>): Promise<SessionsAnswer> {
    return this.#call('userSessions', { identity }, call);
  }

  /** End one session of a user (its `id` from {@link userSessions}), or all of them. */
  revokeUserSessions(identity: string, session?: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('revokeUserSessions', session === undefined ? { identity } : { identity, session }, call);
  }

  /** Users with their profiles, a page at a time. */
  list(search: UserSearch = {}, call?: CallOptions<UsersPage<UserRecord>>): Promise<UsersPage<UserRecord>> {
    return this.#call('list', search, call);
  }

  /** Users as identities, a page at a time. */
  identities(search: UserSearch = {}, call?: CallOptions<UsersPage<Identity>>): Promise<UsersPage<Identity>> {
    return this.#call('identities', search, call);
  }

  getPermissions(call?: CallOptions<PermissionsAnswer>): Promise<PermissionsAnswer> {
    return this.#call('getPermissions', {}, call);
  }

  /** Add, replace or revoke groups of permission entries (`action` defaults to `add`). */
  setPermissions(
    permissions: PermissionChange | PermissionChange[],
    call?: CallOptions<PermissionsAnswer>,
  ): Promise<PermissionsAnswer> {
    return this.#call('setPermissions', { permissions }, call);
  }
}

/**
 * The challenge of a `second_factor_required` failure of `token` or `signin`, or null for any
 * other error: what {@link Users.token2} and {@link Users.signin2} need.
 */
/** The methods a second step may list (users/signin-challenge.ts), as `SecondFactorChallenge['methods']` names them. */
const SECOND_STEP_METHODS: readonly unknown[] = ['totp', 'recovery', 'passkey', 'sms-code'];

export function secondFactorChallenge(error: unknown): SecondFactorChallenge | null {
  if (!isRoostError(error) || error.code !== 'second_factor_required') return null;
  const { challenge, expires, methods, enrol } = error.body;
  if (typeof challenge !== 'string') return null;
  return {
    challenge,
    expires: typeof expires === 'number' ? expires : 0,
    methods: Array.isArray(methods)
      ? (methods.filter((m) => SECOND_STEP_METHODS.includes(m)) as SecondFactorChallenge['methods'])
      : [],
    enrol: enrol === true,
  };
}
