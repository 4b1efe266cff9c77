// Reads per second with one read replica against none (issue 44, item 3; docs/scaling.md, "Read
// replicas"), on the same machine: a PostgreSQL 15 primary of the suite's own (initdb) and a
// streaming replica of it (pg_basebackup -R), both made by the tests' helper
// (packages/server/test/helpers/pg-replica.ts). Two Roost processes, each on a database of its
// own on that primary, one reading from the replica too. Another user's point reads and pages go
// to the replica; setItem shows what read-your-writes costs a write (its WAL position asked after
// the commit, storage/replica-reads.ts). Server CPU counts both servers' backends.
import { randomBytes } from 'node:crypto';
import { startPrimary, startReplica, type TestCluster } from '../packages/server/test/helpers/pg-replica.js';
import { compare, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop, type Server } from './lib.js';
import { roostRequest, type RoostInfo } from './roost-requests.js';

type Info = RoostInfo & { writer: string };

const databaseUrl = (cluster: TestCluster, name: string) => cluster.url.replace(/\/postgres$/, `/${name}`);

export async function run(): Promise<void> {
  const machine = machineLine('PostgreSQL 15, a primary and one streaming replica of it, on the same machine.');
  const suffix = randomBytes(4).toString('hex');
  const [noneDb, oneDb] = [`roost_bench_primary_${suffix}`, `roost_bench_replica_${suffix}`];
  const primary = await startPrimary();
  let replica: TestCluster | undefined;
  let none: Server<Info> | undefined;
  let one: Server<Info> | undefined;
  try {
    for (const name of [noneDb, oneDb]) await primary.query(`create database ${name}`);
    const made = await startReplica(primary);
    replica = made;
    none = await start<Info>('replica-server.ts', { BENCH_PRIMARY_URL: databaseUrl(primary, noneDb) });
    one = await start<Info>('replica-server.ts', {
      BENCH_PRIMARY_URL: databaseUrl(primary, oneDb),
      BENCH_REPLICA_URL: databaseUrl(made, oneDb),
    });
    await made.caughtUp(primary);
    const writer = (info: Info) => ({ url: info.url, token: info.writer });
    const [getNone, getOne, listNone, listOne, setNone, setOne] = (
      await compare([
        httpTarget('getItem, no replica', none, roostRequest('getItem', none.info)),
        httpTarget('getItem, one replica', one, roostRequest('getItem', one.info)),
        httpTarget('list, page of 50 of 1000, no replica', none, roostRequest('list', none.info)),
        httpTarget('list, page of 50 of 1000, one replica', one, roostRequest('list', one.info)),
        httpTarget('setItem, no replica', none, roostRequest('setItem', writer(none.info))),
        httpTarget('setItem (its WAL position kept), one replica', one, roostRequest('setItem', writer(one.info))),
      ])
    ).map((m) => m!);
    const rows = {
      getNone: getNone!,
      getOne: getOne!,
      listNone: listNone!,
      listOne: listOne!,
      setNone: setNone!,
      setOne: setOne!,
    };
    publish('replicas', machine, slicesLine(), rows, [
      renderTable(
        [
          { label: rows.getNone.name, m: rows.getNone },
          { label: rows.getOne.name, m: rows.getOne, baseline: rows.getNone },
          { label: rows.listNone.name, m: rows.listNone },
          { label: rows.listOne.name, m: rows.listOne, baseline: rows.listNone },
          { label: rows.setNone.name, m: rows.setNone },
          { label: rows.setOne.name, m: rows.setOne, baseline: rows.setNone },
        ],
        'no replica',
      ),
    ]);
  } finally {
    await stop(none, one);
    await replica?.stop('immediate');
    await primary.stop('immediate');
  }
}
