// The data store (SQLite) against the bare Fastify route, and better-sqlite3's point read in
// process (the storage ceiling), all in the same minute. One signed-in user owns the 1000
// items k0..k999 of the store `data` (roost-server.ts).
import { compare, httpTarget, loopTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite.');
  const bare = await start('bare-server.ts');
  const roost = await start<{ url: string; token: string }>('roost-server.ts');
  const ceilings = await start('ceilings.ts');
  try {
    const { url, token } = roost.info;
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const [bareRow, getItem, setItem, list, keys, pointRead] = await compare([
      httpTarget('bare Fastify route', bare, { url: `${bare.info.url}/json` }),
      httpTarget('getItem (GET ?key=)', roost, { url: `${url}/data/api/getItem?key=k500`, headers: auth }),
      httpTarget('setItem, replace (POST JSON)', roost, {
        url: `${url}/data/api/setItem`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ key: 'k502', value: 'a new value of item 502' }),
      }),
      httpTarget('list, page of 50 of 1000 (GET)', roost, {
        url: `${url}/data/api/list?start=101&size=50`,
        headers: auth,
      }),
      httpTarget('keys, page of 50 of 1000 (GET)', roost, {
        url: `${url}/data/api/keys?start=101&size=50`,
        headers: auth,
      }),
      loopTarget('better-sqlite3 point read in-process (storage ceiling)', ceilings, 'sqlite-point-read'),
    ]);
    const rows = {
      bare: bareRow!,
      getItem: getItem!,
      setItem: setItem!,
      list: list!,
      keys: keys!,
      pointRead: pointRead!,
    };
    publish('datastore', machine, slicesLine(), rows, [
      renderTable([
        { label: rows.bare.name, m: rows.bare },
        { label: rows.getItem.name, m: rows.getItem, baseline: rows.bare },
        { label: rows.setItem.name, m: rows.setItem, baseline: rows.bare },
        { label: rows.list.name, m: rows.list, baseline: rows.bare },
        { label: rows.keys.name, m: rows.keys, baseline: rows.bare },
        { label: rows.pointRead.name, m: rows.pointRead },
        { label: `${rows.getItem.name} against the storage ceiling`, m: rows.getItem, baseline: rows.pointRead },
      ]),
    ]);
  } finally {
    await stop(bare, roost, ceilings);
  }
}
