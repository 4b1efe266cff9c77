// Failovers in a row under load (issue 44, item 4; docs/scaling.md, "Failover"): the topology of
// packages/server/test/scale/failover.test.ts (Patroni with etcd over two PostgreSQL 15 instances,
// PgBouncer in transaction mode before HAProxy's primary port, three `roost serve` processes behind
// HAProxy; packages/server/test/helpers/failover-topology.ts), its primary's PostgreSQL killed
// (kill -9 of all its processes) several times, each time once the old primary has rejoined as the
// standby. Once with synchronous replication (Patroni's `synchronous_mode`), once without, where
// acknowledged writes may be lost; then, synchronous again, the primary's whole machine (its Patroni
// with its PostgreSQL, started again after the failover), whose leader key must expire first.
// Each failover's seconds without an acknowledged write, the failed requests by kind, when every
// live stream was back; at the end every acknowledged write is read back. `BENCH_FAILOVERS`
// (default 3) failovers per mode.
import {
  type FailoverFigures,
  missingWrites,
  secondsWithoutWrites,
  startFailoverLoad,
} from '../packages/server/test/helpers/failover-load.js';
import { startFailoverTopology } from '../packages/server/test/helpers/failover-topology.js';
import { machineLine, recordFigures, writeSection } from './lib.js';

const FAILOVERS = Number(process.env.BENCH_FAILOVERS ?? 3);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await sleep(50);
  }
}

interface Failover {
  killed: string;
  promoted: string;
  secondsWithoutWrites: number;
  /** From the kill until every stream was told `reload` by its process, listening again. */
  secondsUntilStreamsBack: number;
  /** Retryable answers (503 database_unavailable) during this failover, by operation. */
  retryable: Record<string, number>;
  /** Other failed requests during this failover. */
  failed: number;
}

/** What is killed: the primary's PostgreSQL (its Patroni hands over at once), or its Patroni with it. */
type Crash = 'postgres' | 'machine';

interface ModeRun {
  synchronous: boolean;
  crash: Crash;
  failovers: Failover[];
  requests: number;
  acknowledged: number;
  retryable: Record<string, number>;
  failures: string[];
  /** Acknowledged writes not found afterwards. */
  lost: number;
  streams: string;
}

const leaderOf = (roles: Record<string, string>) => Object.keys(roles).find((name) => roles[name] === 'leader') ?? '';

function difference(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([kind, n]) => [kind, n - (before[kind] ?? 0)]));
}

async function runMode(synchronous: boolean, crash: Crash): Promise<ModeRun> {
  const topology = await startFailoverTopology({ synchronous });
  try {
    const { cluster, front, token } = topology;
    const load = startFailoverLoad(front, token, { writers: 4, readers: 2, streams: 3 });
    const failovers: Failover[] = [];
    let figures: FailoverFigures;
    try {
      await waitFor(() => load.followers.every((f) => f.opened === 1), 'the streams open');
      for (let i = 0; i < FAILOVERS; i++) {
        // The old primary back as the (synchronous) standby, and five seconds of steady load.
        await cluster.healthy(120_000);
        await sleep(5000);
        const before = load.figures();
        const reloads = load.followers.map((f) => f.reloads);
        const killed = leaderOf(await cluster.roles());
        const killedAt = Date.now();
        if (crash === 'postgres') cluster.crashPostgres(killed);
        else cluster.crashMember(killed);
        let promoted = '';
        await waitFor(async () => {
          promoted = leaderOf(await cluster.roles().catch(() => ({})));
          return promoted !== '' && promoted !== killed;
        }, 'the standby is promoted');
        const acknowledged = load.acknowledged.size;
        await waitFor(() => load.acknowledged.size >= acknowledged + 20, 'writes resume');
        await waitFor(
          () => load.followers.every((f, n) => f.reloads > (reloads[n] ?? 0)),
          'every stream is told to reload',
        );
        const streamsBackAt = Date.now();
        // The machine back: its Patroni starts PostgreSQL, which rejoins as the standby.
        if (crash === 'machine') cluster.restartMember(killed);
        // The gap is complete once writes flow again: measured up to now.
        const after = load.figures();
        failovers.push({
          killed,
          promoted,
          secondsWithoutWrites: secondsWithoutWrites(load.acknowledged, killedAt, Date.now()),
          secondsUntilStreamsBack: (streamsBackAt - killedAt) / 1000,
          retryable: difference(after.retryable, before.retryable),
          failed: after.failures.length - before.failures.length,
        });
        console.log(`${modeName({ synchronous, crash })} failover ${i + 1}: ${JSON.stringify(failovers.at(-1))}`);
      }
    } finally {
      figures = await load.stop();
    }
    const lost = await missingWrites(front, token, [...load.acknowledged.keys()]);
    return {
      synchronous,
      crash,
      failovers,
      requests: figures.requests,
      acknowledged: figures.acknowledged,
      retryable: figures.retryable,
      failures: figures.failures,
      lost: lost.length,
      streams: load.followers.map((f) => `${f.opened}/${f.resumed}/${f.reloads}`).join(', '),
    };
  } finally {
    await topology.stop();
  }
}

const modeName = (run: Pick<ModeRun, 'synchronous' | 'crash'>) =>
  `${run.synchronous ? 'synchronous' : 'asynchronous'}, ` +
  `${run.crash === 'postgres' ? 'PostgreSQL' : 'the machine'} killed`;

const seconds = (values: number[]) =>
  `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)} (median ${
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]?.toFixed(1) ?? '–'
  })`;

function render(runs: ModeRun[]): string {
  const table = [
    '| replication, what is killed | failovers | seconds without writes | seconds until every stream is back | ' +
      'retryable answers (503 database_unavailable) | other failed requests | requests | writes acknowledged | ' +
      'acknowledged writes lost |',
    '|---|---:|---|---|---|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${modeName(run)} | ${run.failovers.length} | ` +
        `${seconds(run.failovers.map((f) => f.secondsWithoutWrites))} | ` +
        `${seconds(run.failovers.map((f) => f.secondsUntilStreamsBack))} | ` +
        `${
          Object.entries(run.retryable)
            .map(([kind, n]) => `${kind} ${n}`)
            .join(', ') || '0'
        } | ${run.failures.length} | ${run.requests} | ${run.acknowledged} | ${run.lost} |`,
    ),
  ];
  const failures = runs.flatMap((run) => run.failures.slice(0, 5));
  return [
    ...table,
    '',
    ...runs.map(
      (run) =>
        `${modeName(run)}, each failover (seconds without writes / until the ` +
        `streams are back): ${run.failovers
          .map((f) => `${f.secondsWithoutWrites.toFixed(1)} / ${f.secondsUntilStreamsBack.toFixed(1)}`)
          .join('; ')}; streams opened/resumed/reloaded: ${run.streams}.`,
    ),
    ...(failures.length > 0 ? ['', 'Failed requests (first five per mode):', ...failures.map((f) => `- ${f}`)] : []),
  ].join('\n');
}

export async function run(): Promise<void> {
  const machine = machineLine(
    'Patroni 3 with one etcd member over two PostgreSQL 15 instances, PgBouncer 1.18 (transaction mode) before ' +
      "HAProxy's primary port, three `roost serve` processes behind HAProxy, all on this machine; 4 writers " +
      '(a retryable answer written again after 200 ms), 2 readers and 3 live streams through the front.',
  );
  const runs = [await runMode(true, 'postgres'), await runMode(false, 'postgres'), await runMode(true, 'machine')];
  const key = (run: ModeRun) => `${run.synchronous ? 'sync' : 'async'}${run.crash === 'machine' ? '-machine' : ''}`;
  recordFigures('failover', machine, Object.fromEntries(runs.map((run) => [key(run), run])));
  const text = [machine, '', render(runs)].join('\n');
  console.log(text);
  writeSection('failover', text);
  if (runs.some((run) => run.synchronous && (run.failures.length > 0 || run.lost > 0))) {
    console.error('with synchronous replication, a request failed without a retryable answer or a write was lost');
    process.exitCode = 1;
  }
}
