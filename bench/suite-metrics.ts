// What counting every request for /metrics costs (http/metrics.ts: one onResponse hook with a
// counter and a histogram): Roost with `metrics.enabled` (the default) against Roost without,
// in alternating slices of the same run, on the hottest read and a write.
import { compare, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite, local blobs.');
  const on = await start<{ url: string; token: string }>('durability-server.ts', { BENCH_METRICS: 'on' });
  const off = await start<{ url: string; token: string }>('durability-server.ts', { BENCH_METRICS: 'off' });
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
      httpTarget('getItem, metrics on', on, getItem(on)),
      httpTarget('getItem, metrics off', off, getItem(off)),
      httpTarget('setItem, metrics on', on, setItem(on)),
      httpTarget('setItem, metrics off', off, setItem(off)),
    ]);
    const rows = { getOn: getOn!, getOff: getOff!, setOn: setOn!, setOff: setOff! };
    publish('metrics', machine, slicesLine(), rows, [
      renderTable(
        [
          { label: rows.getOff.name, m: rows.getOff },
          { label: rows.getOn.name, m: rows.getOn, baseline: rows.getOff },
          { label: rows.setOff.name, m: rows.setOff },
          { label: rows.setOn.name, m: rows.setOn, baseline: rows.setOff },
        ],
        'off',
      ),
    ]);
  } finally {
    await stop(on, off);
  }
}
