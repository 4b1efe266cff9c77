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

/** Runs `work` or rejects with a `HookTimeout` after `ms` (the work goes on; its result is ignored). */
async function within<T>(ms: number, hook: string, work: () => T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookTimeout(`hook "${hook}" ran over its time limit of ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(work), limit]);
  } finally {
    clearTimeout(timer);
  }
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
  const extras = (hook: Hook, caller: Principal): HookExtras => ({
    hook: hook.name,
    services: servicesAs(deps.services(), { principal: caller, user: null, tokenHash: null }),
    asSystem: () => servicesAs(deps.services(), SYSTEM_CALLER),
  });

  /** Runs one hook within its time limit, counting the run; a throw that is no refusal names the hook. */
  async function run<T>(hook: Hook, work: () => T | Promise<T>): Promise<T> {
    const started = performance.now();
    const done = (outcome: HookStat['outcome']) => count(hook, outcome, (performance.now() - started) / 1000);
    try {
      const result = await within(hook.timeoutMs, hook.name, work);
      done('ok');
      return result;
    } catch (err) {
      if (isRoostError(err)) {
        done('refused');
        throw err;
      }
      if (err instanceof HookTimeout) {
        done('timeout');
        deps.onFailure(err, hook.name, hook.point);
        throw hookErrors.hook_timeout({ cause: err });
      }
      done('failed');
      deps.onFailure(err, hook.name, hook.point);
      throw new Error(`hook "${hook.name}" failed: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
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
      const context = Object.assign({}, payload.context, extras(hook, payload.context.caller), { jobId: stored.id });
      await run(hook, () => hook.fn(context as never));
      return undefined;
    },
  });

  return {
    job,
    has: (point) => before.has(point),
    hasAfter: (point) => after.has(point),
    async before(point, context) {
      let current: BeforeContext<typeof point> = context;
      for (const hook of before.get(point) ?? []) {
        if (!matches(hook.filter, current)) continue;
        // The context is handed as it is (a hook may change `input` in place), its extras beside.
        const handed = Object.assign({}, current, extras(hook, current.caller));
        const returned = await run(hook, () => hook.fn(handed as never));
        current =
          returned === undefined
            ? Object.assign({}, current, { input: handed.input })
            : Object.assign({}, current, { input: returned });
      }
      return current;
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
