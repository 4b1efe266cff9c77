// Throughput against concurrency: getItem and setItem (Roost on SQLite) at 1 to 256
// connections, beside the bare Fastify route and Parse Server's get and update of an object
// (on PostgreSQL) at the same concurrency. Writes bench/concurrency.svg.
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
  type Measured,
  type Server,
  type Target,
} from './lib.js';
import { parseHeaders, peerUnavailable, startParse, type ParseInfo } from './parse-peer.js';
import { plotSvg, type Series } from './plot.js';

const LEVELS = [1, 4, 16, 64, 256];
/** Fewer, shorter slices than the other suites: five levels of five targets. */
const SLICES = 2;
const SECONDS = 1.5;

type Op = 'bare' | 'getItem' | 'setItem' | 'parseGet' | 'parseUpdate';
const LABELS: Record<Op, string> = {
  bare: 'bare Fastify route',
  getItem: 'Roost getItem (SQLite)',
  setItem: 'Roost setItem (SQLite)',
  parseGet: 'Parse Server get (PostgreSQL)',
  parseUpdate: 'Parse Server update (PostgreSQL)',
};

export async function run(): Promise<void> {
  const machine = machineLine('Roost on SQLite, Parse Server on PostgreSQL.');
  const unavailable = await peerUnavailable();
  if (unavailable) console.log(`${unavailable}: Parse Server is left out of the plot.`);
  const bare = await start('bare-server.ts');
  const roost = await start<{ url: string; token: string }>('roost-server.ts');
  let parse: Server<ParseInfo> | undefined;
  try {
    if (!unavailable) parse = await startParse();
    const auth = { authorization: `Bearer ${roost.info.token}` };
    const value = 'a new value of item 502';
    const rows: Record<string, Measured> = {};
    for (const connections of LEVELS) {
      console.log(`${connections} connections`);
      const targets: Array<[Op, Target]> = [
        ['bare', httpTarget(LABELS.bare, bare, { connections, url: `${bare.info.url}/json` })],
        [
          'getItem',
          httpTarget(LABELS.getItem, roost, {
            connections,
            url: `${roost.info.url}/data/api/getItem?key=k500`,
            headers: auth,
          }),
        ],
        [
          'setItem',
          httpTarget(LABELS.setItem, roost, {
            connections,
            url: `${roost.info.url}/data/api/setItem`,
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ key: 'k502', value }),
          }),
        ],
      ];
      if (parse) {
        const p = parse.info;
        targets.push(
          [
            'parseGet',
            httpTarget(LABELS.parseGet, parse, {
              connections,
              url: `${p.url}/classes/Item/${p.ids[500]}`,
              headers: parseHeaders(p),
            }),
          ],
          [
            'parseUpdate',
            httpTarget(LABELS.parseUpdate, parse, {
              connections,
              url: `${p.url}/classes/Item/${p.ids[502]}`,
              method: 'PUT',
              headers: { ...parseHeaders(p), 'content-type': 'application/json' },
              body: JSON.stringify({ value }),
            }),
          ],
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
    const series = (op: Op, color: string, dashed: boolean): Series => ({
      name: LABELS[op],
      color,
      dashed,
      points: LEVELS.map((c) => [c, rows[`${op}@${c}`]?.rps ?? 0] as const),
    });
    const svg = plotSvg(
      [
        {
          title: 'Reading one item',
          xLabel: 'connections',
          yLabel: 'requests per second',
          series: [
            series('bare', '#999', true),
            series('getItem', '#1f6fb2', false),
            ...(parse ? [series('parseGet', '#d9822b', true)] : []),
          ],
        },
        {
          title: 'Replacing one item',
          xLabel: 'connections',
          yLabel: 'requests per second',
          series: [
            series('bare', '#999', true),
            series('setItem', '#2a9d4b', false),
            ...(parse ? [series('parseUpdate', '#d9822b', true)] : []),
          ],
        },
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
        "p99 latency (ms) and server CPU µs per request (with PostgreSQL's backends for Parse Server), " +
          'by connections:',
        '',
        header,
        `|---|${LEVELS.map(() => '---:').join('|')}|`,
        ...table((m) => `${m.p99} ms, ${formatCpu(m.cpuUs)} µs`),
      ],
    );
  } finally {
    await stop(bare, roost, parse);
  }
}
