/**
 * The summary at the top of bench/RESULTS.md: one line per operation and goal of issues 7 and
 * 23, from the figures each suite kept in bench/results.json — Roost's throughput, latency and
 * server CPU time per request, its ratio to the baseline measured in the same minute, the goal
 * (met or not, over the last three runs of its suite), and its ratio to Parse Server doing the
 * same (from the peer suite, also measured in turns).
 */
import {
  contentionLine,
  cpuRatio,
  formatCpu,
  formatMs,
  formatRps,
  percent,
  readResults,
  runsOf,
  writeSection,
  type Measured,
  type SuiteResults,
  type SuiteRun,
} from './lib.js';

interface Line {
  operation: string;
  /** suite and row key of Roost's figure (SQLite). */
  roost: [string, string];
  baseline?: [string, string];
  baselineName?: string;
  /** The issue's goal for the ratio to the baseline. */
  goal?: number;
  /** How the goal is said, when not as the ratio (`≤ 2×` for a goal of 0.5: at most twice the cost). */
  goalText?: string;
  /** The peer suite's operation key, when Parse Server has the same operation. */
  peer?: string;
}

/** Issue 23's goals against Parse Server, from the peer suite (whose store is full after its creates). */
function parseGoal(op: string, database: 'sqlite' | 'postgres', goal: number): Line {
  const name = database === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return {
    operation: `against Parse Server: ${op}, Roost on ${name}`,
    roost: ['peers', `${op}.${database}`],
    baseline: ['peers', `${op}.parse`],
    baselineName: 'Parse Server',
    goal,
  };
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
  // Issue 41, item 3: thumbnails per second at least 80% of sharp alone (suite-thumbnails.ts).
  {
    operation: 'thumbnails: a new thumbnail of a 1200 × 900 JPEG, against sharp alone',
    roost: ['thumbnails', 'made'],
    baseline: ['thumbnails', 'sharpAlone'],
    baselineName: 'sharp alone behind a bare route',
    goal: 0.8,
  },
  {
    operation: 'thumbnails: a new thumbnail of a 12 MP photo, against sharp alone',
    roost: ['thumbnails', 'photoMade'],
    baseline: ['thumbnails', 'photoSharpAlone'],
    baselineName: 'sharp alone behind a bare route',
    goal: 0.8,
  },
  {
    operation: 'thumbnails: a cached thumbnail, against a file read of its bytes',
    roost: ['thumbnails', 'cachedRead'],
    baseline: ['thumbnails', 'fileRead'],
    baselineName: 'file read',
  },
  parseGoal('get', 'sqlite', 10),
  parseGoal('create', 'sqlite', 10),
  parseGoal('list', 'sqlite', 10),
  parseGoal('get', 'postgres', 5),
  parseGoal('update', 'postgres', 5),
  parseGoal('list', 'postgres', 3),
  { operation: 'sign-up', roost: ['peers', 'signup.sqlite'], peer: 'signup' },
  { operation: 'create an item', roost: ['peers', 'create.sqlite'], peer: 'create' },
  // Issue 40: a registered no-op before-hook costs at most 5 % (suite-hooks.ts).
  {
    operation: 'hooks: setItem with a no-op before-hook, against none',
    roost: ['hooks', 'hookedSetItem'],
    baseline: ['hooks', 'setItem'],
    baselineName: 'setItem, no hook',
    goal: 0.95,
  },
  {
    operation: 'hooks: create a record with a no-op before-hook, against none',
    roost: ['hooks', 'hookedCreate'],
    baseline: ['hooks', 'create'],
    baselineName: 'create, no hook',
    goal: 0.95,
  },
  // Issue 39 (collections): suite-collections.ts and suite-collections-scale.ts.
  {
    operation: 'collections: create a record of ten fields, against newItem',
    roost: ['collections', 'create'],
    baseline: ['collections', 'newItem'],
    baselineName: 'newItem (one key)',
    goal: 0.7,
  },
  {
    operation: 'collections: get a record, against getItem',
    roost: ['collections', 'get'],
    baseline: ['collections', 'getItem'],
    baselineName: 'getItem',
    goal: 0.8,
  },
  {
    operation: 'collections: a page of 50 under the owner rule, against no rule',
    roost: ['collections', 'ownList'],
    baseline: ['collections', 'openList'],
    baselineName: 'the same page, list rule ""',
    goal: 0.8,
  },
  ...(['SQLite', 'PostgreSQL'] as const).flatMap((name): Line[] => {
    const key = name === 'SQLite' ? 'sqlite' : 'postgres';
    const small = ['collections-scale', `${key} small`] as [string, string];
    return [
      {
        operation: `collections, ${name}: a page of 50 by an indexed field, with its total, in 1 000 000 records`,
        roost: ['collections-scale', `${key} large`],
        baseline: small,
        baselineName: 'the same in 1000',
        goal: 0.5,
        goalText: '≤ 2×',
      },
      {
        operation: `collections, ${name}: the same by a field without an index, in 1 000 000`,
        roost: ['collections-scale', `${key} unindexed`],
        baseline: small,
        baselineName: 'the indexed page in 1000',
      },
    ];
  }),
  {
    operation: 'collections against Parse Server: where, page of 50, count, include; Roost on SQLite',
    roost: ['collections', 'articles.sqlite'],
    baseline: ['collections', 'articles.parse'],
    baselineName: 'Parse Server (PostgreSQL)',
    goal: 10,
  },
  {
    operation: 'collections against Parse Server: the same, Roost on PostgreSQL',
    roost: ['collections', 'articles.postgres'],
    baseline: ['collections', 'articles.parse'],
    baselineName: 'Parse Server (PostgreSQL)',
    goal: 3,
  },
];

const both = (m: Measured, base: Measured) =>
  `${percent(m.rps / base.rps)} / ${percent(cpuRatio(m.cpuUs, base.cpuUs))}`;

type Mark = 'met' | 'by requests/s only' | 'by CPU only' | 'not met';

/** Met by both measures, by one of them, or by neither. */
function mark(m: Measured, base: Measured, goal: number): Mark {
  const byRps = m.rps / base.rps >= goal;
  const byCpu = cpuRatio(m.cpuUs, base.cpuUs) >= goal;
  if (byRps && byCpu) return 'met';
  if (byRps || byCpu) return byRps ? 'by requests/s only' : 'by CPU only';
  return 'not met';
}

/**
 * The goal's cell over the runs kept (newest first): met in how many, by one measure only in how
 * many. Issue 23 asks for each goal marked over at least three runs; fewer are said.
 */
function verdict(marks: Mark[], goal: string): string {
  const n = marks.length;
  const runs = `${n} run${n === 1 ? '' : 's'}${n < 3 ? ' so far' : ''}`;
  const count = (m: Mark) => marks.filter((x) => x === m).length;
  const met = count('met');
  if (met === n) return `${goal}: met in ${met} of ${runs}`;
  const partly = (['by requests/s only', 'by CPU only'] as const)
    .filter((m) => count(m) > 0)
    .map((m) => `${m} in ${count(m)}`);
  if (met === 0 && partly.length === 0) return `${goal}: **not met** in ${runs}`;
  return `${goal}: met in ${met} of ${runs}${partly.length > 0 ? `, ${partly.join(', ')}` : ''}`;
}

/**
 * Roost's row and its baseline in each kept run of their suite that has both (newest first).
 * Rows of two suites were measured at different times: only their latest runs are compared.
 */
function pairsOver(results: Record<string, SuiteResults>, roost: [string, string], base: [string, string]) {
  const runs =
    roost[0] === base[0]
      ? runsOf(results[roost[0]]).map((run) => ({ m: run.rows[roost[1]], base: run.rows[base[1]] }))
      : [{ m: results[roost[0]]?.rows[roost[1]], base: results[base[0]]?.rows[base[1]] }];
  return runs.filter((p): p is { m: Measured; base: Measured } => p.m !== undefined && p.base !== undefined);
}

function line(l: Line, results: Record<string, SuiteResults>): string | null {
  const m = results[l.roost[0]]?.rows[l.roost[1]];
  if (!m) return null;
  const base = l.baseline ? results[l.baseline[0]]?.rows[l.baseline[1]] : undefined;
  const peers = results.peers?.rows;
  const parse = l.peer ? peers?.[`${l.peer}.parse`] : undefined;
  const goal = l.goal;
  const cells = [
    l.operation,
    formatRps(m.rps),
    `${formatMs(m.p50)} / ${formatMs(m.p99)}`,
    formatCpu(m.cpuUs),
    base ? `${l.baselineName}: ${formatRps(base.rps)}/s, ${formatCpu(base.cpuUs)} µs` : '–',
    base ? both(m, base) : '–',
    base && l.baseline && goal
      ? verdict(
          pairsOver(results, l.roost, l.baseline).map((p) => mark(p.m, p.base, goal)),
          l.goalText ?? (goal >= 1 ? `≥ ${goal}×` : `≥ ${percent(goal)}`),
        )
      : '–',
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
  const worsts = runsOf(results[suite]).flatMap((run) => {
    const w = worstPair(run.rows);
    return w ? [w] : [];
  });
  const worst = worsts[0];
  if (!worst) return null;
  const cells = [
    `${database}: a page of 50 in 1 000 000 items, worst of ${worst.pairs} (${worst.key})`,
    formatRps(worst.large.rps),
    `${formatMs(worst.large.p50)} / ${formatMs(worst.large.p99)}`,
    formatCpu(worst.large.cpuUs),
    `the same page of 1000 items: ${formatRps(worst.small.rps)}/s, ${formatCpu(worst.small.cpuUs)} µs`,
    both(worst.large, worst.small),
    verdict(
      worsts.map((w) => mark(w.large, w.small, 0.5)),
      '≤ 2×',
    ),
    '–',
    '–',
    '–',
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The pair (`<page> large` against `<page> small`) whose large page costs most more, by CPU. */
function worstPair(rows: Record<string, Measured>) {
  const pairs = Object.keys(rows)
    .filter((k) => k.endsWith(' large'))
    .map((k) => ({ key: k.slice(0, -' large'.length), large: rows[k]!, small: rows[`${k.slice(0, -6)} small`] }))
    .filter((p): p is typeof p & { small: Measured } => p.small !== undefined);
  if (pairs.length === 0) return null;
  const worst = pairs.reduce((a, b) =>
    cpuRatio(b.large.cpuUs, b.small.cpuUs) < cpuRatio(a.large.cpuUs, a.small.cpuUs) ? b : a,
  );
  return { ...worst, pairs: pairs.length };
}

/**
 * Issue 39: one record change heard by 1000 live queries with different filters, p99 under 100
 * ms from the write's answer (suite-collections.ts, collections-live.ts: the row `live`, its CPU
 * time per write, not per request), over the kept runs.
 */
function liveLine(results: Record<string, SuiteResults>): string | null {
  const runs = runsOf(results.collections).flatMap((run) => (run.rows.live ? [run.rows.live] : []));
  const latest = runs[0];
  if (!latest) return null;
  const marks = runs.map((m): Mark => (m.p99 < 100 ? 'met' : 'not met'));
  const cells = [
    'collections: one record change to 1000 live queries, each filter different (SSE, SQLite); CPU per write',
    '–',
    `${formatMs(latest.p50)} / ${formatMs(latest.p99)}`,
    formatCpu(latest.cpuUs),
    '–',
    '–',
    verdict(marks, 'p99 < 100 ms'),
    '–',
    '–',
    '–',
  ];
  return `| ${cells.join(' | ')} |`;
}

/**
 * Issue 23: p99 latency at 256 connections at most twice p99 at 64, for every operation of the
 * concurrency suite (rows `<op>@<connections>`), over its kept runs. Beside it, what waiting in
 * line alone makes of the ratio: with every connection keeping one request in flight, a
 * request's mean latency is connections / throughput (Little's law), so 4 × (requests/s at 64 /
 * requests/s at 256) once the server is saturated — the bare route's own ratio shows it.
 */
function latencyTable(results: Record<string, SuiteResults>): string[] {
  const runs = runsOf(results.concurrency);
  const latest = runs[0];
  if (!latest) return [];
  const ops = Object.keys(latest.rows)
    .filter((k) => k.endsWith('@256') && latest.rows[k.replace('@256', '@64')])
    .map((k) => k.slice(0, -'@256'.length));
  const holds = (run: SuiteRun, op: string) => {
    const [at64, at256] = [run.rows[`${op}@64`], run.rows[`${op}@256`]];
    return at64 && at256 ? [at256.p99 <= 2 * at64.p99] : [];
  };
  return [
    '| operation (concurrency suite) | p99 at 64 connections, ms | p99 at 256, ms | ratio | ' +
      "waiting in line alone (Little's law) | goal |",
    '|---|---:|---:|---:|---:|---|',
    ...ops.map((op) => {
      const [at64, at256] = [latest.rows[`${op}@64`]!, latest.rows[`${op}@256`]!];
      const marks = runs.flatMap((run) => holds(run, op)).map((ok): Mark => (ok ? 'met' : 'not met'));
      const ratio = at64.p99 > 0 ? `${(at256.p99 / at64.p99).toFixed(1)}×` : '–';
      const queueing = `${((4 * at64.rps) / at256.rps).toFixed(1)}×`;
      const cells = [at64.name, formatMs(at64.p99), formatMs(at256.p99), ratio, queueing, verdict(marks, '≤ 2×')];
      return `| ${cells.join(' | ')} |`;
    }),
  ];
}

export function writeSummary(): void {
  const results = readResults();
  const lines = [
    ...LINES.map((l) => line(l, results)),
    pagesLine('pages-sqlite', 'SQLite', results),
    pagesLine('pages-postgres', 'PostgreSQL', results),
    liveLine(results),
  ].filter((l): l is string => l !== null);
  if (lines.length === 0) return;
  const text = [
    '| operation | Roost requests/s | p50 / p99 ms | server CPU µs/request | baseline (same minute) | vs baseline: ' +
      'requests/s / by CPU | goal | Parse Server (PostgreSQL) | Roost on SQLite vs Parse: requests/s / by CPU | ' +
      'Roost on PostgreSQL vs Parse |',
    '|---|---:|---:|---:|---|---:|---|---|---:|---:|',
    ...lines,
    '',
    ...latencyTable(results),
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
