/**
 * `npm run soak`: Roost under a steady mixed load for 2 minutes (SOAK_SECONDS) over 100
 * connections (SOAK_CONNECTIONS) on 127.0.0.1, in a process of its own (SQLite). Passes when no
 * request failed, every acknowledged write reads back as written, and the server's memory after
 * a full garbage collection grew by no more than the bounds below between the end of the
 * warm-up and the end of the run. Writes its section of bench/RESULTS.md; exits 1 on a failure.
 */
import { fork } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { here, writeSection } from './lib.js';
import { newLedger, runSoak, verifySoak } from './soak-load.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 100);
const WARMUP_SECONDS = Math.min(20, Math.floor(SECONDS / 4));
/**
 * Growth allowed after the warm-up. The caches are bounded (items 16 MiB, sessions 10 000,
 * statements 500), so a steady load should hold memory flat; the bounds leave room for the
 * allocator and SQLite's page cache, not for a leak of a few hundred bytes per request (which
 * at this load is 100 MiB or more over the run).
 */
const HEAP_BOUND = 32 * 2 ** 20;
const RSS_BOUND = 96 * 2 ** 20;

interface Memory {
  rss: number;
  heapUsed: number;
}

const server = fork(`${here}soak-server.ts`, {
  execArgv: ['--import', 'tsx', '--expose-gc'],
  env: { ...process.env, SOAK_CONNECTIONS: String(CONNECTIONS) },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const { url, tokens } = await new Promise<{ url: string; tokens: string[] }>((resolve, reject) => {
  server.once('message', (info) => resolve(info as { url: string; tokens: string[] }));
  server.once('exit', (code) => reject(new Error(`soak-server exited with ${code}`)));
});

function memory(): Promise<Memory> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      const m = message as { memory?: Memory };
      if (!m.memory) return;
      server.off('message', onMessage);
      resolve(m.memory);
    };
    server.on('message', onMessage);
    server.send('memory');
  });
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const samples: Array<{ at: number; requests: number } & Memory> = [];
const sample = async (at: number, requests: number) => samples.push({ at, requests, ...(await memory()) });

console.log(`soak: ${SECONDS} s, ${CONNECTIONS} connections, ${url}`);
await sample(0, 0);
let sampling = false;
const ledger = await runSoak(
  {
    url,
    tokens,
    seconds: SECONDS,
    async onTick(at, requests) {
      if (at % 10 !== 0 && at !== WARMUP_SECONDS) return;
      if (sampling) return;
      sampling = true;
      await sample(at, requests);
      sampling = false;
      const last = samples.at(-1) as Memory;
      console.log(`  ${at} s: ${requests} requests, rss ${mib(last.rss)} MiB, heap ${mib(last.heapUsed)} MiB`);
    },
  },
  newLedger(),
);
await sample(SECONDS, ledger.requests);
const check = await verifySoak(url, tokens, ledger);
server.kill();

const warm = samples.find((s) => s.at >= WARMUP_SECONDS) ?? samples[0];
const end = samples.at(-1);
if (!warm || !end) throw new Error('no memory samples');
const heapGrowth = end.heapUsed - warm.heapUsed;
const rssGrowth = end.rss - warm.rss;
const failures = [
  ...(ledger.errors.length
    ? [`${ledger.errors.length} failed requests, first: ${ledger.errors.slice(0, 3).join(' | ')}`]
    : []),
  ...(ledger.staleReads ? [`${ledger.staleReads} reads did not see the write before them`] : []),
  ...check.problems,
  ...(heapGrowth > HEAP_BOUND ? [`heap grew by ${mib(heapGrowth)} MiB (bound ${mib(HEAP_BOUND)})`] : []),
  ...(rssGrowth > RSS_BOUND ? [`RSS grew by ${mib(rssGrowth)} MiB (bound ${mib(RSS_BOUND)})`] : []),
];

const writes = check.items.acknowledged + check.files.acknowledged + ledger.updates;
const text = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown cpu'}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
    `server (SQLite) and load generator on 127.0.0.1, ${CONNECTIONS} connections for ${SECONDS} s. The machine is ` +
    'shared with other work ' +
    `(load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}), so the rate says little; the counts and the memory do.`,
  '',
  'Each connection is one user going round a cycle: setItem of a new key, getItem of it, `@write` of a new file, ' +
    'its download, `update` of the realname, `identity`, a page ' +
    'of `keys`, a page of the own directory (3 writes, 5 reads).',
  '',
  '| measure | value |',
  '|---|---|',
  `| requests | ${ledger.requests} (${Math.round(ledger.requests / SECONDS)}/s) |`,
  `| failed requests | ${ledger.errors.length} |`,
  `| reads that missed the write before them | ${ledger.staleReads} |`,
  `| acknowledged writes | ${writes}: ${check.items.acknowledged} items, ${check.files.acknowledged} files, ` +
    `${ledger.updates} realname changes |`,
  `| read back as written | ${check.items.found} items, ${check.files.found} files, the last realname of ` +
    `${check.realnames.checked - check.realnames.wrong} of ${check.realnames.checked} users |`,
  `| server memory after GC at ${warm.at} s (warm) | RSS ${mib(warm.rss)} MiB, heap ${mib(warm.heapUsed)} MiB |`,
  `| server memory after GC at the end | RSS ${mib(end.rss)} MiB, heap ${mib(end.heapUsed)} MiB |`,
  `| growth after warm-up (bound) | RSS ${mib(rssGrowth)} MiB (${mib(RSS_BOUND)}), heap ${mib(heapGrowth)} MiB ` +
    `(${mib(HEAP_BOUND)}) |`,
  `| samples (s: RSS/heap MiB) | ${samples.map((s) => `${s.at}: ${mib(s.rss)}/${mib(s.heapUsed)}`).join(', ')} |`,
  `| result | ${failures.length === 0 ? 'pass' : `FAIL: ${failures.join('; ')}`} |`,
].join('\n');
writeSection('soak', `## Soak (\`npm run soak\`)\n\n${text}`);
console.log(`\n${text}`);
if (failures.length > 0) process.exitCode = 1;
