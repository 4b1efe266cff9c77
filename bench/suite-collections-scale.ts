// A filtered page of a collection as it grows (issue 39, "Speed"): a page of 50 with an equality
// filter on an indexed field and `total=true`, in a collection of 1 000 000 records against the
// same page in one of 1000 (collections-scale-server.ts), in turns; the floor: at most twice the
// cost (at least 50 % of the requests per second and by CPU), on SQLite and, when it is
// reachable, on PostgreSQL. In both sizes each value of the field matches 100 records, so the page
// and its total are the same work but for the size of what the index searches; each request asks
// for a value drawn at random (a client does not ask for the same page over and over). Beside
// them, the same page by a field without an index, in the 1 000 000: what a full scan costs.
import {
  compare,
  httpTarget,
  machineLine,
  type Measured,
  publish,
  renderTable,
  type Server,
  slicesLine,
  start,
  stop,
  type Target,
} from './lib.js';
import { postgresReachable } from './postgres.js';

const SMALL = 1000;
const LARGE = 1_000_000;
/** A full scan answers in seconds: a few connections, longer slices. */
const SCAN = { connections: 2, seconds: 10 };
type Info = { url: string; token: string; values: number };

/** A page of 50 of the records whose `field` is `<prefix><a random value>`, with its total. */
function page(name: string, server: Server<Info>, field: string, prefix: string, connections?: number): Target {
  const { url, token, values } = server.info;
  const path = () => {
    const filter = `${field} = "${prefix}${Math.floor(Math.random() * values)}"`;
    return `/api/collections/scale/records?filter=${encodeURIComponent(filter)}&perPage=50&total=true`;
  };
  return httpTarget(name, server, {
    url,
    ...(connections ? { connections } : {}),
    requests: [
      {
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
        setupRequest: (request) => ({ ...request, path: path() }),
      },
    ],
  });
}

async function runOn(database: 'SQLite' | 'PostgreSQL', rows: Record<string, Measured>): Promise<string> {
  const env: Record<string, string> = database === 'PostgreSQL' ? { BENCH_POSTGRES: '1' } : {};
  const key = database === 'SQLite' ? 'sqlite' : 'postgres';
  const small = await start<Info>('collections-scale-server.ts', { ...env, BENCH_RECORDS: String(SMALL) });
  const large = await start<Info>('collections-scale-server.ts', { ...env, BENCH_RECORDS: String(LARGE) });
  try {
    console.log(`${database}: indexed filter, ${SMALL} against ${LARGE}`);
    const [s, l] = await compare([
      page(`${database}: category = <value>, total, page of 50, in ${SMALL} records`, small, 'category', 'c'),
      page(`${database}: the same in ${LARGE} records`, large, 'category', 'c'),
    ]);
    console.log(`${database}: a field without an index, in ${LARGE}`);
    const [scan] = await compare(
      [page(`${database}: batch = <value> (no index), in ${LARGE} records`, large, 'batch', 'b', SCAN.connections)],
      { slices: 1, seconds: SCAN.seconds, warmup: 0 },
    );
    rows[`${key} small`] = s!;
    rows[`${key} large`] = l!;
    rows[`${key} unindexed`] = scan!;
    return renderTable(
      [
        { label: s!.name, m: s! },
        { label: `${l!.name} (floor: at most 2×, so ≥ 50 %)`, m: l!, baseline: s! },
        {
          label: `${scan!.name}, ${SCAN.connections} connections, one slice of ${SCAN.seconds} s`,
          m: scan!,
          baseline: s!,
        },
      ],
      `${SMALL} records`,
    );
  } finally {
    await stop(small, large);
  }
}

export async function run(): Promise<void> {
  const rows: Record<string, Measured> = {};
  const tables = [await runOn('SQLite', rows)];
  const postgres = await postgresReachable();
  if (postgres) tables.push('', await runOn('PostgreSQL', rows));
  else console.log('PostgreSQL is not reachable: its rows are left out.');
  const machine = machineLine(
    `SQLite${postgres ? ', then PostgreSQL 15 on the same machine' : ''}; ` +
      `collections of ${SMALL} and ${LARGE} records.`,
  );
  publish('collections-scale', machine, slicesLine(), rows, tables);
}
