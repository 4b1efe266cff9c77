// What a page of 50 with its total costs as the store grows: Roost with 1000 items against
// Roost with 1 000 000 (pages-server.ts), in turns, at the start, in the middle and at the end of
// the store, without a filter, with the `owner` filter (a tenth of the items) and with a `prefix`
// matching 100 keys; on SQLite and, when it is reachable, on PostgreSQL. Each request asks for
// the same page again, as a client walking the pages or coming back to one does: the page
// starts from the key Roost remembered (datastore/page-repo.ts); the first visit of a page
// walks to it once. The goal: a page of the large store costs at most twice what it costs in
// the small one (≥ 50% of its requests per second and by CPU).
import {
  compare,
  httpTarget,
  machineLine,
  publish,
  renderTable,
  slicesLine,
  start,
  stop,
  type Measured,
  type Target,
} from './lib.js';
import { postgresReachable } from './postgres.js';

const SMALL = 1000;
const LARGE = 1_000_000;
type Info = { url: string; token: string };

/** The filters and where their pages start, for a store of `items`. */
function pages(items: number): Array<{ label: string; query: string }> {
  const page = (filter: string, total: number) => [
    { label: `${filter}, start`, start: 1 },
    { label: `${filter}, middle`, start: Math.floor(total / 2) + 1 },
    { label: `${filter}, end`, start: total - 49 },
  ];
  return [
    ...page('no filter', items).map((p) => ({ ...p, query: '' })),
    ...page('owner (a tenth)', items / 10).map((p) => ({ ...p, query: '&owner=bench' })),
    ...page('prefix (100 keys)', 100).map((p) => ({ ...p, query: '&prefix=k00001' })),
  ].map((p) => ({ label: p.label, query: `start=${p.start}&size=50${p.query}` }));
}

async function runOn(database: 'SQLite' | 'PostgreSQL'): Promise<void> {
  const env: Record<string, string> = database === 'PostgreSQL' ? { BENCH_POSTGRES: '1' } : {};
  const machine = machineLine(`${database}; stores of ${SMALL} and ${LARGE} items.`);
  const small = await start<Info>('pages-server.ts', { ...env, BENCH_ITEMS: String(SMALL) });
  const large = await start<Info>('pages-server.ts', { ...env, BENCH_ITEMS: String(LARGE) });
  try {
    const target = (server: typeof small, items: number, op: string, label: string, query: string) =>
      httpTarget(`${op}, ${label}, ${items} items`, server, {
        url: `${server.info.url}/data/api/${op}?${query}`,
        headers: { authorization: `Bearer ${server.info.token}` },
      });
    const plan: Array<{ key: string; label: string; small: number; large: number }> = [];
    const targets: Target[] = [];
    for (const op of ['list', 'keys']) {
      const smallPages = pages(SMALL);
      const largePages = pages(LARGE);
      smallPages.forEach((p, i) => {
        const lp = largePages[i]!;
        plan.push({
          key: `${op} ${p.label}`,
          label: `${op}, ${p.label}`,
          small: targets.length,
          large: targets.length + 1,
        });
        targets.push(target(small, SMALL, op, p.label, p.query), target(large, LARGE, op, lp.label, lp.query));
      });
    }
    const measured = (await compare(targets)).map((m) => m!);
    const rows: Record<string, Measured> = {};
    for (const p of plan) {
      rows[`${p.key} small`] = measured[p.small]!;
      rows[`${p.key} large`] = measured[p.large]!;
    }
    publish(`pages-${database === 'SQLite' ? 'sqlite' : 'postgres'}`, machine, slicesLine(), rows, [
      renderTable(
        plan.flatMap((p) => [
          { label: `${p.label}, ${SMALL} items`, m: measured[p.small]! },
          { label: `${p.label}, ${LARGE} items`, m: measured[p.large]!, baseline: measured[p.small]! },
        ]),
        `the store of ${SMALL}`,
      ),
    ]);
  } finally {
    await stop(small, large);
  }
}

export async function run(): Promise<void> {
  await runOn('SQLite');
  if (await postgresReachable()) await runOn('PostgreSQL');
  else console.log('PostgreSQL is not reachable: the PostgreSQL pages are left out.');
}
