// What keeping the recent requests for the admin logs page costs (`requestLog.keep`;
// storage/request-log-store.ts: a record per answer in memory, written in batches of one INSERT):
// Roost with it against Roost without (the default: no hook at all at the bench's log level), in
// alternating slices of the same run, on the hottest read and a write.
import { compare, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite, local blobs, /metrics on.');
  const on = await start<{ url: string; token: string }>('durability-server.ts', { BENCH_REQUEST_LOG: 'on' });
  const off = await start<{ url: string; token: string }>('durability-server.ts', { BENCH_REQUEST_LOG: 'off' });
  try {
    const getItem = (server: typeof on) => ({
      url: `${server.info.url}/data/api/getItem?key=k0`,
      method: 'GET' as const,
      headers: { 'x-auth-token': server.info.token },
    });
    const setItem = (server: typeof on) => ({
      url: `${server.info.url}/data/api/setItem`,
      method: 'POST' as const,
      headers: { 'x-auth-token': server.info.token, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'k0', value: 'a replacing value' }),
    });
    const [getOn, getOff, setOn, setOff] = await compare([
      httpTarget('getItem, request log kept', on, getItem(on)),
      httpTarget('getItem, not kept', off, getItem(off)),
      httpTarget('setItem, request log kept', on, setItem(on)),
      httpTarget('setItem, not kept', off, setItem(off)),
    ]);
    const rows = { getOn: getOn!, getOff: getOff!, setOn: setOn!, setOff: setOff! };
    publish('request-log', machine, slicesLine(), rows, [
      renderTable(
        [
          { label: rows.getOff.name, m: rows.getOff },
          { label: rows.getOn.name, m: rows.getOn, baseline: rows.getOff },
          { label: rows.setOff.name, m: rows.setOff },
          { label: rows.setOn.name, m: rows.setOn, baseline: rows.setOff },
        ],
        'not kept',
      ),
    ]);
  } finally {
    await stop(on, off);
  }
}
