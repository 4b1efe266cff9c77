import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { defineErrors, isRoostError } from '../core/errors.js';
import type {
  AfterContext,
  AfterHookPoint,
  AfterHookPoints,
  BeforeContext,
  HookPoint,
  HookPoints,
  HookRunner,
  HookStat,
  WriteTransaction,
} from '../core/hooks.js';
import { newId } from '../core/ids.js';
import { withinTime } from '../core/time-limit.js';
import { defineJob, doubling, JobFailure, jobType, type JobKind } from '../core/jobs.js';
import type { Principal } from '../core/permissions.js';
import { createJobStore } from '../storage/job-store.js';
import type { Database } from '../storage/schema.js';
import { servicesAs, SYSTEM_CALLER, type ServicesAs, type ServicesAsDeps } from './services-as.js';

/**
 * The hooks registry (issue 40, docs/hooks.md): what `roost.hooks.before/after` register, and the
 * `HookRunner` the domains call (core/hooks.ts). Before-hooks run in the caller's request, before
 * the write's transaction opens (on SQLite that transaction holds the one connection: a hook that
 * calls a service inside it would wait for itself; docs/decisions.md); after-hooks are jobs of
 * the durable queue stored in the write's own transaction (`after`), run by the `hook` kind.
 */

export const hookErrors = defineErrors({
  hook_timeout: { kind: 'unavailable', message: 'The server took too long to check this request. Try again.' },
});

/** What a hook is registered for: a part of its point (`{ collection: 'posts' }`, `{ store: 'data' }`). */
export type HookFilter<E> = { [K in keyof E as E[K] extends string ? K : never]?: string };

export interface HookOptions {
  /**
   * The hook's name in the log, /metrics and the jobs page; unique. Default: its file, `before` or
   * `after`, and its point (`<file> before record.create`), ` #2` for a second such hook.
   */
  name?: string;
  /** Hooks of one point run by `order`, lowest first, then in the order they were registered (default 0). */
  order?: number;
  /** Its time limit in ms (default `hooks.timeoutSeconds`; an after-hook's is at most that). */
  timeoutMs?: number;
}

/** What every hook gets besides its point's own members. */
interface HookExtras {
  /** The hook's name. */
  readonly hook: string;
  /** The services as the write's caller sees them (extend/services-as.ts, as a route's handler gets them). */
  readonly services: ServicesAs;
  /** The services as the system: a program that administers, for what the hook itself vouches for. */
  asSystem(): ServicesAs;
}

/** A before-hook: changes `input` in place and returns nothing, or returns the input to write instead. */
export type BeforeHook<P extends HookPoint> = (
  context: BeforeContext<P> & HookExtras,
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that changes its input in place returns nothing
) => void | HookPoints[P]['input'] | Promise<void | HookPoints[P]['input']>;

export type AfterHook<P extends AfterHookPoint> = (
  context: AfterContext<P> & HookExtras & { readonly jobId: string },
) => unknown;

/** `roost.hooks` as an extension gets it (extend/extension.ts). */
export interface ExtensionHooks {
  before<P extends HookPoint>(point: P, fn: BeforeHook<P>, options?: HookOptions): void;
  before<P extends HookPoint>(
    point: P,
    filter: HookFilter<HookPoints[P]>,
    fn: BeforeHook<P>,
    options?: HookOptions,
  ): void;
  after<P extends AfterHookPoint>(point: P, fn: AfterHook<P>, options?: HookOptions): void;
  after<P extends AfterHookPoint>(
    point: P,
    filter: HookFilter<AfterHookPoints[P]>,
    fn: AfterHook<P>,
    options?: HookOptions,
  ): void;
}

/** A registered hook; `fn` takes what its point hands (checked at registration by `ExtensionHooks`). */
interface Hook {
  name: string;
  point: string;
  filter: Readonly<Record<string, string>>;
  order: number;
  seq: number;
  timeoutMs: number;
  fn: (context: never) => unknown;
}

/** An after-hook's job: which hook, and what it is handed (core/jobs.ts payload, JSON). */
interface AfterPayload {
  hook: string;
  context: Record<string, unknown> & { point: string; caller: Principal };
}

const hookJob = jobType<AfterPayload>('hook');

/** The services a hook may ask, made once per registry: the system's view is the same for every hook. */
interface HookViews {
  of(caller: Principal): ServicesAs;
  system(): ServicesAs;
}

/**
 * What a hook is handed: its point's context as own members, its name, and the services as
 * prototype members, made only when a hook asks for them. No closure is made per run: under tsx
 * each one costs a `defineProperty` (esbuild's keepNames), and a hook runs on every write it is
 * registered for (bench/suite-hooks.ts).
 */
class HookArgs implements HookExtras {
  declare readonly caller: Principal;
  readonly #views: HookViews;
  #services: ServicesAs | undefined;
  constructor(
    context: object,
    readonly hook: string,
    views: HookViews,
  ) {
    Object.assign(this, context);
    this.#views = views;
  }
  get services(): ServicesAs {
    this.#services ??= this.#views.of(this.caller);
    return this.#services;
  }
  /** A function of the registry's own, so that a hook may take it apart (`({ asSystem }) => asSystem()`). */
  get asSystem(): () => ServicesAs {
    return this.#views.system;
  }
}

export interface HookRegistryDeps {
  clock: Clock;
  /** `hooks.timeoutSeconds` in ms. */
  timeoutMs: number;
  /** After-hooks' tries in all, and the wait before the second (doubling after). */
  maxAttempts: number;
  retryMs: number;
  /** The services a hook's view is made of (extend/services-as.ts). */
  services: () => ServicesAsDeps;
  /** A failure that is not the caller's (a throw, a time limit), with the hook's name (the log). */
  onFailure: (err: unknown, hook: string, point: string) => void;
}

export interface HookRegistry extends HookRunner {
  /** The API of one extension, whose hooks are named after `source` (its file) unless they say a `name`. */
  api(source: string): ExtensionHooks;
  /** The job kind that runs the after-hooks (one line in services.ts's list). */
  readonly job: JobKind;
  /** The runs of each hook in this process so far, by outcome (/metrics). */
  stats(): HookStat[];
}

/** A filter holds when each of its members equals the context's. */
function matches(filter: Readonly<Record<string, string>>, context: object): boolean {
  for (const key in filter) if ((context as Record<string, unknown>)[key] !== filter[key]) return false;
  return true;
}

class HookTimeout extends Error {}

/** The context after a before-hook: the input it returned, else its own (changed in place or not). */
function withInput<C>(context: C, handed: object, returned: unknown): C {
  const own = (handed as { input?: unknown }).input;
  return Object.assign({}, context, { input: returned === undefined ? own : returned });
}

export function createHookRegistry(deps: HookRegistryDeps): HookRegistry {
  const before = new Map<string, Hook[]>();
  const after = new Map<string, Hook[]>();
  const byName = new Map<string, Hook>();
  let seq = 0;
  const stats = new Map<string, HookStat>();
  function count(hook: Hook, outcome: HookStat['outcome'], seconds: number): void {
    const key = `${outcome} ${hook.name}`;
    const stat = stats.get(key);
    if (stat) {
      stat.runs++;
      stat.seconds += seconds;
    } else stats.set(key, { hook: hook.name, point: hook.point, outcome, runs: 1, seconds });
  }

  function register(when: 'before' | 'after', source: string, point: string, args: unknown[]): void {
    const table = when === 'before' ? before : after;
    const [filter, fn, options] =
      typeof args[0] === 'function'
        ? [{}, args[0], args[1] as HookOptions | undefined]
        : [args[0] as Record<string, string>, args[1], args[2] as HookOptions | undefined];
    if (typeof fn !== 'function') throw new TypeError(`a hook of ${point} must be a function`);
    const base = `${source} ${when} ${point}`;
    let name = options?.name ?? base;
    if (options?.name !== undefined && byName.has(name)) throw new Error(`a hook is named ${name} already`);
    for (let n = 2; byName.has(name); n++) name = `${base} #${n}`;
    const hook: Hook = {
      name,
      point,
      filter: { ...filter },
      order: options?.order ?? 0,
      seq: seq++,
      // An after-hook's limit is at most the configured one: its job's claim lasts that long (`job`).
      timeoutMs: Math.min(options?.timeoutMs ?? deps.timeoutMs, when === 'after' ? deps.timeoutMs : Infinity),
      fn: fn as Hook['fn'],
    };
    byName.set(name, hook);
    const list = [...(table.get(point) ?? []), hook].sort((a, b) => a.order - b.order || a.seq - b.seq);
    table.set(point, list);
  }

  /** A hook's services: as the caller (a principal alone: no session, no address), or as the system. */
  let system: ServicesAs | undefined;
  const views: HookViews = {
    of: (caller) => servicesAs(deps.services(), { principal: caller, user: null, tokenHash: null }),
    system: () => {
      system ??= servicesAs(deps.services(), SYSTEM_CALLER);
      return system;
    },
  };

  /** What a hook's throw becomes, counted: its refusal as it is, a time limit's 503, else a 500 naming it. */
  function failure(hook: Hook, err: unknown, started: number): unknown {
    const outcome = isRoostError(err) ? 'refused' : err instanceof HookTimeout ? 'timeout' : 'failed';
    count(hook, outcome, (performance.now() - started) / 1000);
    if (outcome === 'refused') return err;
    deps.onFailure(err, hook.name, hook.point);
    if (outcome === 'timeout') return hookErrors.hook_timeout({ cause: err });
    return new Error(`hook "${hook.name}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }

  /** A hook's promise within its time limit (the work goes on past it; its result is ignored). */
  async function timed(hook: Hook, work: Promise<unknown>, started: number): Promise<unknown> {
    const message = `hook "${hook.name}" ran over its time limit of ${hook.timeoutMs} ms`;
    try {
      const result = await withinTime(work, hook.timeoutMs, () => new HookTimeout(message));
      count(hook, 'ok', (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      throw failure(hook, err, started);
    }
  }

  /**
   * Runs one hook, counting the run: what it returned, at once when it answered at once (no
   * promise, no timer: a synchronous hook cannot be stopped anyway), else a promise of it within
   * its time limit. Writes keep their pace with a hook that does nothing (bench/suite-hooks.ts).
   */
  function attempt(hook: Hook, args: HookArgs): unknown {
    const started = performance.now();
    let result: unknown;
    try {
      result = hook.fn(args as never);
    } catch (err) {
      throw failure(hook, err, started);
    }
    if (result instanceof Promise) return timed(hook, result, started);
    count(hook, 'ok', (performance.now() - started) / 1000);
    return result;
  }

  /** The before-hooks of `hooks` from `from` on, in turn: synchronous as long as each answers at once. */
  function chain<C extends { readonly caller: Principal }>(
    hooks: readonly Hook[],
    from: number,
    context: C,
  ): C | Promise<C> {
    let current = context;
    for (let i = from; i < hooks.length; i++) {
      const hook = hooks[i] as Hook;
      if (!matches(hook.filter, current)) continue;
      // The context is handed as it is (a hook may change `input` in place), its extras beside.
      const handed = new HookArgs(current, hook.name, views);
      const outcome = attempt(hook, handed);
      if (outcome instanceof Promise) {
        const before = current;
        return outcome.then((returned) => chain(hooks, i + 1, withInput(before, handed, returned)));
      }
      current = withInput(current, handed, outcome);
    }
    return current;
  }

  const job = defineJob({
    type: hookJob,
    maxAttempts: deps.maxAttempts,
    retryDelayMs: doubling(deps.retryMs),
    // Longer than a try may take (its time limit), so that no other process claims it meanwhile.
    leaseMs: deps.timeoutMs + 2000,
    keepDone: true,
    async run(payload, stored) {
      const hook = byName.get(payload.hook);
      // Not registered in this process (a hook file removed or renamed): tried again, so that a
      // process that has it, or this one restarted with it, runs it.
      if (!hook) throw new JobFailure(`no after-hook named ${payload.hook} is registered in this process`);
      await attempt(hook, new HookArgs({ ...payload.context, jobId: stored.id }, hook.name, views));
      return undefined;
    },
  });

  return {
    job,
    has: (point) => before.has(point),
    hasAfter: (point) => after.has(point),
    before<P extends HookPoint>(point: P, context: BeforeContext<P>) {
      return chain(before.get(point) ?? [], 0, context);
    },
    async after(point, context: AfterContext<typeof point>, transaction: WriteTransaction) {
      const hooks = (after.get(point) ?? []).filter((hook) => matches(hook.filter, context));
      if (hooks.length === 0) return;
      const now = deps.clock.now();
      // The write's transaction, as the domain opened it (core/hooks.ts `WriteTransaction`).
      const store = createJobStore(transaction as Kysely<Database>);
      await store.add(
        hooks.map((hook) => ({
          id: newId(),
          kind: hookJob.name,
          subject: hook.name,
          key: null,
          payload: JSON.stringify({ hook: hook.name, context } satisfies AfterPayload),
          created: now,
          runAt: now,
          // The request whose write this is (core/jobs.ts `requestId`): the run's log line carries it.
          requestId: context.caller.requestId ?? null,
        })),
      );
    },
    api(source) {
      return {
        before: (point: string, ...args: unknown[]) => register('before', source, point, args),
        after: (point: string, ...args: unknown[]) => register('after', source, point, args),
      } as ExtensionHooks;
    },
    stats: () => [...stats.values()].map((stat) => ({ ...stat })),
  };
}
