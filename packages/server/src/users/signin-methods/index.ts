import type { MethodFigure, MethodFigureValues, MethodOps, SigninMethod } from '../signin-method.js';
import { anonymousMethod } from './anonymous/index.js';
import { idTokenMethod } from './id-token/index.js';
import { mailCodeMethod } from './mail-code/index.js';
import { passkeyMethod } from './passkey/index.js';
import { recoveryMethod } from './recovery/index.js';
import { smsCodeMethod } from './sms-code/index.js';
import { totpMethod } from './totp/index.js';

/**
 * The sign-in methods that bring all of themselves (users/signin-method.ts), the one list of
 * them: the service makes each, merges its operations and permissions, and asks its hooks in the
 * second-factor rules, the account's summary and the purge. A new method is a folder beside
 * mail-code/, passkey/, totp/, recovery/, anonymous/, id-token/ and sms-code/ and a line here
 * (and, for its protocol rows and page parts, a line in http/protocol/signin-methods/index.ts
 * and admin/signin-methods/index.ts, in the same order; docs/architecture.md, "Adding a sign-in method").
 */
export const SIGNIN_METHODS = [
  mailCodeMethod,
  totpMethod,
  recoveryMethod,
  passkeyMethod,
  anonymousMethod,
  idTokenMethod,
  smsCodeMethod,
] as const;

type Listed = (typeof SIGNIN_METHODS)[number];
type LabelOf<M> = M extends SigninMethod<MethodOps, infer L, MethodFigureValues> ? L : never;
type InputsOf<M> = M extends SigninMethod<MethodOps, string, MethodFigureValues, infer I> ? I : never;
type FiguresOf<M> = M extends SigninMethod<MethodOps, string, infer F> ? F : never;
type OpsOf<M> = M extends SigninMethod<infer O, string, MethodFigureValues> ? O : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * The sessions the service's own ways of signing in start (the password, providers), with
 * their words on the pages; the methods add theirs.
 */
const CORE_SESSION_LABELS = {
  password: 'Password',
  provider: 'A sign-in provider',
  impersonation: 'Impersonation by an administrator',
} as const;

/** How a session was signed into (`sessions.method`): derived from the methods, never written by hand. */
export type SessionMethod = keyof typeof CORE_SESSION_LABELS | LabelOf<Listed>;

/** Every session label with its words, in the order of the list. */
export const SESSION_LABELS: Readonly<Record<SessionMethod, string>> = Object.assign(
  { ...CORE_SESSION_LABELS },
  ...SIGNIN_METHODS.map((m) => m.sessionLabels),
);

/** The listed methods' figures in an account's second-factor summary. */
export type MethodFigures = Intersection<FiguresOf<Listed>>;

/** The listed methods' figures of an account's second-factor summary, with their words, in the order of the list. */
export const METHOD_FIGURES: Readonly<Record<keyof MethodFigures, MethodFigure>> = Object.assign(
  {},
  ...SIGNIN_METHODS.map((m) => m.figures),
);
/** Every listed method's input schemas. */
export type SigninMethodInputs = Intersection<InputsOf<Listed>>;
/** Every listed method's operations, as the user service hands them out. */
export type SigninMethodOps = Intersection<OpsOf<Listed>>;
