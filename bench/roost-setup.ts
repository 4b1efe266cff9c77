// Roost as the benchmarks run it: SQLite in a temporary data directory (or, with
// `BENCH_POSTGRES=1` in the environment, a PostgreSQL database of its own), listening on
// 127.0.0.1, no rate limits (they would measure the limiter), and one signed-in user `bench`:
// what every bench server script starts from. Its first IPC message carries the URL, the token
// and the database, so lib.ts counts the database's CPU time as the server's.
import { parseConfig, type ConfigInput } from '../packages/server/src/core/config.js';
import { systemClock, type Clock } from '../packages/server/src/core/clock.js';
import { createRoost, type Roost, type RoostOverrides } from '../packages/server/src/roost.js';
import { programCaller } from '../packages/server/src/users/index.js';
import { createBenchDatabase } from './postgres.js';
import { onStop, tempDir } from './server-lifecycle.js';

export const BENCH_USER = { name: 'bench', password: 'bench-password' };

/** An active account `name` (mail `<name>@example.com`) in `groups`, made directly as `roost user add` does. */
export function benchAccount(
  users: Pick<Roost['users'], 'createUser'>,
  name: string,
  options: { password?: string; realname?: string; groups?: string[] } = {},
) {
  return users.createUser(programCaller('bench'), {
    name,
    email: `${name}@example.com`,
    password: options.password ?? BENCH_USER.password,
    realname: options.realname ?? '',
    data: '',
    notify: false,
    groups: options.groups ?? [],
    state: 'active',
    pending: null,
  });
}

/**
 * Roost's clock, slowed by `BENCH_CLOCK_RATE` (0.02: a fiftieth of real time). bench/
 * instructions.ts runs the server under valgrind, fifty times slower: its caches (sessions,
 * permission entries, items) would expire fifty times as often per request as at full speed.
 */
function benchClock(): Clock {
  const rate = Number(process.env.BENCH_CLOCK_RATE ?? 1);
  if (rate === 1) return systemClock;
  const start = Date.now();
  // Whole milliseconds, as the system clock gives: PostgreSQL keeps times in bigint columns.
  return { now: () => start + Math.floor((Date.now() - start) * rate) };
}

export interface BenchRoost {
  roost: Roost;
  url: string;
  token: string;
  /** The PostgreSQL database, when Roost runs on one. */
  database?: string;
}

export async function startBenchRoost(input: ConfigInput = {}, overrides: RoostOverrides = {}): Promise<BenchRoost> {
  const dataDir = tempDir('roost-bench-');
  const postgres = process.env.BENCH_POSTGRES === '1' ? await createBenchDatabase('roost') : null;
  const config = parseConfig({
    dataDir,
    port: 0,
    logLevel: 'error',
    rateLimit: { max: 10_000_000 },
    ...input,
    ...(postgres ? { databaseUrl: postgres.url } : {}),
  });
  const roost = await createRoost(config, { clock: benchClock(), ...overrides });
  onStop(() => roost.close());
  await benchAccount(roost.users, BENCH_USER.name, { realname: 'Bench' });
  const url = await roost.listen({ port: 0, host: '127.0.0.1' });
  const res = await fetch(`${url}/users/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: BENCH_USER.name, password: BENCH_USER.password }),
  });
  const { token } = (await res.json()) as { token: string };
  return { roost, url, token, ...(postgres ? { database: postgres.name } : {}) };
}
