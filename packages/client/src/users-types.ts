import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import type { Order, Page } from './shared-types.js';

/** The signed-in user (`identity`), also the entries of `identities`. `reference` is the original's name of `id`. */
export interface Identity {
  name: string;
  realname: string;
  email: string;
  id: string;
  reference: string;
}

/** `name`: under the identity policy `email`, `name` holds the email. */
export interface NameAnswer {
  name: string;
  realname: string;
}

/**
 * `profile`: the signed-in user's profile. Times are `YYYY/MM/DD hh:mm:ss`
 * (UTC); `activity` is `""` before the first sign-in.
 */
export interface Profile extends Identity {
  /** Always a string: an object given to `update` is kept as its JSON text. */
  data: string;
  activity: string;
  notify: boolean;
  active: boolean;
  pending: boolean;
  groups: string[];
}

/** A user as administrators see it (`getUser`, `list`): the profile plus its state and creation time. */
export interface UserRecord extends Profile {
  state: 'active' | 'pending' | 'disabled';
  created: string;
}

/** `getUser`. */
export type UserAnswer = UserRecord & { result: true };

/**
 * `challenge`: a proof-of-work challenge in ALTCHA's shape (`parameters` and `signature`, what
 * altcha-lib's `solveChallenge` and the ALTCHA widget read), and whether it is asked for now.
 */
export interface ChallengeAnswer {
  result: true;
  required: boolean;
  parameters: Record<string, unknown>;
  signature: string;
}

/** `signinAnonymous`: the new anonymous account's session, id and generated name. */
export interface AnonymousAnswer extends TokenAnswer {
  id: string;
  name: string;
}

/** `token`: `expires` in milliseconds since the epoch. */
export interface TokenAnswer {
  result: true;
  token: string;
  expires: number;
}

/** `signupUid`: the generated 30-character name. */
export interface SignupUidAnswer {
  result: true;
  name: string;
}

/** Profile fields that sign-ups and `update` take. `data` may be an object: it is stored as its JSON text. */
export interface ProfileFields {
  realname?: string;
  notify?: boolean;
  data?: string | Record<string, unknown>;
}

export type ReviewAction = 'accept' | 'optin' | 'activate' | 'reject' | 'disable';

/**
 * What `setUser` may change: `active: false` disables (and signs
 * out), `pending: true` puts the account back into review.
 */
export interface UserValues extends ProfileFields {
  name?: string;
  email?: string;
  groups?: string[];
  password?: string;
  active?: boolean;
  pending?: boolean;
}

/** Search and paging of `list` and `identities`; `name`, `email` and `search` match substrings. */
export interface UserSearch {
  active?: boolean;
  pending?: boolean;
  name?: string;
  email?: string;
  search?: string;
  group?: string;
  start?: number;
  size?: number;
  sort?: 'name' | 'email' | 'realname' | 'activity' | 'created';
  order?: Order;
}

/** A page of users (`list`: {@link UserRecord}; `identities`: {@link Identity}). */
export interface UsersPage<T> extends Page {
  users: T[];
}

/**
 * What `token` and `signin` carry in their failure `second_factor_required` (the error's `body`):
 * the challenge for the second step (`token2`, `signin2`), when it expires, the methods the
 * account has, and whether it must set up an authenticator first (`totpEnrol` with the challenge).
 */
export interface SecondFactorChallenge {
  challenge: string;
  expires: number;
  /** `sms-code`: `smsChallenge` sends the code, `token2` takes it as `smsCode`. */
  methods: Array<'totp' | 'recovery' | 'passkey' | 'sms-code'>;
  enrol: boolean;
}

/** The second step's proof: a code of the authenticator app, or one of the recovery codes. */
export type SecondFactorProof =
  | { code: string }
  | { recoveryCode: string }
  /** The code `smsChallenge` sent to the account's phone. */
  | { smsCode: string }
  /** The browser's answer to `passkeySigninOptions(challenge)` (see `Users.passkeySecondStep`). */
  | { passkey: Record<string, unknown> };

/**
 * The password, or a current code of the authenticator: asked again before a change of how the
 * account signs in (the authenticator, its recovery codes, a passkey, a linked provider).
 */
export type Reauthentication = { password: string } | { code: string };

/** `token2`: the session's token; `recoveryCodes` when this sign-in also confirmed a new authenticator. */
export interface Token2Answer extends TokenAnswer {
  recoveryCodes?: string[];
}

/** `signin2`: `recoveryCodes` when this sign-in also confirmed a new authenticator. */
export interface Signin2Answer {
  result: true;
  recoveryCodes?: string[];
}

/** `secondFactor`, `userFactors`. */
export interface FactorState {
  result: true;
  /** A confirmed authenticator app. */
  totp: boolean;
  /** Recovery codes left. */
  recoveryCodes: number;
  /** An administrator requires a second factor of this account. */
  required: boolean;
  /** The sign-in providers linked to the account, by id. */
  providers: string[];
  /** How many passkeys the account has. */
  passkeys: number;
  /** A confirmed phone for codes by SMS. */
  sms: boolean;
}

/** `passkeyOptions`: WebAuthn options as JSON, for `startRegistration` of @simplewebauthn/browser. */
export interface PasskeyOptionsAnswer {
  result: true;
  options: PublicKeyCredentialCreationOptionsJSON;
}

/** `passkeySigninOptions`: WebAuthn options as JSON, for `startAuthentication` of @simplewebauthn/browser. */
export interface PasskeySigninOptionsAnswer {
  result: true;
  options: PublicKeyCredentialRequestOptionsJSON;
}

/** A passkey of the own account; times in milliseconds since the epoch. */
export interface PasskeyEntry {
  id: string;
  name: string;
  created: number;
  lastUsed: number | null;
}

/** `passkeyRegister`: the new passkey. */
export interface PasskeyAnswer {
  result: true;
  passkey: PasskeyEntry;
}

/** `passkeys`: the own passkeys. */
export interface PasskeysAnswer {
  result: true;
  passkeys: PasskeyEntry[];
}

/** `providers`: the enabled sign-in providers, for the buttons ("Sign in with `label`"). */
export interface ProvidersAnswer {
  result: true;
  providers: { id: string; label: string }[];
}

/** `providerLinks`: the providers linked to the own account; `created` in milliseconds since the epoch. */
export interface ProviderLinksAnswer {
  result: true;
  providers: { provider: string; label: string; email: string | null; created: number }[];
}

/** `totpEnrol`: the key to type by hand, the `otpauth://` link, and that link as an SVG QR code. */
export interface TotpSetup {
  result: true;
  secret: string;
  uri: string;
  qrSvg: string;
}

/** `totpConfirm`, `recoveryCodes`: ten codes, each good for one sign-in, shown this once. */
export interface RecoveryCodesAnswer {
  result: true;
  recoveryCodes: string[];
}

/** One session of `sessions` and `userSessions`; times in milliseconds since the epoch. */
export interface SessionEntry {
  id: string;
  method: 'password' | 'totp' | 'recovery' | 'mail' | 'provider' | 'passkey' | 'sms' | 'smsStep';
  /** The User-Agent the session started from. */
  device: string;
  address: string;
  created: number;
  /** To about five minutes. */
  lastUsed: number;
  expires: number;
  /** The session of this connector. */
  current: boolean;
}

export interface SessionsAnswer {
  result: true;
  sessions: SessionEntry[];
}

/** `smsChallenge`: when the code stops working, and whether the gateway took it (`retrying`: tried again later). */
export interface SmsSentAnswer {
  result: true;
  expires: number;
  delivery: 'sent' | 'retrying' | 'failed';
}

/** `smsAdd`: the number in E.164 the code went to. */
export interface SmsAddAnswer extends SmsSentAnswer {
  phone: string;
}

/** `smsPhone`: the confirmed number and one being added, in E.164, or null. */
export interface SmsPhoneAnswer {
  result: true;
  phone: string | null;
  pending: string | null;
}
