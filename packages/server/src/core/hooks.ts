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
   */
  before<P extends HookPoint>(point: P, context: BeforeContext<P>): Promise<BeforeContext<P>>;
  /** Whether any before-hook is registered for `point`: the domains keep their fast path when none is. */
  has(point: HookPoint): boolean;
}
