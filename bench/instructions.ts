/**
 * Instructions per request, counted by valgrind's callgrind: the figure to decide a
 * performance change by on a shared machine. Requests per second and even CPU time move with
 * whatever else the cores are doing; the instructions a server executes per request do not.
 *
 *   node --import tsx bench/instructions.ts [--requests N] [--warmup N] [--connections N] [--functions N] [op...]
 *
 * ops: bare, ping, identity, getItem, setItem, newItem (a fresh key each), list, keys, and the ceilings of
 * getItem, setItem, list and keys (sqlGet, sqlSet, sqlList, sqlKeys: bench/sql-ceiling-server.ts); the
 * collections' articles, notes, ownNotes, getRecord and createRecord (collections-server.ts, sent as
 * compare-trees.ts sends them); all by default. With BENCH_POSTGRES=1 on
 * PostgreSQL (the Node process's instructions only). Each server runs
 * under valgrind (fifty times slower) with V8 on one thread (no background compiler or GC
 * threads to blur the counts). Each operation is warmed up by `--warmup` requests without
 * counting, then counted in windows of `--requests` requests until two windows in a row agree
 * within 2% (at most eight). V8's optimising compiler still runs in the first windows (it
 * compiles a route's code at its own pace): its instructions are left out of the figure and
 * reported beside it. Garbage collection is in the figure, and also shown apart: it comes in
 * lumps, so windows agree on the figure without it. `--functions N` lists the N functions with
 * the most instructions of the last window, JavaScript ones by name (from V8's perf map). The
 * dumps stay in bench/out/ for `callgrind_annotate`. Needs valgrind (Debian's package) and a few minutes per server.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { here } from './lib.js';
import { COLLECTION_OPS, roostRequest, type RoostInfo, type RoostOp } from './roost-requests.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '10' },
    functions: { type: 'string', default: '0' },
  },
});
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const FUNCTIONS = Number(values.functions);
const MAX_WINDOWS = 8;

type Info = { url: string; token?: string };
interface Op {
  server: 'bare-server.ts' | 'roost-server.ts' | 'sql-ceiling-server.ts' | 'collections-server.ts';
  options(info: Info): autocannon.Options;
}

/** An operation of the bench Roost, sent as every suite sends it (roost-requests.ts). */
const roost = (op: RoostOp): Op => ({
  server: 'roost-server.ts',
  // roost-server.ts reports its user's token with its address.
  options: (info) => roostRequest(op, info as RoostInfo),
});
const OPS: Record<string, Op> = {
  bare: { server: 'bare-server.ts', options: (i) => ({ url: `${i.url}/json` }) },
  ping: { server: 'roost-server.ts', options: (i) => ({ url: `${i.url}/users/api/ping` }) },
  identity: roost('identity'),
  getItem: roost('getItem'),
  setItem: roost('setItem'),
  newItem: roost('newItem'),
  list: roost('list'),
  keys: roost('keys'),
  // The ceilings of the data store's operations (sql-ceiling-server.ts): the same SQL, nothing else.
  sqlGet: { server: 'sql-ceiling-server.ts', options: (i) => ({ url: `${i.url}/item` }) },
  sqlSet: { server: 'sql-ceiling-server.ts', options: (i) => ({ url: `${i.url}/item`, method: 'POST' }) },
  sqlList: { server: 'sql-ceiling-server.ts', options: (i) => ({ url: `${i.url}/list` }) },
  sqlKeys: { server: 'sql-ceiling-server.ts', options: (i) => ({ url: `${i.url}/keys` }) },
  // The collections' (collections-server.ts), as compare-trees.ts sends them.
  ...Object.fromEntries(
    Object.entries(COLLECTION_OPS).map(([name, request]) => [
      name,
      { server: 'collections-server.ts', options: (i: Info) => request(i as RoostInfo) } satisfies Op,
    ]),
  ),
};

const wanted = positionals.length > 0 ? positionals : Object.keys(OPS);
const unknown = wanted.filter((op) => !(op in OPS));
if (unknown.length > 0) {
  console.error(`unknown operation ${unknown.join(', ')}; known: ${Object.keys(OPS).join(', ')}`);
  process.exit(2);
}

const outDir = `${here}out/`;
mkdirSync(outDir, { recursive: true });

function startUnderValgrind(script: string): Promise<{ child: ChildProcess; info: Info }> {
  const name = script.replace(/\.ts$/, '');
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${outDir}callgrind.${name}.%p`,
      // One thread for V8's compiler and collector, so that their work lands in the windows it
      // belongs to; no memory reducer (it collects on timers, which fire fifty times as often
      // per request here); the names of JIT code in /tmp/perf-<pid>.map.
      process.execPath,
      '--single-threaded',
      '--no-memory-reducer',
      '--perf-basic-prof',
      '--import',
      'tsx',
      here + script,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // Roost's clock at a fiftieth of real time, so that its caches expire as often per request
      // as at full speed (roost-setup.ts).
      env: { ...process.env, BENCH_CLOCK_RATE: '0.02' },
    },
  );
  return new Promise((resolve, reject) => {
    child.once('message', (info) => resolve({ child, info: info as Info }));
    child.once('exit', (code) => reject(new Error(`valgrind ${script} exited with ${code}`)));
  });
}

const control = (pid: number, ...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });

/** The newest dump of a server process (they are numbered <name>.<pid>.1, .2, ...). */
function lastDump(pid: number): string {
  const dumps = readdirSync(outDir)
    .map((f) => new RegExp(`\\.${pid}\\.(\\d+)$`).exec(f))
    .filter((m) => m !== null);
  const newest = dumps.sort((a, b) => Number(b[1]) - Number(a[1]))[0];
  if (!newest) throw new Error(`no callgrind dump of ${pid}`);
  return outDir + newest.input;
}

/** Instructions by function (self cost) of a callgrind dump, JIT code named from V8's perf map. */
function functionsOf(file: string): { functions: Map<string, number>; collecting: number } {
  const text = readFileSync(file, 'utf8');
  const names = new Map<string, string>();
  const nameOf = (spec: string) => {
    // "(12) name" defines a compressed name, "(12)" uses it.
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return names.get(m[1]!) ?? spec;
  };
  const self = new Map<string, number>();
  let current = '';
  let callee = '';
  let callCost = false;
  // Garbage collection, inclusive: every collection enters through Heap::CollectGarbage.
  let collecting = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) current = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4));
    else if (line.startsWith('calls='))
      callCost = true; // the next cost line is the callee's, inclusive
    else if (/^[0-9+\-*]/.test(line)) {
      const cost = Number(line.trim().split(/\s+/).at(-1));
      if (!callCost) self.set(current, (self.get(current) ?? 0) + cost);
      else if (callee.startsWith('v8::internal::Heap::CollectGarbage') && !current.startsWith('v8::internal::Heap::'))
        collecting += cost;
      callCost = false;
    }
  }
  const pid = /^pid: (\d+)/m.exec(text)?.[1];
  const map = `/tmp/perf-${pid}.map`;
  const ranges = existsSync(map)
    ? readFileSync(map, 'utf8')
        .split('\n')
        .flatMap((l) => {
          const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(l);
          return m ? [{ start: parseInt(m[1]!, 16), end: parseInt(m[1]!, 16) + parseInt(m[2]!, 16), name: m[3]! }] : [];
        })
    : [];
  const jitName = (name: string) => {
    const m = /^0x([0-9a-f]+)$/.exec(name);
    if (!m) return name.replace(/ \[[^\]]*\]$/, '');
    const address = parseInt(m[1]!, 16);
    // The latest mapping wins: code is compiled again at the same place after a deopt.
    for (let i = ranges.length - 1; i >= 0; i--)
      if (address >= ranges[i]!.start && address < ranges[i]!.end)
        return ranges[i]!.name.replace(`file://${here}../`, '');
    return name;
  };
  const named = new Map<string, number>();
  for (const [name, cost] of self) {
    const key = jitName(name);
    named.set(key, (named.get(key) ?? 0) + cost);
  }
  return { functions: named, collecting };
}

/** V8 compiling (parsing, bytecode, Sparkplug, TurboFan): work of the warm-up, not of the request. */
const COMPILER_PARTS = 'compiler|maglev|baseline|interpreter';
const COMPILER_CLASSES =
  'Parser|PreParser|Scanner|Compiler|Zone|OptimizedCompilationJob|TurbofanCompilationJob|CodeGenerator';
const COMPILING = new RegExp(`^(v8::internal::(${COMPILER_PARTS})::|v8::internal::(${COMPILER_CLASSES})\\b)`);

interface Window {
  /** Instructions per request, V8's compiling left out. */
  perRequest: number;
  /**
   * Of these, garbage collection's: it comes in lumps (a collection every thousand requests or so), so windows differ.
   */
  collecting: number;
  compiling: number;
  file: string;
  functions: Map<string, number>;
}

function windowOf(file: string, requests: number): Window {
  const { functions, collecting } = functionsOf(file);
  let total = 0;
  let compiling = 0;
  for (const [name, cost] of functions) {
    total += cost;
    if (COMPILING.test(name)) compiling += cost;
  }
  return {
    perRequest: (total - compiling) / requests,
    collecting: collecting / requests,
    compiling: compiling / requests,
    file,
    functions,
  };
}

/** The figure two windows must agree on: without garbage collection, the steadiest part. */
const steady = (w: Window) => w.perRequest - w.collecting;

const results: Array<{ op: string; perRequest: number; withoutGc: number }> = [];
for (const server of [...new Set(wanted.map((op) => OPS[op]!.server))]) {
  console.log(`starting ${server} under valgrind`);
  const { child, info } = await startUnderValgrind(server);
  const pid = child.pid!;
  try {
    for (const op of wanted.filter((o) => OPS[o]!.server === server)) {
      // Under valgrind a request takes fifty times as long: a generous timeout.
      const options = { ...OPS[op]!.options(info), connections: CONNECTIONS, timeout: 120 };
      const warm = await autocannon({ ...options, amount: WARMUP });
      if (warm.non2xx + warm.errors > 0) throw new Error(`${op}: ${warm.non2xx + warm.errors} failed requests`);
      const windows: Window[] = [];
      const settled = () =>
        windows.length >= 2 && Math.abs(steady(windows.at(-1)!) / steady(windows.at(-2)!) - 1) < 0.02;
      while (windows.length < MAX_WINDOWS && !settled()) {
        control(pid, '--instr=on');
        const run = await autocannon({ ...options, amount: REQUESTS });
        control(pid, '--instr=off');
        control(pid, '--dump');
        if (run.non2xx + run.errors > 0) throw new Error(`${op}: ${run.non2xx + run.errors} failed requests`);
        windows.push(windowOf(lastDump(pid), run.requests.total));
      }
      const last = windows.at(-1)!;
      results.push({ op, perRequest: last.perRequest, withoutGc: steady(last) });
      const trail = windows
        .map(
          (w) =>
            `${Math.round(steady(w))} + ${Math.round(w.collecting)} ` +
            `GC${w.compiling >= 1 ? ` (+${Math.round(w.compiling)} compiling)` : ''}`,
        )
        .join(', ');
      console.log(
        `${op}: ${Math.round(last.perRequest)} instructions per request, ${Math.round(steady(last))} without ` +
          `GC${settled() ? '' : ' (NOT settled)'}; windows: ${trail}; ${last.file}`,
      );
      if (FUNCTIONS > 0) {
        const total = [...last.functions.values()].reduce((a, b) => a + b, 0);
        for (const [name, cost] of [...last.functions].sort((a, b) => b[1] - a[1]).slice(0, FUNCTIONS)) {
          console.log(
            `  ${String(Math.round((cost * last.perRequest) / total)).padStart(7)}  ` +
              `${((cost / total) * 100).toFixed(1).padStart(4)}%  ${name.slice(0, 140)}`,
          );
        }
      }
    }
  } finally {
    child.kill();
  }
}
const bare = results.find((r) => r.op === 'bare');
const ratio = (a: number | undefined, b: number) => (a ? `${((a / b) * 100).toFixed(0)}%` : '–');
console.log(
  '\n| operation | instructions per request | without GC | bare route / operation | without GC ' +
    '|\n|---|---:|---:|---:|---:|',
);
for (const r of results) {
  console.log(
    `| ${r.op} | ${Math.round(r.perRequest)} | ${Math.round(r.withoutGc)} | ` +
      `${ratio(bare?.perRequest, r.perRequest)} | ${ratio(bare?.withoutGc, r.withoutGc)} |`,
  );
}
