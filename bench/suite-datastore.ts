// The data store (SQLite) against its ceilings, all in the same minute: the bare Fastify route
// (a Node JSON service), the same route running the SQL Roost runs for a page (list, keys) on
// the same schema and items (sql-ceiling-server.ts), and better-sqlite3's point read in process
// (the storage ceiling of getItem). One signed-in user owns the 1000 items k0..k999 of the
// store `data` (roost-server.ts); newItem stores a fresh key on every request.
import {
  compare,
  fresh,
  httpTarget,
  loopTarget,
  machineLine,
  publish,
  renderTable,
  slicesLine,
  start,
  stop,
} from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite.');
  const bare = await start('bare-server.ts');
  const roost = await start<{ url: string; token: string }>('roost-server.ts');
  const ceilings = await start('ceilings.ts');
  const sqlCeiling = await start('sql-ceiling-server.ts');
  try {
    const { url, token } = roost.info;
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const measured = await compare([
      httpTarget('bare Fastify route', bare, { url: `${bare.info.url}/json` }),
      httpTarget('getItem (GET ?key=)', roost, { url: `${url}/data/api/getItem?key=k500`, headers: auth }),
      httpTarget('setItem, replace (POST JSON)', roost, {
        url: `${url}/data/api/setItem`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ key: 'k502', value: 'a new value of item 502' }),
      }),
      httpTarget('newItem, one fresh key (POST JSON)', roost, {
        url,
        requests: fresh('POST', '/data/api/newItem', json, (n) => ({ key: n, value: `value of ${n}` })),
      }),
      httpTarget('list, page of 50 of 1000 (GET)', roost, {
        url: `${url}/data/api/list?start=101&size=50`,
        headers: auth,
      }),
      httpTarget('keys, page of 50 of 1000 (GET)', roost, {
        url: `${url}/data/api/keys?start=101&size=50`,
        headers: auth,
      }),
      httpTarget("bare Fastify route running list's SQL", sqlCeiling, { url: `${sqlCeiling.info.url}/list` }),
      httpTarget("bare Fastify route running keys' SQL", sqlCeiling, { url: `${sqlCeiling.info.url}/keys` }),
      loopTarget('better-sqlite3 point read in-process (storage ceiling)', ceilings, 'sqlite-point-read'),
    ]);
    const [bareRow, getItem, setItem, newItem, list, keys, listCeiling, keysCeiling, pointRead] = measured.map(
      (m) => m!,
    );
    const rows = { bare: bareRow!, getItem: getItem!, setItem: setItem!, newItem: newItem!, list: list!, keys: keys! };
    const ceilingRows = { listCeiling: listCeiling!, keysCeiling: keysCeiling!, pointRead: pointRead! };
    publish('datastore', machine, slicesLine(), { ...rows, ...ceilingRows }, [
      renderTable([
        { label: rows.bare.name, m: rows.bare },
        { label: rows.getItem.name, m: rows.getItem, baseline: rows.bare },
        { label: rows.setItem.name, m: rows.setItem, baseline: rows.bare },
        { label: rows.list.name, m: rows.list, baseline: rows.bare },
        { label: rows.keys.name, m: rows.keys, baseline: rows.bare },
        { label: ceilingRows.listCeiling.name, m: ceilingRows.listCeiling, baseline: rows.bare },
        { label: ceilingRows.keysCeiling.name, m: ceilingRows.keysCeiling, baseline: rows.bare },
        { label: `${rows.list.name} against its SQL ceiling`, m: rows.list, baseline: ceilingRows.listCeiling },
        { label: `${rows.keys.name} against its SQL ceiling`, m: rows.keys, baseline: ceilingRows.keysCeiling },
        { label: `${rows.newItem.name} against setItem`, m: rows.newItem, baseline: rows.setItem },
        { label: ceilingRows.pointRead.name, m: ceilingRows.pointRead },
        { label: `${rows.getItem.name} against the storage ceiling`, m: rows.getItem, baseline: ceilingRows.pointRead },
      ]),
    ]);
  } finally {
    await stop(bare, roost, ceilings, sqlCeiling);
  }
}
