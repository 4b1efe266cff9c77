// What the default durability costs (docs/security.md, "Durability"): Roost with `durability:
// "full"` (SQLite synchronous=FULL, local blobs' directories synced after each rename) against
// `durability: "fast"` (synchronous=NORMAL, no directory sync), in alternating slices of the
// same run, for the writes it touches: a replacing setItem and a file @write of 1 KiB.
import { compare, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite, local blobs.');
  const full = await start<{ url: string; token: string }>('durability-server.ts', { BENCH_DURABILITY: 'full' });
  const fast = await start<{ url: string; token: string }>('durability-server.ts', { BENCH_DURABILITY: 'fast' });
  try {
    const setItem = (server: typeof full) => ({
      url: `${server.info.url}/data/api/setItem`,
      method: 'POST' as const,
      headers: { 'x-auth-token': server.info.token, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'k0', value: 'a replacing value' }),
    });
    const write = (server: typeof full) => ({
      url: `${server.info.url}/files/note.txt/@write`,
      method: 'PUT' as const,
      headers: { 'x-auth-token': server.info.token, 'content-type': 'text/plain' },
      body: 'x'.repeat(1024),
    });
    const [setFull, setFast, writeFull, writeFast] = await compare([
      httpTarget('setItem, durability full', full, setItem(full)),
      httpTarget('setItem, durability fast', fast, setItem(fast)),
      httpTarget('file @write 1 KiB, durability full', full, write(full)),
      httpTarget('file @write 1 KiB, durability fast', fast, write(fast)),
    ]);
    const rows = { setFull: setFull!, setFast: setFast!, writeFull: writeFull!, writeFast: writeFast! };
    publish('durability', machine, slicesLine(), rows, [
      renderTable(
        [
          { label: rows.setFast.name, m: rows.setFast },
          { label: rows.setFull.name, m: rows.setFull, baseline: rows.setFast },
          { label: rows.writeFast.name, m: rows.writeFast },
          { label: rows.writeFull.name, m: rows.writeFull, baseline: rows.writeFast },
        ],
        'fast',
      ),
    ]);
  } finally {
    await stop(full, fast);
  }
}
