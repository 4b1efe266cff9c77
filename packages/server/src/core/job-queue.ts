import type { Clock } from './clock.js';
import { backendGrants } from './grants.js';
import { newId } from './ids.js';
import {
  JobFailure,
  type Job,
  type JobCounts,
  type JobFilter,
  type JobKind,
  type JobStore,
  type JobType,
} from './jobs.js';
import type { Principal } from './permissions.js';
import { jobRuns } from './process-stats.js';
import { withinTime } from './time-limit.js';
import { wakeLoop } from './wake-loop.js';

/** How a job is added: when it runs, what it is about, its idempotency key. */
interface AddOptions {
  /** Not before this time (ms since the epoch): a delayed job. Default: now. */
  runAt?: number;
  subject?: string | null;
  /** A job with a key another job holds already is not added (a retried request, a schedule's tick). */
  key?: string | null;
  /** The job's id (default: a new one). */
  id?: string;
  /** The request that caused it (`Principal.requestId`, core/permissions.ts): kept as the job's `requestId`. */
  requestId?: string | undefined;
}

/** How a try of a job ended, as `onRun` is told it (its log line, `logJobRun`). */
interface JobRun {
  job: Job;
  /** This try's number, from 1. */
  attempt: number;
  outcome: 'done' | 'failed' | 'skipped';
  ms: number;
  /** A failed try's error. */
  error?: unknown;
}

/**
 * The durable job queue (core/jobs.ts): `add` stores a job and wakes the worker; the worker
 * (`start`, in `roost serve`) claims the due jobs of each kind it has a handler for, runs them,
 * and records the outcome: done, tried again after the kind's backoff, or failed after its last
 * attempt. Jobs survive a restart; processes sharing PostgreSQL share the work, a job held by
 * one process's lease is run by no other until the lease runs out.
 */
export interface JobQueue {
  add<P>(type: JobType<P>, payload: P, options?: AddOptions): Promise<string>;
  /** Several jobs of one kind in one write (a change wanted by several webhooks). */
  addAll<P>(type: JobType<P>, jobs: ReadonlyArray<{ payload: P } & AddOptions>): Promise<void>;
  /**
   * The jobs of a filter, for a caller that administers (`backendGrants`, core/grants.ts: the
   * jobs page, the webhooks' deliveries): a payload may hold a mail's text.
   */
  list(caller: Principal, filter: JobFilter): Promise<Job[]>;
  /** A failed job tried again from its first attempt; false if it is not failed. For a caller that administers. */
  retry(caller: Principal, id: string): Promise<boolean>;
  /** How many jobs (of a kind) are due, waiting for a retry, failed. For a caller that administers. */
  counts(caller: Principal, kind?: string): Promise<JobCounts>;
  /** The kinds this process runs. */
  kinds(): string[];
  /** Adds a kind this process runs (an extension's job, extend/jobs.ts); before `start`. */
  register(kind: JobKind): void;
  removeSubject<P>(type: JobType<P>, subject: string): Promise<void>;
  start(): void;
  /** Resolves once no job is due and none runs in this process (tests, shutdown). */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * One line per try of a job (docs/operations.md, "Logs"; services.ts hands `onRun` here): its
 * id, kind and try, how it ended and in how many milliseconds, and `reqId`, the request that
 * caused it (core/jobs.ts `requestId`), as on that request's own lines, so that one search finds
 * the request and all it caused. A failed try at `warn`, with its error's message.
 */
export function logJobRun(
  log: { info(line: object, msg: string): void; warn(line: object, msg: string): void },
  { job, attempt, outcome, ms, error }: JobRun,
): void {
  const line = {
    ...(job.requestId === null ? {} : { reqId: job.requestId }),
    job: { id: job.id, kind: job.kind, attempt },
    outcome,
    responseTime: Math.round(ms * 10) / 10,
  };
  if (outcome !== 'failed') log.info(line, 'job run');
  else log.warn({ ...line, error: error instanceof Error ? error.message : String(error) }, 'job run failed');
}

const POLL_MS = 1000;
const BATCH = 20;
const NEVER_ABORTED = new AbortController().signal;

/**
 * One try, bounded by the kind's `timeoutMs`: over it, the try fails and its signal is aborted.
 * JavaScript cannot stop a running function: one that ignores its signal runs on, unawaited.
 */
async function tryOnce(kind: JobKind, job: Job) {
  const timeoutMs = kind.timeoutMs;
  if (timeoutMs === undefined) return kind.run(job, NEVER_ABORTED);
  const controller = new AbortController();
  return withinTime(kind.run(job, controller.signal), timeoutMs, () => {
    const err = new JobFailure(`timed out after ${timeoutMs} ms`);
    controller.abort(err);
    return err;
  });
}

export function createJobQueue(
  store: JobStore,
  kinds: readonly JobKind[],
  clock: Clock,
  onError: (err: unknown) => void,
  /** Told of every try once it ended (the job's log line, with its `reqId`: services.ts). */
  onRun?: (run: JobRun) => void,
): JobQueue {
  const all = [...kinds];
  const byName = new Map(all.map((k) => [k.name, k]));
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  async function run(kind: JobKind, job: Job): Promise<void> {
    const attempts = job.attempts + 1;
    const started = performance.now();
    const record = (outcome: JobRun['outcome'], error?: unknown) => {
      const ms = performance.now() - started;
      jobRuns.record({ kind: kind.name, outcome, seconds: ms / 1000 });
      onRun?.(
        error === undefined ? { job, attempt: attempts, outcome, ms } : { job, attempt: attempts, outcome, ms, error },
      );
    };
    if (kind.exclusive && (await store.heldBefore(kind.name, job, clock.now()))) {
      await store.skip(job.id, clock.now(), 'skipped: the previous run was still running');
      record('skipped');
      return;
    }
    try {
      const outcome = await tryOnce(kind, job);
      await store.done(job.id, attempts, clock.now(), outcome?.status ?? null, kind.keepDone);
      record('done');
    } catch (err) {
      record('failed', err);
      kind.onFailure?.(err, job);
      const failure = err instanceof JobFailure ? err : null;
      const message =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      const last = failure?.final === true || attempts >= kind.attemptsOf(job);
      await store.failed(
        job.id,
        failure?.final === true ? job.attempts : attempts,
        last ? null : clock.now() + kind.retryDelayMs(attempts),
        failure?.status ?? null,
        message,
      );
    }
  }

  /** Runs every due job, kind by kind, a batch at a time. */
  async function drain(): Promise<void> {
    // One query first: mostly nothing is due, and a claim per kind was a round trip each (some
    // ten on PostgreSQL at every poll and every `idle()`, which each test store snapshot awaits).
    const names = all.map((k) => k.name);
    const due = new Set(await store.dueKinds(names, clock.now()));
    // Once closing, nothing more is claimed: what is due is left, unleased, to the next process
    // (docs/operations.md, "Stopping / rolling restarts"); the jobs already claimed finish.
    for (const kind of all)
      while (!closed && due.has(kind.name)) {
        const batch = await store.claimDue(kind.name, clock.now(), kind.leaseMs, BATCH);
        if (batch.length === 0) break;
        await Promise.all(batch.map((job) => run(kind, job)));
      }
  }
  // The database is unreachable when a pass fails: the next poll tries again.
  const worker = wakeLoop(drain, onError, () => closed);
  const wake = () => worker.wake();

  const newJob = <P>(type: JobType<P>, payload: P, options: AddOptions, now: number) => ({
    id: options.id ?? newId(),
    kind: type.name,
    subject: options.subject ?? null,
    key: options.key ?? null,
    payload: JSON.stringify(payload),
    created: now,
    runAt: options.runAt ?? now,
    requestId: options.requestId ?? null,
  });

  return {
    async add(type, payload, options = {}) {
      const job = newJob(type, payload, options, clock.now());
      await store.add([job]);
      if (timer) void wake();
      return job.id;
    },
    async addAll(type, jobs) {
      if (jobs.length === 0) return;
      const now = clock.now();
      await store.add(jobs.map((j) => newJob(type, j.payload, j, now)));
      if (timer) void wake();
    },
    async list(caller, filter) {
      backendGrants(caller).require('administer');
      return store.list(filter);
    },
    async retry(caller, id) {
      backendGrants(caller).require('administer');
      const retried = await store.retry(id, clock.now());
      if (retried && timer) void wake();
      return retried;
    },
    async counts(caller, kind) {
      backendGrants(caller).require('administer');
      return store.counts(clock.now(), kind);
    },
    kinds: () => [...byName.keys()],
    register(kind) {
      if (byName.has(kind.name)) throw new Error(`job queue: the kind ${kind.name} is registered already`);
      all.push(kind);
      byName.set(kind.name, kind);
    },
    removeSubject: (type, subject) => store.removeSubject(type.name, subject),
    start() {
      if (timer || closed) return;
      timer = setInterval(() => void wake(), POLL_MS).unref();
      void wake();
    },
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await wake();
        if ((await store.counts(clock.now())).due === 0 && !worker.busy) return;
        if (Date.now() > deadline) throw new Error('job queue: jobs still due after the timeout');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      await worker.settled();
    },
  };
}
