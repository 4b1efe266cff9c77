/**
 * The summary at the top of bench/RESULTS.md: one line per operation and goal of issues 7 and
 * 23, from the figures each suite kept in bench/results.json — Roost's throughput, latency and
 * server CPU time per request, its ratio to the baseline measured in the same minute, the goal
 * (met or not in the latest run), and its ratio to Parse Server doing the same (from the peer
 * suite, also measured in turns).
 */
import {
  contentionLine,
  cpuRatio,
  formatCpu,
  formatMs,
  formatRps,
  percent,
  readResults,
  writeSection,
  type Measured,
  type SuiteResults,
} from './lib.js';

interface Line {
  operation: string;
  /** suite and row key of Roost's figure (SQLite). */
  roost: [string, string];
  baseline?: [string, string];
  baselineName?: string;
  /** The goal for the ratio to the baseline. */
  goal?: number;
  /** The peer suite's operation key, when Parse Server has the same operation. */
  peer?: string;
}

const LINES: Line[] = [
  {
    operation: 'token (sign-in)',
    roost: ['users', 'token'],
    baseline: ['users', 'argon2'],
    baselineName: 'argon2id verify alone',
    peer: 'login',
  },
  {
    operation: 'identity with a bearer token',
    roost: ['users', 'identity'],
    baseline: ['users', 'bare'],
    baselineName: 'bare Fastify route',
    goal: 0.6,
    peer: 'me',
  },
  {
    operation: 'getItem',
    roost: ['datastore', 'getItem'],
    baseline: ['datastore', 'bare'],
    baselineName: 'bare Fastify route',
    goal: 0.6,
    peer: 'get',
  },
  {
    operation: 'getItem, against the storage ceiling',
    roost: ['datastore', 'getItem'],
    baseline: ['datastore', 'pointRead'],
    baselineName: 'better-sqlite3 point read in-process',
  },
  {
    operation: 'setItem (replace)',
    roost: ['datastore', 'setItem'],
    baseline: ['datastore', 'bare'],
    baselineName: 'bare Fastify route',
    goal: 0.3,
    peer: 'update',
  },
  {
    operation: 'list (page of 50)',
    roost: ['datastore', 'list'],
    baseline: ['datastore', 'bare'],
    baselineName: 'bare Fastify route',
    peer: 'list',
  },
  {
    operation: 'keys (page of 50)',
    roost: ['datastore', 'keys'],
    baseline: ['datastore', 'bare'],
    baselineName: 'bare Fastify route',
  },
  {
    operation: 'list, against its SQL',
    roost: ['datastore', 'list'],
    baseline: ['datastore', 'listCeiling'],
    baselineName: "bare route running list's SQL",
    goal: 0.7,
  },
  {
    operation: 'keys, against its SQL',
    roost: ['datastore', 'keys'],
    baseline: ['datastore', 'keysCeiling'],
    baselineName: "bare route running keys' SQL",
    goal: 0.7,
  },
  {
    operation: 'newItem (one key), against setItem',
    roost: ['datastore', 'newItem'],
    baseline: ['datastore', 'setItem'],
    baselineName: 'setItem (replace)',
    goal: 0.8,
  },
  {
    operation: 'PostgreSQL: identity',
    roost: ['postgres', 'identity'],
    baseline: ['postgres', 'bare'],
    baselineName: 'bare Fastify route',
    goal: 0.7,
  },
  {
    operation: 'PostgreSQL: getItem',
    roost: ['postgres', 'getItem'],
    baseline: ['postgres', 'pointRead'],
    baselineName: 'bare route, the same point read',
    goal: 0.7,
  },
  {
    operation: 'PostgreSQL: setItem (replace)',
    roost: ['postgres', 'setItem'],
    baseline: ['postgres', 'update'],
    baselineName: 'bare route, the same update',
    goal: 0.7,
  },
  {
    operation: 'PostgreSQL: list (page of 50)',
    roost: ['postgres', 'list'],
    baseline: ['postgres', 'listSql'],
    baselineName: "bare route, list's SQL",
    goal: 0.7,
  },
  {
    operation: 'file read 1 MiB (with token)',
    roost: ['filestore', 'readToken'],
    baseline: ['filestore', 'staticRead'],
    baselineName: '@fastify/static',
    goal: 0.7,
  },
  {
    operation: 'file read 1 MiB (node:http client)',
    roost: ['filestore', 'download'],
    baseline: ['filestore', 'staticDownload'],
    baselineName: '@fastify/static',
    goal: 0.7,
  },
  {
    operation: 'file write 1 MiB',
    roost: ['filestore', 'write'],
    baseline: ['filestore', 'bareUpload'],
    baselineName: 'bare Fastify upload to a file',
  },
  {
    operation: 'directory listing of 1000 entries',
    roost: ['filestore', 'list'],
    baseline: ['filestore', 'staticList'],
    baselineName: '@fastify/static listing',
  },
  { operation: 'sign-up', roost: ['peers', 'signup.sqlite'], peer: 'signup' },
  { operation: 'create an item', roost: ['peers', 'create.sqlite'], peer: 'create' },
];

const both = (m: Measured, base: Measured) =>
  `${percent(m.rps / base.rps)} / ${percent(cpuRatio(m.cpuUs, base.cpuUs))}`;

/** Met by both measures, by one of them, or by neither. */
function verdict(m: Measured, base: Measured, goal: number): string {
  const byRps = m.rps / base.rps >= goal;
  const byCpu = cpuRatio(m.cpuUs, base.cpuUs) >= goal;
  if (byRps && byCpu) return `≥ ${percent(goal)}: met`;
  if (byRps || byCpu) return `≥ ${percent(goal)}: met ${byRps ? 'by requests/s' : 'by CPU'} only`;
  return `≥ ${percent(goal)}: **not met**`;
}

function line(l: Line, results: Record<string, SuiteResults>): string | null {
  const m = results[l.roost[0]]?.rows[l.roost[1]];
  if (!m) return null;
  const base = l.baseline ? results[l.baseline[0]]?.rows[l.baseline[1]] : undefined;
  const peers = results.peers?.rows;
  const parse = l.peer ? peers?.[`${l.peer}.parse`] : undefined;
  const cells = [
    l.operation,
    formatRps(m.rps),
    `${formatMs(m.p50)} / ${formatMs(m.p99)}`,
    formatCpu(m.cpuUs),
    base ? `${l.baselineName}: ${formatRps(base.rps)}/s, ${formatCpu(base.cpuUs)} µs` : '–',
    base ? both(m, base) : '–',
    base && l.goal ? verdict(m, base, l.goal) : '–',
    parse ? `${formatRps(parse.rps)}/s, ${formatCpu(parse.cpuUs)} µs` : '–',
    parse && peers?.[`${l.peer}.sqlite`] ? both(peers[`${l.peer}.sqlite`]!, parse) : '–',
    parse && peers?.[`${l.peer}.postgres`] ? both(peers[`${l.peer}.postgres`]!, parse) : '–',
  ];
  return `| ${cells.join(' | ')} |`;
}

/**
 * A page of a store of a million items against the same page of a store of a thousand
 * (suite-pages.ts): the worst of its pairs (start, middle, end; no filter, owner, prefix; list
 * and keys), by CPU. The goal: at most twice the cost, so at least 50%.
 */
function pagesLine(suite: string, database: string, results: Record<string, SuiteResults>): string | null {
  const rows = results[suite]?.rows;
  if (!rows) return null;
  const pairs = Object.keys(rows)
    .filter((k) => k.endsWith(' large'))
    .map((k) => ({ key: k.slice(0, -' large'.length), large: rows[k]!, small: rows[`${k.slice(0, -6)} small`] }))
    .filter((p): p is typeof p & { small: Measured } => p.small !== undefined);
  if (pairs.length === 0) return null;
  const worst = pairs.reduce((a, b) =>
    cpuRatio(b.large.cpuUs, b.small.cpuUs) < cpuRatio(a.large.cpuUs, a.small.cpuUs) ? b : a,
  );
  const cells = [
    `${database}: a page of 50 in 1 000 000 items, worst of ${pairs.length} (${worst.key})`,
    formatRps(worst.large.rps),
    `${formatMs(worst.large.p50)} / ${formatMs(worst.large.p99)}`,
    formatCpu(worst.large.cpuUs),
    `the same page of 1000 items: ${formatRps(worst.small.rps)}/s, ${formatCpu(worst.small.cpuUs)} µs`,
    both(worst.large, worst.small),
    verdict(worst.large, worst.small, 0.5),
    '–',
    '–',
    '–',
  ];
  return `| ${cells.join(' | ')} |`;
}

export function writeSummary(): void {
  const results = readResults();
  const lines = [
    ...LINES.map((l) => line(l, results)),
    pagesLine('pages-sqlite', 'SQLite', results),
    pagesLine('pages-postgres', 'PostgreSQL', results),
  ].filter((l): l is string => l !== null);
  if (lines.length === 0) return;
  const text = [
    '| operation | Roost requests/s | p50 / p99 ms | server CPU µs/request | baseline (same minute) | vs baseline: ' +
      'requests/s / by CPU | goal | Parse Server (PostgreSQL) | Roost on SQLite vs Parse: requests/s / by CPU | ' +
      'Roost on PostgreSQL vs Parse |',
    '|---|---:|---:|---:|---|---:|---|---|---:|---:|',
    ...lines,
    '',
    'Roost runs on SQLite (its default) in every row but the last column. The figures come from the',
    'suites below, each measured at its own time; how much CPU other work took meanwhile says how far',
    'to trust the requests per second (the CPU ratios hold either way):',
    '',
    ...Object.entries(results).map(
      ([suite, r]) => `- ${suite}: ${r.measured} ${contentionLine(Object.values(r.rows))}`,
    ),
  ].join('\n');
  writeSection('summary', text);
}
