import type { Principal } from './permissions.js';

/**
 * Hooks (issue 40, docs/hooks.md): the team's code that runs before a write, and may change its
 * input or refuse it with a `RoostError` the caller gets in Roost's failure body, and after it,
 * through the durable job queue (core/job-queue.ts). This file is the port the domains call;
 * the registry behind it is `extend/hooks.ts`, made by the composition root (services.ts).
 *
 * Every hookable step by its name: an open map each domain fills from its own folder by
 * declaration merging, as `RoostEvents` (core/events.ts), so that this file names none of them:
 *
 *   declare module '../core/hooks.js' {
 *     interface HookPoints { 'record.create': { collection: string; input: RecordInput } }
 *   }
 *
 * A point's entry is what a before-hook gets besides the caller: the `input` it may change in
 * place (or replace by returning a new one), and what the step is about (the collection, the
 * store, the path), by which a hook is registered for part of the point (`{ collection: 'posts' }`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as above
export interface HookPoints {}

export type HookPoint = keyof HookPoints;

/**
 * What an after-hook of a point is handed besides the caller: what was written, as its callers
 * read it (the record, the item), filled by each domain beside its `HookPoints` entry. It is
 * stored as JSON in the job that runs the hook (core/jobs.ts), so it holds data only.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as HookPoints
export interface AfterHookPoints {}

export type AfterHookPoint = keyof AfterHookPoints;

/** What an after-hook of `P` is handed (what the write stored, and who wrote it). */
export type AfterContext<P extends AfterHookPoint> = AfterHookPoints[P] & {
  readonly point: P;
  readonly caller: Principal;
};

/**
 * The write's open transaction, as the domain holds it (a Kysely transaction). Opaque here,
 * since core/ imports no Kysely: the registry (extend/hooks.ts) stores the after-hooks' jobs
 * through it, so that they commit with the write or not at all.
 */
export type WriteTransaction = object;

/** What a before-hook of `P` is handed. */
export type BeforeContext<P extends HookPoint> = HookPoints[P] & {
  readonly point: P;
  /** Who asks: the write runs as this caller, and a hook asks the services as it unless it says system. */
  readonly caller: Principal;
};

/** The port the domains hold (one that runs nothing when no hook is registered). */
export interface HookRunner {
  /**
   * Runs the before-hooks of `point` that match, in their stated order, each with a time limit;
   * resolves to the input to write (changed or replaced by the hooks), or rejects with the
   * refusal of the first that refuses (a `RoostError`), or a 500 for one that throws otherwise.
   * Synchronous while every hook answers at once: a caller awaits it all the same.
   */
  before<P extends HookPoint>(point: P, context: BeforeContext<P>): BeforeContext<P> | Promise<BeforeContext<P>>;
  /** Whether any before-hook is registered for `point`: the domains keep their fast path when none is. */
  has(point: HookPoint): boolean;
  /** Whether any after-hook is registered for `point`: the write then opens a transaction to store its jobs in. */
  hasAfter(point: AfterHookPoint): boolean;
  /**
   * Stores one job per matching after-hook of `point` in the write's transaction `within`: each
   * runs once the write has committed, on the durable job queue (core/job-queue.ts), retried
   * with backoff, and never lost on a restart since it commits with the write.
   */
  after<P extends AfterHookPoint>(point: P, context: AfterContext<P>, within: WriteTransaction): Promise<void>;
}

/** One hook's runs in this process by outcome, for /metrics (http/metrics.ts). */
export interface HookStat {
  hook: string;
  point: string;
  /** `ok`, `refused` (a `RoostError`: the hook said no), `failed` (it threw otherwise), `timeout`. */
  outcome: 'ok' | 'refused' | 'failed' | 'timeout';
  runs: number;
  /** Their time in all. */
  seconds: number;
}

/** No hook at all: the domains' default, and what a CLI command opens the services with. */
export const NO_HOOKS: HookRunner = {
  before: (_point, context) => context,
  has: () => false,
  hasAfter: () => false,
  after: async () => {},
};
