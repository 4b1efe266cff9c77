// A setting's cost on the hottest read and a write: durability-server.ts with the setting on
// against the same without it, in alternating slices of one run (bench/suite-metrics.ts,
// bench/suite-request-log.ts).
import { compare, httpTarget, machineLine, publish, renderTable, slicesLine, start, stop } from './lib.js';

interface OnOffSuite {
  /** The suite's name in bench/RESULTS.md and results.json. */
  suite: string;
  /** What the machine line adds about the servers. */
  setup: string;
  /** The environment variable of durability-server.ts that turns the setting on (`on`) or off (`off`). */
  variable: string;
  /** How a row names the setting on and off: `getItem, <on>`, `getItem, <off>`. */
  on: string;
  off: string;
}

export async function runOnOffSuite(options: OnOffSuite): Promise<void> {
  const machine = machineLine(options.setup);
  const on = await start<{ url: string; token: string }>('durability-server.ts', { [options.variable]: 'on' });
  const off = await start<{ url: string; token: string }>('durability-server.ts', { [options.variable]: 'off' });
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
      httpTarget(`getItem, ${options.on}`, on, getItem(on)),
      httpTarget(`getItem, ${options.off}`, off, getItem(off)),
      httpTarget(`setItem, ${options.on}`, on, setItem(on)),
      httpTarget(`setItem, ${options.off}`, off, setItem(off)),
    ]);
    const rows = { getOn: getOn!, getOff: getOff!, setOn: setOn!, setOff: setOff! };
    publish(options.suite, machine, slicesLine(), rows, [
      renderTable(
        [
          { label: rows.getOff.name, m: rows.getOff },
          { label: rows.getOn.name, m: rows.getOn, baseline: rows.getOff },
          { label: rows.setOff.name, m: rows.setOff },
          { label: rows.setOn.name, m: rows.setOn, baseline: rows.setOff },
        ],
        options.off,
      ),
    ]);
  } finally {
    await stop(on, off);
  }
}
