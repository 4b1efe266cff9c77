// Issue 40, "Done when": the cost of a registered no-op before-hook on setItem and on a record's
// create, at most 5 %. Two Roosts on SQLite from bench/hooks-server.ts, the same but for one
// extension whose before-hooks do nothing; each operation measured on both in turns (lib.ts
// `compare`), so that both see the same machine.
import { postOf } from './collections-fixtures.js';
import {
  compare,
  fresh,
  httpTarget,
  machineLine,
  type Measured,
  publish,
  renderTable,
  slicesLine,
  start,
  stop,
} from './lib.js';
import { type RoostInfo, roostRequest } from './roost-requests.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite; two Roosts, one with an extension of no-op before-hooks.');
  const plain = await start<RoostInfo>('hooks-server.ts');
  const hooked = await start<RoostInfo>('hooks-server.ts', { BENCH_HOOKS: process.env.BENCH_HOOKS_B ?? '1' });
  try {
    const create = (server: typeof plain) => ({
      url: server.info.url,
      requests: fresh(
        'POST',
        '/api/collections/posts/records',
        { authorization: `Bearer ${server.info.token}`, 'content-type': 'application/json' },
        (n) => postOf(n),
      ),
    });
    const [setItem, hookedSetItem, createRecord, hookedCreate] = await compare([
      httpTarget('setItem (POST JSON), no hook', plain, roostRequest('setItem', plain.info)),
      httpTarget('setItem, a no-op before-hook on item.set', hooked, roostRequest('setItem', hooked.info)),
      httpTarget('create a record of ten fields, no hook', plain, create(plain)),
      httpTarget('create a record, a no-op before-hook on record.create', hooked, create(hooked)),
    ]);
    const rows: Record<string, Measured> = {
      setItem: setItem!,
      hookedSetItem: hookedSetItem!,
      create: createRecord!,
      hookedCreate: hookedCreate!,
    };
    publish('hooks', machine, slicesLine(), rows, [
      renderTable([
        { label: rows.setItem!.name, m: rows.setItem! },
        { label: `${rows.hookedSetItem!.name} (goal: at least 95 %)`, m: rows.hookedSetItem!, baseline: rows.setItem! },
        { label: rows.create!.name, m: rows.create! },
        { label: `${rows.hookedCreate!.name} (goal: at least 95 %)`, m: rows.hookedCreate!, baseline: rows.create! },
      ]),
    ]);
  } finally {
    await stop(plain, hooked);
  }
}
