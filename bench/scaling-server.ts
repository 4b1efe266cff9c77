// One Roost process on the PostgreSQL database of BENCH_DATABASE_URL, as a scaled-out
// deployment runs it (sessions cached BENCH_SESSION_CACHE seconds, the change feed on).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../packages/server/src/core/config.js';
import { createRoost } from '../packages/server/src/roost.js';
import './cpu-probe.js';

const config = parseConfig({
  databaseUrl: process.env.BENCH_DATABASE_URL,
  dataDir: mkdtempSync(join(tmpdir(), 'roost-bench-')),
  port: 0,
  logLevel: 'error',
  rateLimit: { max: 10_000_000 },
  users: { sessionCacheSeconds: Number(process.env.BENCH_SESSION_CACHE ?? 2) },
});
const roost = await createRoost(config);
const url = await roost.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url });
