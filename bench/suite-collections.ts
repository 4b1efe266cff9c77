// Collections (issue 39, "Speed") against the data store in the same minute, SQLite: a create
// of a record of ten fields checked by its schema against newItem of one fresh key, and a get of
// a record by id against getItem of one key. Both on a Roost holding 1000 of each
// (collections-server.ts); the floors: create at least 70 % of newItem, get at least 80 % of getItem.
import { postOf } from './collections-server.js';
import { compare, fresh, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine(process.env.BENCH_POSTGRES === '1' ? 'PostgreSQL.' : 'SQLite.');
  const roost = await start<{ url: string; token: string; record: string }>('collections-server.ts');
  try {
    const { url, token, record } = roost.info;
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const measured = await compare([
      httpTarget('newItem, one fresh key (POST JSON)', roost, {
        url,
        requests: fresh('POST', '/data/api/newItem', json, (n) => ({ key: n, value: `value of ${n}` })),
      }),
      httpTarget('create a record of ten fields (POST JSON)', roost, {
        url,
        requests: fresh('POST', '/api/collections/posts/records', json, (n) => postOf(n)),
      }),
      httpTarget('getItem (GET ?key=)', roost, { url: `${url}/data/api/getItem?key=k500`, headers: auth }),
      httpTarget('get a record by id (GET)', roost, {
        url: `${url}/api/collections/posts/records/${record}`,
        headers: auth,
      }),
    ]);
    const [newItem, create, getItem, get] = measured.map((m) => m!);
    const rows = { newItem: newItem!, create: create!, getItem: getItem!, get: get! };
    publish('collections', machine, slicesLine(), rows, [
      renderTable([
        { label: rows.newItem.name, m: rows.newItem },
        { label: `${rows.create.name} against newItem (floor 70 %)`, m: rows.create, baseline: rows.newItem },
        { label: rows.getItem.name, m: rows.getItem },
        { label: `${rows.get.name} against getItem (floor 80 %)`, m: rows.get, baseline: rows.getItem },
      ]),
    ]);
  } finally {
    await stop(roost);
  }
}
