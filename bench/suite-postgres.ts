// Roost on PostgreSQL against its ceilings there, in the same minute: a bare Fastify route
// running the SQL Roost runs, on the same schema and items, through one `pg` pool of Roost's
// size with prepared statements (sql-ceiling-server.ts): a point read (getItem), an update by key
// (setItem), a page of 50 with its total (list, keys). identity reads no table once its
// session is kept in memory: its ceiling is the bare JSON route. Server CPU counts the
// database's backends too (lib.ts). Skipped when PostgreSQL is not reachable.
import { compare, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';
import { postgresReachable } from './postgres.js';
import { roostRequest, type RoostInfo, type RoostOp } from './roost-requests.js';

export async function run(): Promise<void> {
  if (!(await postgresReachable())) {
    console.log('PostgreSQL is not reachable: the suite is skipped.');
    return;
  }
  const machine = machineLine('PostgreSQL 15 on the same machine.');
  const env = { BENCH_POSTGRES: '1' };
  const bare = await start('bare-server.ts');
  const roost = await start<RoostInfo>('roost-server.ts', env);
  const ceiling = await start('sql-ceiling-server.ts', env);
  try {
    const request = (op: RoostOp) => roostRequest(op, roost.info);
    const measured = await compare([
      httpTarget('bare Fastify route', bare, { url: `${bare.info.url}/json` }),
      httpTarget('identity', roost, request('identity')),
      httpTarget('getItem', roost, request('getItem')),
      httpTarget('bare route, the same point read', ceiling, { url: `${ceiling.info.url}/item` }),
      httpTarget('setItem (replace)', roost, request('setItem')),
      httpTarget('bare route, the same update', ceiling, { url: `${ceiling.info.url}/item`, method: 'POST' }),
      httpTarget('list, page of 50 of 1000', roost, request('list')),
      httpTarget("bare route, list's SQL", ceiling, { url: `${ceiling.info.url}/list` }),
      httpTarget('keys, page of 50 of 1000', roost, request('keys')),
      httpTarget("bare route, keys' SQL", ceiling, { url: `${ceiling.info.url}/keys` }),
    ]);
    const [bareRow, identity, getItem, pointRead, setItem, update, list, listSql, keys, keysSql] = measured.map(
      (m) => m!,
    );
    const rows = {
      bare: bareRow!,
      identity: identity!,
      getItem: getItem!,
      pointRead: pointRead!,
      setItem: setItem!,
      update: update!,
      list: list!,
      listSql: listSql!,
      keys: keys!,
      keysSql: keysSql!,
    };
    publish('postgres', machine, slicesLine(), rows, [
      renderTable(
        [
          { label: rows.bare.name, m: rows.bare },
          { label: rows.identity.name, m: rows.identity, baseline: rows.bare },
          { label: rows.pointRead.name, m: rows.pointRead },
          { label: rows.getItem.name, m: rows.getItem, baseline: rows.pointRead },
          { label: rows.update.name, m: rows.update },
          { label: rows.setItem.name, m: rows.setItem, baseline: rows.update },
          { label: rows.listSql.name, m: rows.listSql },
          { label: rows.list.name, m: rows.list, baseline: rows.listSql },
          { label: rows.keysSql.name, m: rows.keysSql },
          { label: rows.keys.name, m: rows.keys, baseline: rows.keysSql },
        ],
        'its ceiling',
      ),
    ]);
  } finally {
    await stop(bare, roost, ceiling);
  }
}
