import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { commonErrors } from '../core/errors.js';
import { backendGrants } from '../core/grants.js';
import type { JobQueue } from '../core/job-queue.js';
import type { Cause } from '../core/events.js';
import { defineJob, doubling, jobType, type JobCatalog, type JobType } from '../core/jobs.js';
import type { Mailer } from '../core/mailer.js';
import type { Collections } from '../collections/index.js';
import type { DataStores } from '../datastore/index.js';
import type { FileStores } from '../filestore/index.js';
import { programCaller, type Caller, type UserService } from '../users/index.js';

/**
 * The jobs part of the extension API (extend/extension.ts; docs/hooks.md, "Jobs"): scheduled jobs
 * (a cron of croner, docs/decisions.md) and background jobs (enqueued with their input), both
 * kinds of the one durable queue (core/job-queue.ts), so they are claimed with a lease, retried
 * with backoff, survive a restart and show on the admin jobs page.
 *
 * Once per tick across processes: every process computes the same ticks from the cron and adds
 * each tick's job with the idempotency key `schedule:<name>:<tick ISO>`; the unique key keeps one
 * row, and the queue's claim (`FOR UPDATE SKIP LOCKED` on PostgreSQL, storage/job-store.ts) gives
 * it to one process. A process that dies holding it loses it when the lease runs out, and the
 * survivors add the next ticks. A schedule's kind is exclusive (core/jobs.ts): a tick claimed
 * while the previous run still holds its lease is kept as skipped, not run beside it.
 */

/** What JSON holds: an enqueued job's input is stored as JSON (core/jobs.ts). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The services a job's handler gets: it has no caller, so it acts as `system` (docs/hooks.md, "Jobs"). */
export interface JobServices {
  users: UserService;
  dataStores: DataStores;
  fileStores: FileStores;
  collections: Collections;
  /** Mails go through the mail queue (mail/mail-queue.ts): delivered after the job, retried. */
  mail: Pick<Mailer, 'send'>;
}

export interface JobContext {
  /** The caller a job acts as: a program in the `admins` group (`programCaller`, users/user-context.ts). */
  readonly system: Caller;
  readonly services: JobServices;
  /** Aborted when the try is over its `timeoutMs`: hand it to fetch and the like. */
  readonly signal: AbortSignal;
  /** This try's number, from 1; it counts on across restarts. */
  readonly attempt: number;
  /** Adds a background job (from a job, as from a hook or a route handler). */
  readonly enqueue: EnqueueJob;
}

export interface ScheduleContext extends JobContext {
  /** The tick this run is for; null for a run asked for on the admin jobs page. */
  readonly tick: Date | null;
}

/** A background job's name with the type of its input: what `define` returns and `enqueue` takes. */
export interface JobHandle<I> {
  readonly name: string;
  /** Never set: carries `I` for the compiler. */
  readonly input?: I;
}

export interface EnqueueOptions {
  /** Run it this many milliseconds from now, not before. */
  delay?: number;
  /** Tries after the first failed one, for this job (default: its definition's `retries`). */
  retries?: number;
  /**
   * Who asked, when a request did: a hook's `ctx.caller`, a route's caller's principal. The job
   * keeps its request's id (core/jobs.ts `requestId`), which its run's log line carries and the
   * admin logs page finds it by.
   */
  cause?: Cause;
}

/** Adds a background job: by its handle (its input typed) or by its name; resolves to the job's id. */
export interface EnqueueJob {
  <I>(job: JobHandle<I>, input: I, options?: EnqueueOptions): Promise<string>;
  (name: string, input: JsonValue, options?: EnqueueOptions): Promise<string>;
}

export interface ScheduleOptions {
  /** The IANA time zone the cron is read in (default UTC). */
  timezone?: string;
  /** A run that takes longer fails (default 60 000 ms). */
  timeoutMs?: number;
}

export interface DefineOptions {
  /** Tries after the first failed one (default 3; at most 25). */
  retries?: number;
  /** The wait before the first retry in milliseconds, doubling for each next one up to an hour (default 10 000). */
  backoff?: number;
  /** A try that takes longer fails (default 60 000 ms). */
  timeoutMs?: number;
}

export interface ExtensionJobs {
  /** Runs `fn` at each tick of `cron` (five or six fields, croner), once across every process. */
  schedule(name: string, cron: string, fn: (ctx: ScheduleContext) => unknown, options?: ScheduleOptions): void;
  /** A background job: `fn` runs for each enqueued input, retried with backoff when it throws. */
  define<I extends JsonValue>(
    name: string,
    fn: (input: I, ctx: JobContext) => unknown,
    options?: DefineOptions,
  ): JobHandle<I>;
  enqueue: EnqueueJob;
}

interface Deps {
  queue: JobQueue;
  clock: Clock;
  log: FastifyBaseLogger;
  services: JobServices;
}

/** The extensions' jobs: the API, what the admin backend lists, and the schedules' timers. */
export interface ExtensionJobsRuntime {
  api: ExtensionJobs;
  catalog: JobCatalog;
  /** Arms the schedules' timers (`roost serve`, createRoost); the queue is started beside it (services.ts). */
  start(): void;
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_RETRIES = 3;
const MAX_RETRIES = 25;
const DEFAULT_BACKOFF_MS = 10_000;
/** A claim outlasts the longest try by this much: the try's outcome is written after it. */
const LEASE_MARGIN_MS = 2_000;
/** The longest wait of a Node timer (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const DAY_MS = 86_400_000;
/** A kind is at most 64 characters (migration 2026-11-30-01-jobs), `schedule:` included. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$/;

interface SchedulePayload {
  /** The tick's ISO time, or null for a run asked for now. */
  tick: string | null;
}

interface BackgroundPayload {
  input: JsonValue;
  maxAttempts: number;
}

interface Schedule {
  name: string;
  cron: Cron;
  pattern: string;
  timezone: string;
  timeoutMs: number;
  type: JobType<SchedulePayload>;
  timer: NodeJS.Timeout | null;
  /** The tick last added, so that a timer firing early never adds one tick twice. */
  last: Date | null;
}

interface Background {
  name: string;
  type: JobType<BackgroundPayload>;
  maxAttempts: number;
  timeoutMs: number;
}

const invalid = (field: string, message: string) =>
  commonErrors.validation_failure({ message, fields: [[field, 'invalid']] });

function checkName(name: string, what: string): void {
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalid('name', `${what} "${String(name)}": a name is 1 to 48 letters, digits, "_", "." or "-".`);
}

function checkCount(field: string, value: number | undefined, min: number, max: number): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max))
    throw invalid(field, `${field} must be a whole number from ${min} to ${max}, not ${String(value)}.`);
}

/** Where a value is not JSON (a function, undefined, NaN, a Date, a cycle…), or null when it is. */
function notJson(value: unknown, path: string, seen: Set<object>): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} is ${value}`;
  if (typeof value !== 'object')
    return `${path} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}`;
  if (seen.has(value)) return `${path} refers to itself`;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null)
    return `${path} is a ${proto?.constructor?.name ?? 'class instance'}, not a plain object`;
  seen.add(value);
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [`${path}[${i}]`, v])
    : Object.entries(value).map(([k, v]) => [`${path}.${k}`, v]);
  for (const [at, v] of entries) {
    const problem = notJson(v, at, seen);
    if (problem) return problem;
  }
  seen.delete(value);
  return null;
}

export function createExtensionJobs(deps: Deps): ExtensionJobsRuntime {
  const { queue, clock, log } = deps;
  const schedules = new Map<string, Schedule>();
  const backgrounds = new Map<string, Background>();
  const system = programCaller('system');
  let started = false;

  const context = (signal: AbortSignal, attempt: number): JobContext => ({
    system,
    services: deps.services,
    signal,
    attempt,
    enqueue,
  });

  /** Every failed try is logged with its job's name (issue 40, item 5). */
  const logFailure = (name: string) => (err: unknown, job: { attempts: number }) =>
    log.warn({ err, job: name, attempt: job.attempts + 1 }, `job ${name} failed`);

  const enqueue: EnqueueJob = async (
    job: JobHandle<unknown> | string,
    input: unknown,
    options: EnqueueOptions = {},
  ) => {
    const name = typeof job === 'string' ? job : job.name;
    const found = backgrounds.get(name);
    if (!found) throw invalid('name', `There is no background job "${name}": define it first (roost.jobs.define).`);
    const problem = notJson(input, 'input', new Set());
    if (problem) throw invalid('input', `The input of job "${name}" must be JSON: ${problem}.`);
    checkCount('delay', options.delay, 0, 366 * 86_400_000);
    checkCount('retries', options.retries, 0, MAX_RETRIES);
    const payload = {
      input: input as JsonValue,
      maxAttempts: options.retries === undefined ? found.maxAttempts : options.retries + 1,
    };
    return queue.add(found.type, payload, {
      runAt: clock.now() + (options.delay ?? 0),
      requestId: options.cause?.requestId,
    });
  };

  function arm(schedule: Schedule): void {
    if (!started) return;
    const now = new Date(clock.now());
    const after = schedule.last && schedule.last > now ? schedule.last : now;
    const next = schedule.cron.nextRun(after);
    if (!next) return;
    // Node fires a longer timer at once (a yearly cron): wait a day at a time until it is near.
    if (next.getTime() - now.getTime() > MAX_TIMER_MS) {
      schedule.timer = setTimeout(() => arm(schedule), DAY_MS).unref();
      return;
    }
    schedule.timer = setTimeout(
      () => {
        schedule.last = next;
        const tick = next.toISOString();
        queue
          .add(schedule.type, { tick }, { key: `schedule:${schedule.name}:${tick}`, runAt: next.getTime() })
          .catch((err: unknown) =>
            log.error({ err, job: schedule.name }, `job ${schedule.name}: its tick was not added`),
          );
        arm(schedule);
      },
      Math.max(0, next.getTime() - clock.now()),
    );
    schedule.timer.unref();
  }

  const api: ExtensionJobs = {
    schedule(name, pattern, fn, options = {}) {
      checkName(name, 'Scheduled job');
      if (schedules.has(name)) throw invalid('name', `The scheduled job "${name}" is defined already.`);
      checkCount('timeoutMs', options.timeoutMs, 1, 86_400_000);
      const timezone = options.timezone ?? 'UTC';
      let cron: Cron;
      try {
        cron = new Cron(pattern, { timezone, paused: true });
        cron.nextRun();
      } catch (err) {
        const field = err instanceof Error && err.message.includes('timezone') ? 'timezone' : 'cron';
        throw invalid(field, `Scheduled job "${name}": ${err instanceof Error ? err.message : String(err)}`);
      }
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const type = jobType<SchedulePayload>(`schedule:${name}`);
      queue.register(
        defineJob({
          type,
          maxAttempts: 1,
          retryDelayMs: () => 0,
          leaseMs: timeoutMs + LEASE_MARGIN_MS,
          timeoutMs,
          exclusive: true,
          keepDone: true,
          async run(payload, job, signal) {
            const tick = payload.tick === null ? null : new Date(payload.tick);
            await fn({ ...context(signal, job.attempts + 1), tick });
            return undefined;
          },
          onFailure: logFailure(name),
        }),
      );
      const schedule = { name, cron, pattern, timezone, timeoutMs, type, timer: null, last: null };
      schedules.set(name, schedule);
      arm(schedule);
    },

    define<I extends JsonValue>(name: string, fn: (input: I, ctx: JobContext) => unknown, options: DefineOptions = {}) {
      checkName(name, 'Background job');
      if (backgrounds.has(name)) throw invalid('name', `The background job "${name}" is defined already.`);
      checkCount('retries', options.retries, 0, MAX_RETRIES);
      checkCount('backoff', options.backoff, 0, 3_600_000);
      checkCount('timeoutMs', options.timeoutMs, 1, 86_400_000);
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const type = jobType<BackgroundPayload>(`job:${name}`);
      const maxAttempts = (options.retries ?? DEFAULT_RETRIES) + 1;
      queue.register(
        defineJob({
          type,
          maxAttempts,
          attemptsOf: (payload) => payload.maxAttempts,
          retryDelayMs: doubling(options.backoff ?? DEFAULT_BACKOFF_MS),
          leaseMs: timeoutMs + LEASE_MARGIN_MS,
          timeoutMs,
          keepDone: true,
          async run(payload, job, signal) {
            // The input was checked as JSON by `enqueue` with this handle's name: it is an `I`.
            await fn(payload.input as I, context(signal, job.attempts + 1));
            return undefined;
          },
          onFailure: logFailure(name),
        }),
      );
      backgrounds.set(name, { name, type, maxAttempts, timeoutMs });
      return { name };
    },

    enqueue,
  };

  const catalog: JobCatalog = {
    schedules: () =>
      [...schedules.values()].map((s) => ({
        name: s.name,
        kind: s.type.name,
        cron: s.pattern,
        timezone: s.timezone,
        timeoutMs: s.timeoutMs,
        nextRun: s.cron.nextRun(new Date(clock.now()))?.getTime() ?? null,
      })),
    background: () =>
      [...backgrounds.values()].map((b) => ({
        name: b.name,
        kind: b.type.name,
        maxAttempts: b.maxAttempts,
        timeoutMs: b.timeoutMs,
      })),
    async runNow(caller, name) {
      backendGrants(caller).require('administer');
      const schedule = schedules.get(name);
      if (!schedule) throw invalid('name', `There is no scheduled job "${name}".`);
      return queue.add(schedule.type, { tick: null }, { requestId: caller.requestId });
    },
  };

  return {
    api,
    catalog,
    start() {
      if (started) return;
      started = true;
      for (const schedule of schedules.values()) arm(schedule);
    },
    close() {
      started = false;
      for (const schedule of schedules.values()) if (schedule.timer) clearTimeout(schedule.timer);
    },
  };
}
