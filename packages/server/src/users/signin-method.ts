import type { Kysely } from 'kysely';
import type { ZodType } from 'zod';
import type { Config } from '../core/config.js';
import type { ErrorKind } from '../core/errors.js';
import type { SmsQueue } from '../core/sms.js';
import type { Database } from '../storage/schema.js';
import type { Caller, UserContext } from './user-context.js';
import type { User } from './user-repo.js';

/**
 * A way to sign in that brings all of itself, as Better Auth's plugins do (github.com/better-auth/better-auth:
 * the passkey package brings schema, routes and error codes beside one object): its tables'
 * repository, its inputs and error codes, its operations, the label its sessions carry, its step
 * in the second-factor rules and its figures in an account's summary. The service knows methods
 * only through this interface and the one list of them (signin-methods/index.ts); the protocol
 * table (http/protocol/signin-methods/) and the pages' part (admin/signin-methods/) of a method
 * sit in matching folders of their layers, keyed by the method's id. docs/architecture.md,
 * "Adding a sign-in method", lists the files.
 */
export interface SigninMethod<
  Ops extends MethodOps,
  Label extends string,
  Figures extends MethodFigureValues,
  Inputs extends Readonly<Record<string, ZodType>> = Readonly<Record<string, ZodType>>,
> {
  id: string;
  /** The sessions it starts, by the label a session keeps (`sessions.method`), and their words on the pages. */
  sessionLabels: Readonly<Record<Label, string>>;
  /** Its figures in the summary of an account's second factor (`secondFactor`, `userFactors`), with their words. */
  figures: { readonly [K in keyof Figures]: MethodFigure };
  /** Its operations' input schemas, joined to the service's `inputs` (the protocol documents them). */
  inputs: Inputs;
  /** Its error codes (defineErrors of core/errors.ts; each listed in docs/errors.md). */
  errors: { codes: Readonly<Record<string, { kind: ErrorKind; message: string }>> };
  /** Each operation's default permission entry: an operation is guarded by the permission of its name. */
  permissions: { readonly [K in keyof Ops]: readonly string[] };
  /** Its fields in the second step's input (users/signin-challenge.ts), when it can be a second step. */
  secondStepInput?: Readonly<Record<string, ZodType>>;
  /** Its repository over its own tables (their migration is in storage/migrations/), its operations, its hooks. */
  create(ctx: UserContext, deps: MethodDeps): { ops: Ops; hooks: MethodHooks<Figures, Label> };
}

/** A method's figures of an account: counts, or yes and no (`{ passkeys: 2 }`, `{ totp: true }`). */
export type MethodFigureValues = Record<string, number | boolean>;

/** An operation of a method, as the service hands it out: a caller and an input, a promise. */
export type MethodOps = Record<string, (caller: Caller, input: never) => Promise<unknown>>;

export interface MethodFigure {
  /** How a page names it ('Passkeys'). */
  label: string;
  /** What it counts, for /openapi.json. */
  description: string;
  /** A yes or no (an authenticator app set up), not a count. */
  flag?: true;
  /**
   * Placed before the account's own members (`required`, `providers`) in the summary: where the
   * answer has had the authenticator app and its recovery codes since they came (docs/users.md).
   */
  leads?: true;
}

/** What the methods answer once beside a newly confirmed factor (new recovery codes). */
export interface FactorConfirmed {
  recoveryCodes?: string[];
}

/**
 * What a method gets beside the service's context: the database for its repository, the boot
 * configuration, and the queue texts leave by (core/sms.ts; null without a sender).
 */
interface MethodDeps {
  db: Kysely<Database>;
  config: Config;
  sms: SmsQueue | null;
}

/** What the service's shared rules ask of a method once it is made (`UserContext.methods`). */
export interface MethodHooks<Figures extends MethodFigureValues = MethodFigureValues, Label extends string = string> {
  id: string;
  /** Its step in the second-factor rules (signin-challenge.ts). */
  secondStep?: {
    /** The second step's input field with this method's answer (one of `secondStepInput`). */
    field: string;
    /** The label of the session it starts. */
    label: Label;
    /**
     * Whether having it makes the password alone not enough (an authenticator app); a factor
     * that is only offered (a passkey, recovery codes) is asked for when another one is.
     */
    demanded?: true;
    /** Whether the account has this factor: its challenge lists it, and it needs no enrolment. */
    has(user: User): Promise<boolean>;
    /**
     * Whether the second step's answer proves the challenged account; `enrolling`: the answer
     * of a factor being set up during the sign-in (an `enrol` challenge, only for a method with `enrol`).
     */
    verify(user: User, answer: unknown, enrolling: boolean): Promise<boolean>;
    /** Confirms the factor set up during a sign-in once its first answer was right. */
    enrol?(user: User): Promise<void>;
  };
  /** Its answer to a re-authentication (user-context.ts `reauthenticate`): the field it reads and its check. */
  reauthentication?: { field: string; verify(user: User, answer: string): Promise<boolean> };
  /** Told that a factor of the account was confirmed: what to answer once beside it (signin-challenge.ts). */
  factorConfirmed?(user: User): Promise<FactorConfirmed>;
  /** Removes what it keeps of the account's second factor (the own removal of it, an administrator's reset). */
  resetFactor?(user: User): Promise<void>;
  /** The account's figures (`{ passkeys: 2 }`). */
  figures(user: User): Promise<Figures>;
  /** Deletes its expired rows (the hourly purge of services.ts): how many went. */
  purgeExpired?(now: number): Promise<number>;
}
