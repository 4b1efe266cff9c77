/**
 * The code of two working trees against each other, in turns in the same minute, with the bare
 * route beside them: how a performance change is checked on a shared machine.
 *
 *   node --import tsx bench/compare-trees.ts <tree A> <tree B>
 *
 * Each tree's own `bench/roost-server.ts` is started (a git worktree of the commit before a
 * change, say, with `node_modules` linked in). Environment: `OPS` (identity,getItem,setItem,list by
 * default; also keys, create; and articles, notes, ownNotes, getRecord, createRecord of the
 * collections, for which each tree's `bench/collections-server.ts` is started instead),
 * `BENCH_POSTGRES=1` for PostgreSQL, and the slices of lib.ts.
 */
import { fork } from 'node:child_process';
import {
  compare,
  formatCpu,
  fresh,
  httpTarget,
  percent,
  start,
  stop,
  type HttpTargetOptions,
  type Measured,
  type Server,
} from './lib.js';
import { COLLECTION_OPS } from './roost-requests.js';

type RoostInfo = { url: string; token: string; database?: string; record?: string };
const [treeA, treeB] = process.argv.slice(2);
if (!treeA || !treeB) {
  console.error('usage: node --import tsx bench/compare-trees.ts <tree A> <tree B>');
  process.exit(2);
}

function startTree(dir: string, script: string): Promise<Server<RoostInfo>> {
  const child = fork(`${dir}/bench/${script}`, {
    cwd: dir,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => {
      const info = message as RoostInfo;
      resolve({ child, info, ...(info.database ? { database: info.database } : {}) });
    });
    child.once('exit', (code) => reject(new Error(`${dir}: ${script} exited with ${code}`)));
  });
}

const OPS: Record<string, (info: RoostInfo) => HttpTargetOptions> = {
  identity: (i) => ({ url: `${i.url}/users/api/identity`, headers: { authorization: `Bearer ${i.token}` } }),
  getItem: (i) => ({ url: `${i.url}/data/api/getItem?key=k500`, headers: { authorization: `Bearer ${i.token}` } }),
  list: (i) => ({ url: `${i.url}/data/api/list?start=101&size=20`, headers: { authorization: `Bearer ${i.token}` } }),
  setItem: (i) => ({
    url: `${i.url}/data/api/setItem`,
    method: 'POST',
    headers: { authorization: `Bearer ${i.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'k502', value: 'a new value of item 502' }),
  }),
  keys: (i) => ({ url: `${i.url}/data/api/keys?start=101&size=50`, headers: { authorization: `Bearer ${i.token}` } }),
  create: (i) => ({
    url: i.url,
    requests: fresh(
      'POST',
      '/data/api/newItem',
      { authorization: `Bearer ${i.token}`, 'content-type': 'application/json' },
      (n) => ({ key: n, value: 'v' }),
    ),
  }),
};
Object.assign(OPS, COLLECTION_OPS);

const wanted = (process.env.OPS ?? 'identity,getItem,setItem,list').split(',');
const collections = wanted.some((op) => op in COLLECTION_OPS);
if (collections && !wanted.every((op) => op in COLLECTION_OPS)) {
  console.error(`the collections' operations (${Object.keys(COLLECTION_OPS).join(', ')}) go alone`);
  process.exit(2);
}
const script = collections ? 'collections-server.ts' : 'roost-server.ts';
const bare = await start('bare-server.ts');
const a = await startTree(treeA, script);
const b = await startTree(treeB, script);
const describe = (m: Measured, base: Measured) =>
  `${Math.round(m.rps)}/s (${percent(m.rps / base.rps)}), ${formatCpu(m.cpuUs)} µs`;
try {
  for (const op of wanted) {
    const options = OPS[op];
    if (!options) throw new Error(`unknown operation ${op}; known: ${Object.keys(OPS).join(', ')}`);
    const [base, ma, mb] = await compare([
      httpTarget('bare', bare, { url: `${bare.info.url}/json` }),
      httpTarget(`${op} A`, a, options(a.info)),
      httpTarget(`${op} B`, b, options(b.info)),
    ]);
    console.log(
      `${op}: bare ${Math.round(base!.rps)}/s, ${formatCpu(base!.cpuUs)} µs | A ${describe(ma!, base!)} | B ` +
        `${describe(mb!, base!)} | ` +
        `other work ${ma!.otherCores?.toFixed(2) ?? '–'} cores`,
    );
  }
} finally {
  await stop(bare, a, b);
}
