import { BlockList, isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RealtimeStats } from '../realtime/hub.js';
import { commonErrors } from '../core/errors.js';
import { administers } from '../core/grants.js';
import { jobRuns, processStats } from '../core/process-stats.js';
import type { MailQueueCounts } from '../core/mailer.js';
import type { HookStat } from '../core/hooks.js';
import type { UserService } from '../users/index.js';
import type { BackupHealth } from '../backups/index.js';
import type { ReplicaState } from '../core/readers.js';
import { replicaGauges } from './replica-metrics.js';
import { callerOf } from './auth.js';

/**
 * `/metrics` in Prometheus' text format (docs/operations.md, "Metrics"), made with prom-client
 * (docs/decisions.md): requests by method, route and status with their latency, sign-in
 * failures, throttled requests, cache hits, the mail queue, open connections, and Node's own
 * (event-loop delay, heap, GC, CPU). Only administrators and the configured addresses may read
 * it: route names and counts describe the deployment.
 */
export interface MetricsOptions {
  /** Addresses and CIDR ranges that may read /metrics without a token (config `metrics.allow`). */
  allow: readonly string[];
  users: UserService;
  /** The mail queue's counts, read at scrape time (absent: no mail metrics). */
  mailQueue?: () => Promise<MailQueueCounts>;
  /** The live changes' counts of this process, read at scrape time (absent: live changes are off). */
  realtime?: () => RealtimeStats;
  /** The hooks' runs in this process (extend/hooks.ts), read at scrape time. */
  hooks?: () => readonly HookStat[];
  /** The newest backup and restore check (backups/backups-service.ts), read at scrape time. */
  backups?: () => Promise<BackupHealth>;
  /** The read replicas as this process last looked at them (storage/replica-reads.ts); absent: none. */
  replicas?: () => readonly ReplicaState[];
}

/**
 * Node's metrics belong to the process, not to one Roost: registered once, so that the event
 * loop is watched by one monitor however many Roost instances a process starts (the tests).
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Latency buckets in seconds: most operations answer in about a millisecond, uploads take seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The request counters. They are counted once the response has finished (an `onResponse` hook,
 * registerMetrics), which makes Fastify follow each response's end: about 10 µs a request, the
 * cost of /metrics (bench/suite-metrics.ts; bench/RESULTS.md, "Changes for issue 24"). With the
 * request log on (the default at `info`) Fastify follows it anyway.
 */
export interface HttpMetrics {
  readonly registry: Registry;
  /** Count one finished request. */
  record(request: FastifyRequest, reply: FastifyReply): void;
}

export function createHttpMetrics(): HttpMetrics {
  const own = new Registry();
  const registers = [own];
  const requests = new Counter({
    name: 'roost_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'roost_http_request_duration_seconds',
    help: 'Time from request to answer, by method and route pattern.',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const throttled = new Counter({
    name: 'roost_http_throttled_requests_total',
    help: 'Requests refused with 429 (rate limits, sign-in throttling, mail limits), by route pattern.',
    labelNames: ['route'],
    registers,
  });
  new Counter({
    name: 'roost_signin_failures_total',
    help:
      'Sign-ins refused for a wrong identity or password or a locked ' +
      'account (every sign-in route; counted by this process).',
    registers,
    collect() {
      this.reset();
      this.inc(processStats.signinFailures);
    },
  });
  new Counter({
    name: 'roost_thumbnails_made_total',
    help: 'Thumbnails made by sharp (not those read back from beside their image; filestore/thumbnails/).',
    registers,
    collect() {
      this.reset();
      this.inc(processStats.thumbnailsMade);
    },
  });
  for (const kind of ['hits', 'misses'] as const) {
    new Counter({
      name: `roost_cache_${kind}_total`,
      help:
        `Lookups ${kind === 'hits' ? 'answered from' : 'not found in'} an in-memory cache: session (users) or ` +
        'item (data stores on SQLite) or record (collections on SQLite).',
      labelNames: ['cache'],
      registers,
      collect() {
        this.reset();
        for (const [cache, stats] of Object.entries(processStats.caches)) this.inc({ cache }, stats[kind]);
      },
    });
  }

  // The labelled series of each method, route and status, looked up once: prom-client hashes a
  // label object on every call. Bounded: routes are patterns, and every URL that no route
  // matches shares the label `unmatched`.
  const series = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof latency.labels> }
  >();
  const record = (request: FastifyRequest, reply: FastifyReply) => {
    const method = request.method;
    // `request.routeOptions` builds a new object on every read (it cost getItem a seventh of its
    // throughput): the handler's wrapper (registerMetrics) leaves the pattern on the request;
    // only a request refused before its handler asks Fastify.
    const route = request.is404 ? 'unmatched' : (request.routePattern ?? request.routeOptions.url ?? 'unmatched');
    const status = reply.statusCode;
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      found = { count: requests.labels(method, route, String(status)), time: latency.labels(method, route) };
      series.set(key, found);
    }
    found.count.inc();
    found.time.observe(reply.elapsedTime / 1000);
    if (status === 429) throttled.inc({ route });
  };

  return { registry: own, record };
}

/**
 * `/metrics`, the hook that counts requests, and the gauges read when it is scraped. Registered
 * before the routes: each route's handler is wrapped to note its pattern on the request (a
 * function call; `request.routeOptions` would build an object for every request).
 */
export async function registerMetrics(
  app: FastifyInstance,
  metrics: HttpMetrics,
  options: MetricsOptions,
): Promise<void> {
  // On the root instance, not in a plugin: every route is counted, pages included.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.record(request, reply);
    done();
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    const url = route.url;
    route.handler = function (this: FastifyInstance, request, reply) {
      // A handler may name a narrower pattern after this (a file store's operation).
      request.routePattern = url;
      return handler.call(this, request, reply);
    };
  });
  const registers = [metrics.registry];
  new Gauge({
    name: 'roost_open_connections',
    help: 'Open HTTP connections of this process.',
    registers,
    async collect() {
      this.set(
        await new Promise<number>((resolve) => app.server.getConnections((err, count) => resolve(err ? 0 : count))),
      );
    },
  });
  const mailQueue = options.mailQueue;
  if (mailQueue) {
    new Gauge({
      name: 'roost_mail_queue',
      help:
        'Mails in the queue (shared by every process on the ' +
        'database): due, retrying after a failure, failed for good.',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await mailQueue();
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      },
    });
  }

  const backups = options.backups;
  if (backups) backupGauges(backups, registers);
  const replicas = options.replicas;
  if (replicas) replicaGauges(replicas, registers);

  const realtime = options.realtime;
  if (realtime) {
    new Gauge({
      name: 'roost_realtime_streams',
      help: 'Open live changes streams of this process.',
      registers,
      collect() {
        this.set(realtime().streams);
      },
    });
    new Counter({
      name: 'roost_realtime_frames_total',
      help: 'Frames of live changes written to streams by this process (one per event and matching topic).',
      registers,
      collect() {
        this.reset();
        this.inc(realtime().frames);
      },
    });
    new Counter({
      name: 'roost_realtime_dropped_total',
      help: 'Streams this process dropped because their reader fell more than realtime.bufferBytes behind.',
      registers,
      collect() {
        this.reset();
        this.inc(realtime().dropped);
      },
    });
  }

  const hooks = options.hooks;
  if (hooks) {
    // Counted by the registry as they run; read here (a hook's name is the team's: a label per hook).
    const figures = [
      ['roost_hook_runs_total', 'Runs of each hook in this process, by outcome: ok, refused, failed, timeout.', 'runs'],
      [
        'roost_hook_seconds_total',
        'Time spent in each hook in this process, by outcome (divide by roost_hook_runs_total for the mean).',
        'seconds',
      ],
    ] as const;
    for (const [name, help, figure] of figures)
      new Counter({
        name,
        help,
        labelNames: ['hook', 'point', 'outcome'],
        registers,
        collect() {
          this.reset();
          for (const s of hooks()) this.inc({ hook: s.hook, point: s.point, outcome: s.outcome }, s[figure]);
        },
      });
  }

  // Every try of a job of this process, by its kind (core/job-queue.ts): an extension's are
  // `job:<name>` and `schedule:<name>` (extend/jobs.ts). Bounded: kinds are defined in code.
  const jobTries = new Counter({
    name: 'roost_job_runs_total',
    help: 'Tries of jobs run by this process, by job and outcome (done, failed, skipped: its previous run still ran).',
    labelNames: ['job', 'outcome'],
    registers,
  });
  const jobTime = new Histogram({
    name: 'roost_job_duration_seconds',
    help: 'Time a try of a job took, by job.',
    labelNames: ['job'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const stopJobRuns = jobRuns.listen((run) => {
    jobTries.inc({ job: run.kind, outcome: run.outcome });
    if (run.outcome !== 'skipped') jobTime.observe({ job: run.kind }, run.seconds);
  });
  app.addHook('onClose', async () => stopJobRuns());

  const allowed = allowList(options.allow);
  const registry = Registry.merge([processMetrics(), metrics.registry]);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request.ip)) await assertAdmin(request, options.users);
    reply.header('cache-control', 'no-store').type(registry.contentType);
    return registry.metrics();
  });
}

async function assertAdmin(request: FastifyRequest, users: UserService): Promise<void> {
  const caller = await callerOf(request, users);
  if (!caller.user)
    throw commonErrors.not_signed_in({
      message: 'Sign in as an administrator, or scrape from an address in metrics.allow.',
    });
  if (!administers(caller.principal))
    throw commonErrors.not_allowed({ message: 'Only administrators may read the metrics.' });
}

/**
 * Whether an address is one of `entries` (addresses or CIDR ranges,
 * IPv4 or IPv6; an IPv4-mapped IPv6 address counts as IPv4).
 */
function allowList(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
    return isIP(v4) === 4 ? list.check(v4, 'ipv4') : isIP(address) === 6 && list.check(address, 'ipv6');
  };
}

/**
 * The backups' health (docs/operations.md, "Backups"): when the newest backup succeeded, and the
 * newest restore check's time and outcome, read from the database at scrape time (shared by every
 * process). Before the first backup or check they are 0: never is as bad as failed.
 */
function backupGauges(backups: () => Promise<BackupHealth>, registers: Registry[]): void {
  // Two small queries a series, at scrape time: a figure cached across scrapes would tell an old check.
  const health = backups;
  new Gauge({
    name: 'roost_backup_last_success_timestamp_seconds',
    help: 'When the newest backup that succeeded finished (Unix time; 0: none yet).',
    registers,
    async collect() {
      this.reset();
      const { lastBackup } = await health();
      if (lastBackup !== null) this.set(lastBackup / 1000);
    },
  });
  new Gauge({
    name: 'roost_backup_check_timestamp_seconds',
    help: 'When the newest restore check of a backup finished (Unix time; 0: none yet).',
    registers,
    async collect() {
      this.reset();
      const { lastCheck } = await health();
      if (lastCheck) this.set(lastCheck.at / 1000);
    },
  });
  new Gauge({
    name: 'roost_backup_check_ok',
    help: 'Whether the newest restore check restored every table with its rows (1) or failed, or none ran (0).',
    registers,
    async collect() {
      this.reset();
      const { lastCheck } = await health();
      if (lastCheck) this.set(lastCheck.ok ? 1 : 0);
    },
  });
}
