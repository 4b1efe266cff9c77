/**
 * What every benchmark suite shares: servers in child processes of their own, autocannon in
 * this process, all on 127.0.0.1; targets measured in alternating slices; CPU time per request
 * read from /proc; the figures kept in bench/results.json and a section of bench/RESULTS.md
 * rewritten between its markers.
 *
 * The machine's two cores may be shared with other work. Requests per second then move from
 * slice to slice, so every comparison is made between targets measured in turns within the same
 * minute, and each target's server CPU time per request is reported beside its throughput: it
 * does not depend on how much of the machine the server got.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { cpus, release, totalmem } from 'node:os';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { Agent } from 'node:http';

/**
 * Seconds per measured slice, slices per target, HTTP connections:
 * `BENCH_SLICE_SECONDS`, `BENCH_SLICES`, `BENCH_CONNECTIONS`.
 */
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * Connections for the operations that hash a password (sign-in, sign-up): each takes tens of
 * milliseconds of a core, so 50 callers would wait a second or more, longer than a slice.
 */
export const PASSWORD_CONNECTIONS = 10;
export const here = new URL('.', import.meta.url).pathname;

export interface Server<Info = { url: string }> {
  child: ChildProcess;
  info: Info;
  /** The PostgreSQL database the server uses: its backends' CPU time counts as the server's. */
  database?: string;
}

/**
 * Fork a server script of bench/; it answers with one IPC message (its URL and whatever else it
 * set up). `quiet` drops its standard output (Parse Server's page of notices at start). With
 * `BENCH_CPU_PROF=<directory>` each server writes a CPU profile there when it stops (Node's
 * `--cpu-prof`, which NODE_OPTIONS may not carry).
 */
export function start<Info = { url: string }>(
  script: string,
  env: Record<string, string> = {},
  options: { quiet?: boolean } = {},
): Promise<Server<Info>> {
  const stdio = ['ignore', options.quiet ? 'ignore' : 'inherit', 'inherit', 'ipc'] as const;
  const profile = process.env.BENCH_CPU_PROF;
  const child = fork(here + script, {
    execArgv: ['--import', 'tsx', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
    stdio: [...stdio],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    child.once('message', (info) => {
      const database = (info as { database?: unknown }).database;
      resolve({ child, info: info as Info, ...(typeof database === 'string' ? { database } : {}) });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** Stop servers and wait until they are gone (a PostgreSQL server drops its database on the way out). */
export async function stop(...servers: ReadonlyArray<Server<unknown> | undefined>): Promise<void> {
  await Promise.all(
    servers.map((server) => {
      if (!server || server.child.exitCode !== null) return undefined;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
        server.child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        server.child.kill('SIGTERM');
      });
    }),
  );
}

// ---- CPU time, from /proc (Linux; elsewhere the CPU columns stay empty) ----

const TICK_US = 10_000; // USER_HZ is 100 on Linux
const hasProc = existsSync('/proc/self/stat');

function processCpuUs(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0; // gone meanwhile
  }
}

/**
 * A backend's title: `postgres: user database host state`, with the server's `cluster_name`
 * after `postgres: ` where it has one (Debian's clusters do: `postgres: 15/main: roost_test
 * roost_bench_… 127.0.0.1(5432) idle`). Before the sixteenth session only the first form was
 * read, so on such a cluster no backend was found and the PostgreSQL rows' CPU time was the
 * server process's alone (bench/RESULTS.md, "Collections, the remaining floors").
 */
const BACKEND_TITLE = /^postgres: (?:\S+: )?\S+ (\S+) /;

/** The PostgreSQL backends connected to `database`. */
function postgresBackends(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (BACKEND_TITLE.exec(title)?.[1] === database) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** CPU time per process of a server: its own, and its PostgreSQL backends'. */
function serverCpu(server: Server<unknown>): Map<number, number> {
  const pids = [server.child.pid ?? 0, ...(server.database ? postgresBackends(server.database) : [])];
  return new Map(pids.map((pid) => [pid, processCpuUs(pid)]));
}

/**
 * A server's CPU time so far, microseconds (its PostgreSQL backends' included), for a suite that
 * measures otherwise than in slices: the difference of two readings. Null without /proc.
 */
export function serverCpuUs(server: Server<unknown>): number | null {
  if (!hasProc) return null;
  let total = 0;
  for (const us of serverCpu(server).values()) total += us;
  return total;
}

/** Busy CPU time of the whole machine, microseconds (all cores). */
function machineBusyUs(): number {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  const busy = ticks.reduce((sum, t, i) => (i === 3 || i === 4 ? sum : sum + (t || 0)), 0);
  return busy * TICK_US;
}

const ownCpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// ---- targets and slices ----

interface Slice {
  requests: number;
  seconds: number;
  /** Latency percentiles in milliseconds (NaN when the target measures none). */
  p50: number;
  p99: number;
  errors: number;
}

/** Something that serves requests, measured a slice at a time. */
export interface Target {
  name: string;
  /** The process (and database) whose CPU time is the target's. */
  server: Server<unknown>;
  slice(seconds: number): Promise<Slice>;
}

export interface HttpTargetOptions extends autocannon.Options {
  connections?: number;
}

/** A target loaded by autocannon (`CONNECTIONS` connections unless given). */
export function httpTarget(name: string, server: Server<unknown>, options: HttpTargetOptions): Target {
  return {
    name,
    server,
    async slice(seconds) {
      const r = await autocannon({ connections: CONNECTIONS, ...options, duration: seconds });
      return {
        requests: r.requests.total,
        seconds: r.duration,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors + r.timeouts + r.non2xx,
      };
    },
  };
}

/** A request body that differs on every request (sign-ups and new items need fresh names). */
let serial = 0;
export function fresh(
  method: 'POST',
  path: string,
  headers: Record<string, string>,
  body: (n: string) => unknown,
): HttpTargetOptions['requests'] {
  return [
    {
      method,
      path,
      headers,
      setupRequest: (request) => ({ ...request, body: JSON.stringify(body(`n${process.pid}x${serial++}`)) }),
    },
  ];
}

/**
 * A target loaded by Node's own HTTP client (llhttp in C, so the load generator costs little
 * beside the server): `connections` keep-alive connections, each running `one` after another
 * until the slice ends; `one` resolves false for a failure. A unit of `one` (a download, a
 * whole upload of several requests) counts as one request. Latency is not measured.
 */
export function clientTarget(
  name: string,
  server: Server<unknown>,
  connections: number,
  one: (agent: Agent) => Promise<boolean>,
): Target {
  return {
    name,
    server,
    async slice(seconds) {
      const agent = new Agent({ keepAlive: true, maxSockets: connections });
      const begin = performance.now();
      const until = begin + seconds * 1000;
      let done = 0;
      let errors = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            if (await one(agent).catch(() => false)) done++;
            else errors++;
          }
        }),
      );
      agent.destroy();
      return { requests: done, seconds: (performance.now() - begin) / 1000, p50: Number.NaN, p99: Number.NaN, errors };
    },
  };
}

/** A target in a child process that runs its own loop on request (see ceilings.ts). */
export function loopTarget(name: string, server: Server<unknown>, loop: string): Target {
  return {
    name,
    server,
    slice(seconds) {
      return new Promise((resolve) => {
        const onMessage = (message: unknown) => {
          const done = message as { loop?: string; requests?: number; seconds?: number };
          if (done.loop !== loop || typeof done.requests !== 'number') return;
          server.child.off('message', onMessage);
          resolve({
            requests: done.requests,
            seconds: done.seconds ?? seconds,
            p50: Number.NaN,
            p99: Number.NaN,
            errors: 0,
          });
        };
        server.child.on('message', onMessage);
        server.child.send({ loop, seconds });
      });
    },
  };
}

export interface Measured {
  name: string;
  /** Mean requests per second over the slices. */
  rps: number;
  /** The largest p50 and p99 of the slices, milliseconds. */
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time per request, microseconds (its PostgreSQL backends included); null without /proc. */
  cpuUs: number | null;
  /** Cores' worth of CPU that other work on the machine took while this target was measured. */
  otherCores: number | null;
  /** Mean requests per second of each slice, in order: the spread shows how noisy the figure is. */
  slices: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wait until a server has finished what the last slice left it: the load generator stops on
 * time, but requests already sent (a queue of password hashes, say) are still worked on, and
 * would slow the next target's slice. Idle means under 5% of a core for two 100 ms windows in a
 * row; at most 20 s. Without /proc, a fixed second.
 */
async function settle(server: Server<unknown>): Promise<void> {
  if (!hasProc) return void (await sleep(1000));
  const total = () => [...serverCpu(server).values()].reduce((a, b) => a + b, 0);
  let quiet = 0;
  for (let i = 0; i < 200 && quiet < 2; i++) {
    const before = total();
    await sleep(100);
    quiet = total() - before < 5_000 ? quiet + 1 : 0;
  }
}

async function measuredSlice(target: Target, seconds: number) {
  const before = hasProc ? { server: serverCpu(target.server), machine: machineBusyUs(), own: ownCpuUs() } : null;
  const s = await target.slice(seconds);
  if (!before) return { ...s, cpuUs: null, otherCores: null };
  const after = serverCpu(target.server);
  let server = 0;
  // A backend that appeared during the slice started from nothing.
  for (const [pid, us] of after) server += us - (before.server.get(pid) ?? 0);
  const machine = machineBusyUs() - before.machine;
  const own = ownCpuUs() - before.own;
  return { ...s, cpuUs: server, otherCores: Math.max(0, machine - server - own) / (s.seconds * 1e6) };
}

/**
 * Measure targets in turns: one unmeasured warm-up slice each (the JIT has not optimised a
 * route's code before), then `SLICES` rounds in which every target gets one slice, so a burst
 * of load elsewhere on the machine hits them all alike. Results in the order of `targets`.
 */
export async function compare(
  targets: readonly Target[],
  options: { slices?: number; seconds?: number; warmup?: number } = {},
): Promise<Measured[]> {
  const seconds = options.seconds ?? SLICE_SECONDS;
  const rounds = options.slices ?? SLICES;
  const warmup = options.warmup ?? seconds;
  if (warmup > 0) {
    for (const target of targets) {
      await target.slice(warmup);
      await settle(target.server);
    }
  }
  const slices = targets.map(() => [] as Array<Awaited<ReturnType<typeof measuredSlice>>>);
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) {
      slices[i]!.push(await measuredSlice(target, seconds));
      await settle(target.server);
      process.stdout.write('.');
    }
  }
  process.stdout.write('\n');
  return targets.map((target, i) => {
    const own = slices[i]!;
    const requests = own.reduce((sum, s) => sum + s.requests, 0);
    const time = own.reduce((sum, s) => sum + s.seconds, 0);
    const cpu = own.every((s) => s.cpuUs !== null) ? own.reduce((sum, s) => sum + (s.cpuUs ?? 0), 0) : null;
    const others = own.every((s) => s.otherCores !== null)
      ? own.reduce((sum, s) => sum + (s.otherCores ?? 0), 0) / own.length
      : null;
    return {
      name: target.name,
      rps: requests / time,
      p50: Math.max(...own.map((s) => s.p50)),
      p99: Math.max(...own.map((s) => s.p99)),
      errors: own.reduce((sum, s) => sum + s.errors, 0),
      cpuUs: cpu === null || requests === 0 ? null : cpu / requests,
      otherCores: others,
      slices: own.map((s) => Math.round(s.requests / s.seconds)),
    };
  });
}

// ---- one autocannon run per row: what bench/suite-scaling.ts (its own slicing) builds on ----

/** Seconds per row of a suite that measures a row in one run (`BENCH_SECONDS`). */
export const DURATION = Number(process.env.BENCH_SECONDS ?? 8);

export interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  baseline?: { name: string; rps: number };
}

export async function measure(name: string, options: autocannon.Options, baseline?: Row): Promise<Row> {
  const r = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  const row: Row = {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
  if (baseline) row.baseline = { name: baseline.name, rps: baseline.rps };
  return row;
}

// ---- reporting ----

/** The machine, as each section's first line says it. */
export function machineLine(detail: string): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown cpu';
  return (
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} × ${cpu}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}. ${detail}`
  );
}

/** How the slices were taken, for a section's text. */
export function slicesLine(connections = CONNECTIONS): string {
  return (
    `${connections} connections from autocannon (in the bench process) unless a row says otherwise; ` +
    `each target measured in ${SLICES} slices of ${SLICE_SECONDS} s, in turns with the others of its table, after a ` +
    'warm-up slice each.'
  );
}

export const formatRps = (rps: number) => (rps >= 100 ? String(Math.round(rps)) : rps.toFixed(1));
// null: a NaN (no latency measured) after a round trip through results.json.
export const formatMs = (ms: number | null) => (ms === null || Number.isNaN(ms) ? '–' : String(ms));
export const formatCpu = (us: number | null) =>
  us === null ? '–' : us >= 100 ? String(Math.round(us)) : us.toFixed(1);
export const percent = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : '–');
/** How much capacity `cpu` leaves compared with `baselineCpu` (both per request): the ratio by CPU. */
export const cpuRatio = (cpu: number | null, baselineCpu: number | null) =>
  cpu && baselineCpu ? baselineCpu / cpu : Number.NaN;

export interface TableRow {
  label: string;
  m: Measured;
  /** The row this one is compared with; none for a baseline itself. */
  baseline?: Measured;
}

/**
 * A section's table: throughput, latency and server CPU time per request of each row, and its
 * ratio to its baseline both ways (requests per second in the same minute, and capacity by CPU
 * time: the baseline's CPU time per request over the row's). The last column lists the slices'
 * requests per second, so the spread of a figure is in sight.
 */
export function renderTable(rows: readonly TableRow[], baselineName = 'baseline'): string {
  const line = (r: TableRow) => {
    const vs = r.baseline
      ? [percent(r.m.rps / r.baseline.rps), percent(cpuRatio(r.m.cpuUs, r.baseline.cpuUs))]
      : [baselineName, baselineName];
    return (
      `| ${r.label} | ${formatRps(r.m.rps)} | ${formatMs(r.m.p50)} | ${formatMs(r.m.p99)} | ${r.m.errors} | ` +
      `${formatCpu(r.m.cpuUs)} | ${vs.join(' | ')} | ${r.m.slices.join(', ')} |`
    );
  };
  return [
    `| operation | requests/s | p50 ms | p99 ms | errors | server CPU µs/request | vs ${baselineName} (requests/s) ` +
      `| vs ${baselineName} (by CPU) | requests/s per slice |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(line),
  ].join('\n');
}

/** Mean cores' worth of other work over a table's targets, for its text. */
export function contentionLine(rows: readonly Measured[]): string {
  // `typeof`: rows of recordFigures have no `otherCores`.
  const known = rows.map((r) => r.otherCores).filter((c): c is number => typeof c === 'number');
  if (known.length === 0) return '';
  const mean = known.reduce((a, b) => a + b, 0) / known.length;
  return (
    `Other work on the machine took ${mean.toFixed(2)} cores on average during these slices (most ` +
    `${Math.max(...known).toFixed(2)}).`
  );
}

/** Replace the section between `<!-- marker:begin -->` and `<!-- marker:end -->` (appended when missing). */
export function writeSection(marker: string, text: string): void {
  const file = `${here}RESULTS.md`;
  const begin = `<!-- ${marker}:begin -->`;
  const end = `<!-- ${marker}:end -->`;
  const current = readFileSync(file, 'utf8');
  const next = current.includes(begin)
    ? current.replace(new RegExp(`${begin}[\\s\\S]*${end}`), () => `${begin}\n${text}\n${end}`)
    : `${current.trimEnd()}\n\n${begin}\n${text}\n${end}\n`;
  writeFileSync(file, next);
}

const resultsFile = `${here}results.json`;

/** One run of a suite: when and on which commit it was measured, and its rows by a stable key. */
export interface SuiteRun {
  measured: string;
  /** The commit the run measured (`+`: with uncommitted changes under packages/), when git could tell. */
  commit?: string;
  rows: Record<string, Measured>;
}

/** A suite's latest run, and the runs before it (newest first): the summary marks goals over several. */
export interface SuiteResults extends SuiteRun {
  earlier?: SuiteRun[];
}

/** How many runs of each suite results.json keeps (issue 23: each goal marked over at least three). */
const RUNS_KEPT = 3;

function commitMeasured(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '../packages'], {
      cwd: here,
      encoding: 'utf8',
    });
    return changed.trim() ? `${head}+` : head;
  } catch {
    return undefined; // not a git checkout
  }
}

/** Keep a suite's rows (by a stable key) in bench/results.json, for the summary and the plot. */
/**
 * A suite's figures that are not a throughput table (bench/suite-failover.ts: seconds and counts),
 * kept as its rows in results.json like any suite's. The summary reads the rows of the suites it
 * names, and of the others only `otherCores`, which these lack (contentionLine skips them).
 */
export function recordFigures(suite: string, measured: string, rows: Record<string, object>): void {
  recordResults(suite, measured, rows as Record<string, Measured>);
}

function recordResults(suite: string, measured: string, rows: Record<string, Measured>): void {
  const all = readResults();
  const previous = all[suite];
  const earlier = previous
    ? [{ measured: previous.measured, commit: previous.commit, rows: previous.rows }, ...(previous.earlier ?? [])]
    : [];
  all[suite] = { measured, commit: commitMeasured(), rows, earlier: earlier.slice(0, RUNS_KEPT - 1) };
  writeFileSync(resultsFile, `${JSON.stringify(all, null, 1)}\n`);
}

export function readResults(): Record<string, SuiteResults> {
  return existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, SuiteResults>) : {};
}

/**
 * A suite's runs, newest first. Runs kept before results.json recorded commits (measured with
 * code of before the latest changes, as like as not) count only while no run names its commit.
 */
export function runsOf(results: SuiteResults | undefined): SuiteRun[] {
  const runs = results ? [results, ...(results.earlier ?? [])] : [];
  return runs[0]?.commit ? runs.filter((run) => run.commit) : runs;
}

/**
 * A suite's results: its rows kept in results.json, its section of RESULTS.md written (the
 * machine, how the slices were taken, how much other work ran meanwhile, then `body`), and the
 * command failed when a request failed.
 */
export function publish(
  suite: string,
  machine: string,
  slices: string,
  rows: Record<string, Measured>,
  body: string[],
): void {
  recordResults(suite, machine, rows);
  const text = [machine, slices, contentionLine(Object.values(rows)), '', ...body].join('\n');
  console.log(text);
  writeSection(suite, text);
  reportErrors(Object.values(rows));
}

/** A run with failed requests is not a measurement: fail the command. */
export function reportErrors(rows: ReadonlyArray<Pick<Measured, 'name' | 'errors'>>): void {
  for (const r of rows)
    if (r.errors > 0) {
      console.error(`${r.name}: ${r.errors} errors`);
      process.exitCode = 1;
    }
}
