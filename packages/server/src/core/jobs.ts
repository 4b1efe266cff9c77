import type { Principal } from './permissions.js';

/**
 * The durable job queue's port (issue 38, item 4): every piece of work that runs after an
 * answer (a mail, a webhook delivery, an extension's scheduled or background job) is a job in
 * one table (storage/job-store.ts), claimed with a lease, retried with backoff and finally kept
 * as failed, run by the worker of core/job-queue.ts. A kind of job is one module that defines its
 * handler with `defineJob` (mail/mail-job.ts, realtime/webhook-delivery.ts) and one line in the
 * list of services.ts; an extension's jobs are registered as it defines them (extend/jobs.ts).
 */

/** `skipped`: not run, because an older job of its exclusive kind still ran (a schedule's overlapping tick). */
export const JOB_STATES = ['pending', 'done', 'failed', 'skipped'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A kind's name with the type of its payload: what enqueuers hold (they need no handler). */
export interface JobType<P> {
  readonly name: string;
  /** Never set: carries `P` for the compiler. */
  readonly payload?: P;
}

export function jobType<P>(name: string): JobType<P> {
  return { name };
}

/** A job as stored. */
export interface Job {
  id: string;
  kind: string;
  /** What it is about, for listing a kind's jobs by it (a webhook's id), or null. */
  subject: string | null;
  /** The payload as JSON. */
  payload: string;
  state: JobState;
  /** Tries that failed so far (and the one that succeeded, for a done job). */
  attempts: number;
  created: number;
  /** When it runs next (pending), or null. */
  runAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  finishedAt: number | null;
  /**
   * The request that caused it (http/request-id.ts; a webhook delivery of a request's write, a
   * job a request enqueued), or null: its run's log lines carry it as `reqId`, and the admin logs
   * page lists it in the request's story (docs/operations.md, "Logs").
   */
  requestId: string | null;
}

/** A job to add. */
interface NewJob {
  id: string;
  kind: string;
  subject: string | null;
  /** An idempotency key: a job whose key is taken already is not added. */
  key: string | null;
  payload: string;
  created: number;
  runAt: number;
  requestId: string | null;
}

export interface JobFilter {
  id?: string;
  kind?: string;
  state?: JobState;
  subject?: string;
  /** The jobs one request caused. */
  requestId?: string;
  limit: number;
}

/** Pending jobs due now, pending ones waiting for their time, and failed ones. */
export interface JobCounts {
  due: number;
  retrying: number;
  failed: number;
}

/** Where jobs are kept (storage/job-store.ts). */
export interface JobStore {
  /** Adds the jobs; one whose key another job holds already is skipped. */
  add(jobs: readonly NewJob[]): Promise<void>;
  /**
   * Due pending jobs of `kind` nobody holds, held for `leaseMs` by the caller (a crashed
   * holder's lease runs out), oldest first. Several processes on PostgreSQL never get one job
   * both (`FOR UPDATE SKIP LOCKED`).
   */
  claimDue(kind: string, now: number, leaseMs: number, limit: number): Promise<Job[]>;
  /**
   * Which of `kinds` have a due pending job nobody holds (what claimDue would claim), in one
   * query: a pass with nothing due asks once instead of claiming kind after kind.
   */
  dueKinds(kinds: readonly string[], now: number): Promise<string[]>;
  /** A try succeeded: kept as done, or deleted when the kind keeps no log (`keep` false). */
  done(id: string, attempts: number, at: number, status: number | null, keep: boolean): Promise<void>;
  /** A try failed: tried again at `retryAt`, or given up (null: failed). */
  failed(id: string, attempts: number, retryAt: number | null, status: number | null, error: string): Promise<void>;
  /** Not run (an exclusive kind's older job still runs): kept as skipped, with the reason as its error. */
  skip(id: string, at: number, reason: string): Promise<void>;
  /**
   * Whether a pending job of `kind` that runs before `job` (an earlier `runAt`, or the same and a
   * smaller id) is held by a lease that has not run out: it runs now, in some process.
   */
  heldBefore(kind: string, job: Pick<Job, 'id' | 'runAt'>, now: number): Promise<boolean>;
  /** The newest jobs first. */
  list(filter: JobFilter): Promise<Job[]>;
  /** A failed job pending again, due at `now`, its attempts from zero; false if it was not failed. */
  retry(id: string, now: number): Promise<boolean>;
  /** Deletes the jobs of a kind about a subject (a removed webhook's deliveries). */
  removeSubject(kind: string, subject: string): Promise<void>;
  /** Counts of `kind`, or of every kind. */
  counts(now: number, kind?: string): Promise<JobCounts>;
}

/**
 * A failure that says more than an exception: the try's numeric outcome (an HTTP status), and
 * whether trying again is pointless (`final`: failed at once).
 */
export class JobFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly final = false,
  ) {
    super(message);
  }
}

/** What a handler's successful run may tell: its numeric outcome. */
interface JobOutcome {
  status?: number;
}

/** One kind of job, typed by its payload. */
export interface JobSpec<P> {
  type: JobType<P>;
  /** Tries in all, then failed. */
  maxAttempts: number;
  /** Tries in all for one job, when its payload says (an enqueued job's own `retries`); else `maxAttempts`. */
  attemptsOf?(payload: P): number;
  /**
   * A try that takes longer fails (its signal is aborted; the queue stops waiting for it). Keep
   * `leaseMs` above it, or another process claims the job while it still runs.
   */
  timeoutMs?: number;
  /**
   * No two jobs of the kind run at once: a job claimed while an older one is held is not run but
   * kept as skipped (a schedule's tick while its previous run still runs, extend/jobs.ts).
   */
  exclusive?: boolean;
  /** The wait before try `attempts + 1`, after `attempts` failures. */
  retryDelayMs(attempts: number): number;
  /** How long a claim holds: longer than a try can take. */
  leaseMs: number;
  /** Keep done jobs (a delivery log), or delete them once done (mails, which hold secrets). */
  keepDone: boolean;
  /** One try; `signal` is aborted when the try is over its `timeoutMs`. */
  run(payload: P, job: Job, signal: AbortSignal): Promise<JobOutcome | undefined>;
  /** Told of each failed try (logging). */
  onFailure?(err: unknown, job: Job): void;
}

/** A kind as the worker sees it: the payload's type checked where it was defined. */
export interface JobKind extends Omit<JobSpec<unknown>, 'run' | 'type' | 'attemptsOf'> {
  name: string;
  run(job: Job, signal: AbortSignal): Promise<JobOutcome | undefined>;
  /** Tries in all for this job. */
  attemptsOf(job: Job): number;
}

/**
 * A job's payload as its kind's type. The payload was written by `JobQueue.add` with the same
 * `JobType<P>`, so reading it back as `P` holds (the one place the queue trusts its own rows).
 */
export function payloadOf<P>(_type: JobType<P>, job: Job): P {
  return JSON.parse(job.payload) as P;
}

/** The handler of a kind. */
export function defineJob<P>(spec: JobSpec<P>): JobKind {
  const { attemptsOf } = spec;
  return {
    ...spec,
    name: spec.type.name,
    run: (job, signal) => spec.run(payloadOf(spec.type, job), job, signal),
    attemptsOf: attemptsOf ? (job) => attemptsOf(payloadOf(spec.type, job)) : () => spec.maxAttempts,
  };
}

/** Doubling from `firstMs`, at most an hour: the backoff of mails and webhooks. */
export function doubling(firstMs: number): (attempts: number) => number {
  return (attempts) => Math.min(3600_000, firstMs * 2 ** Math.min(attempts - 1, 20));
}

/** A scheduled job as the admin backend lists it (extend/jobs.ts). */
export interface ScheduleView {
  name: string;
  /** Its kind in the queue: `schedule:<name>`. */
  kind: string;
  cron: string;
  /** The IANA time zone its cron is read in; UTC when none was given. */
  timezone: string;
  timeoutMs: number;
  /** The next tick (ms since the epoch), or null when the cron has none left. */
  nextRun: number | null;
}

/** A background job as the admin backend lists it (extend/jobs.ts). */
interface BackgroundJobView {
  name: string;
  /** Its kind in the queue: `job:<name>`. */
  kind: string;
  /** Tries in all, unless an enqueued job says otherwise. */
  maxAttempts: number;
  timeoutMs: number;
}

/**
 * The extensions' jobs (extend/jobs.ts), for the admin backend: what is scheduled and defined,
 * and a scheduled job run now. For a caller that administers (`backendGrants`, core/grants.ts).
 */
export interface JobCatalog {
  schedules(): ScheduleView[];
  background(): BackgroundJobView[];
  /** Adds a run of the scheduled job, due now; resolves to the job's id. */
  runNow(caller: Principal, name: string): Promise<string>;
}
