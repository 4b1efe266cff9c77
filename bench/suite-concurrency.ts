// Throughput and latency against concurrency, 1 to 256 connections: every operation of the
// data store (getItem, setItem, newItem, a page of 50 by list) on SQLite and on PostgreSQL,
// beside the bare Fastify route and Parse Server's get and update of an object (on PostgreSQL)
// at the same concurrency. Writes bench/concurrency.svg; bench/summary.ts checks issue 23's
// goal on its rows (p99 at 256 connections at most twice p99 at 64).
import { writeFileSync } from 'node:fs';
import {
  compare,
  formatCpu,
  formatRps,
  here,
  httpTarget,
  machineLine,
  publish,
  start,
  stop,
  type HttpTargetOptions,
  type Measured,
  type Server,
  type Target,
} from './lib.js';
import { parseHeaders, peerUnavailable, startParse, type ParseInfo } from './parse-peer.js';
import { plotSvg, type Series } from './plot.js';
import { postgresReachable } from './postgres.js';
import { roostRequest, type RoostInfo, type RoostOp } from './roost-requests.js';

const LEVELS = [1, 4, 16, 64, 256];
/** Fewer, shorter slices than the other suites: five levels of up to eleven targets. */
const SLICES = 2;
const SECONDS = 1.5;

type DataOp = Exclude<RoostOp, 'identity' | 'keys'>;
type Op = 'bare' | DataOp | `pg.${DataOp}` | 'parseGet' | 'parseUpdate';
const ROOST_LABELS: Record<DataOp, string> = {
  getItem: 'getItem',
  setItem: 'setItem',
  newItem: 'newItem (one key)',
  list: 'list (page of 50 of 1000)',
};
const LABELS: Record<Op, string> = {
  bare: 'bare Fastify route',
  ...(Object.fromEntries(
    (Object.keys(ROOST_LABELS) as DataOp[]).flatMap((op) => [
      [op, `Roost ${ROOST_LABELS[op]} (SQLite)`],
      [`pg.${op}`, `Roost ${ROOST_LABELS[op]} (PostgreSQL)`],
    ]),
  ) as Record<DataOp | `pg.${DataOp}`, string>),
  parseGet: 'Parse Server get (PostgreSQL)',
  parseUpdate: 'Parse Server update (PostgreSQL)',
};

export async function run(): Promise<void> {
  const machine = machineLine('Roost on SQLite and on PostgreSQL 15, Parse Server on PostgreSQL.');
  const unavailable = await peerUnavailable();
  if (unavailable) console.log(`${unavailable}: Parse Server is left out of the plot.`);
  const withPostgres = await postgresReachable();
  if (!withPostgres) console.log('PostgreSQL is not reachable: Roost on PostgreSQL is left out of the plot.');
  const bare = await start('bare-server.ts');
  const roost = await start<RoostInfo>('roost-server.ts');
  let postgres: Server<RoostInfo> | undefined;
  let parse: Server<ParseInfo> | undefined;
  try {
    if (withPostgres) postgres = await start<RoostInfo>('roost-server.ts', { BENCH_POSTGRES: '1' });
    if (!unavailable) parse = await startParse();
    const rows: Record<string, Measured> = {};
    for (const connections of LEVELS) {
      console.log(`${connections} connections`);
      const target = (op: Op, server: Server<unknown>, options: HttpTargetOptions): [Op, Target] => [
        op,
        httpTarget(LABELS[op], server, { ...options, connections }),
      ];
      const roostOps = Object.keys(ROOST_LABELS) as DataOp[];
      const pg = postgres;
      const targets: Array<[Op, Target]> = [
        target('bare', bare, { url: `${bare.info.url}/json` }),
        ...roostOps.map((op) => target(op, roost, roostRequest(op, roost.info))),
        ...roostOps.flatMap((op) => (pg ? [target(`pg.${op}`, pg, roostRequest(op, pg.info))] : [])),
      ];
      if (parse) {
        const p = parse.info;
        targets.push(
          target('parseGet', parse, { url: `${p.url}/classes/Item/${p.ids[500]}`, headers: parseHeaders(p) }),
          target('parseUpdate', parse, {
            url: `${p.url}/classes/Item/${p.ids[502]}`,
            method: 'PUT',
            headers: { ...parseHeaders(p), 'content-type': 'application/json' },
            body: JSON.stringify({ value: 'a new value of item 502' }),
          }),
        );
      }
      // The first level warms every route up; the later ones run code the JIT has already optimised.
      const measured = await compare(
        targets.map(([, t]) => t),
        { slices: SLICES, seconds: SECONDS, warmup: connections === LEVELS[0] ? 2 : 0.5 },
      );
      for (const [i, [op]] of targets.entries()) rows[`${op}@${connections}`] = measured[i]!;
    }
    const ops = (Object.keys(LABELS) as Op[]).filter((op) => rows[`${op}@1`]);
    const series = (op: Op, color: string, dashed: boolean): Series[] =>
      rows[`${op}@1`]
        ? [{ name: LABELS[op], color, dashed, points: LEVELS.map((c) => [c, rows[`${op}@${c}`]?.rps ?? 0] as const) }]
        : [];
    const panel = (title: string, op: DataOp, parseOp?: Op) => ({
      title,
      xLabel: 'connections',
      yLabel: 'requests per second',
      series: [
        ...series('bare', '#999', true),
        ...series(op, '#1f6fb2', false),
        ...series(`pg.${op}`, '#2a9d4b', false),
        ...(parseOp ? series(parseOp, '#d9822b', true) : []),
      ],
    });
    const svg = plotSvg(
      [
        panel('Reading one item', 'getItem', 'parseGet'),
        panel('Replacing one item', 'setItem', 'parseUpdate'),
        panel('Creating one item', 'newItem'),
        panel('A page of 50 with its total', 'list'),
      ],
      `${machine.split(';')[0]}; ${SLICES} slices of ${SECONDS} s per point, in turns`,
    );
    writeFileSync(`${here}concurrency.svg`, svg);
    const header = `| operation | ${LEVELS.map((c) => `${c}`).join(' | ')} |`;
    const table = (pick: (m: Measured) => string) =>
      ops.map((op) => `| ${LABELS[op]} | ${LEVELS.map((c) => pick(rows[`${op}@${c}`]!)).join(' | ')} |`);
    publish(
      'concurrency',
      machine,
      `Each point: ${SLICES} slices of ${SECONDS} s per target, the targets of one concurrency in turns.`,
      rows,
      [
        '![Requests per second against connections](concurrency.svg)',
        '',
        `Requests per second by connections:`,
        '',
        header,
        `|---|${LEVELS.map(() => '---:').join('|')}|`,
        ...table((m) => formatRps(m.rps)),
        '',
        "p99 latency (ms) and server CPU µs per request (with PostgreSQL's backends), by connections:",
        '',
        header,
        `|---|${LEVELS.map(() => '---:').join('|')}|`,
        ...table((m) => `${m.p99} ms, ${formatCpu(m.cpuUs)} µs`),
      ],
    );
  } finally {
    await stop(bare, roost, postgres, parse);
  }
}
