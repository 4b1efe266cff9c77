import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseConfig } from '../../src/core/config.js';
import { haproxyInstalled, roostBackend, startHaproxy, type TestHaproxy } from './haproxy.js';
import { type PatroniCluster, patroniInstalled, startPatroniCluster } from './patroni-cluster.js';
import { startPgBouncer, type TestPgBouncer } from './pgbouncer.js';
import { serveRoost, type ServedRoost } from './roost-command.js';
import { call } from './stream-follower.js';
import { addAccountBeside, freePort, PASSWORD } from './test-server.js';

/**
 * Roost on PostgreSQL as it is run with automatic failover (issue 44, item 4; docs/scaling.md,
 * "Failover"), all on 127.0.0.1:
 *
 *   clients ─▶ HAProxy :front ─▶ roost serve ×3 ─┬─▶ PgBouncer (transaction mode) ─┐
 *                                                 └─▶ (LISTEN, migrations) ─────────┴─▶ HAProxy :primary
 *                                                            Patroni's REST `/primary` decides ─▶ pg0 | pg1
 *
 * One HAProxy has both fronts: the HTTP one before the three processes, and the TCP one before
 * PostgreSQL whose check is Patroni's `/primary` (200 on the leader only), ending every session
 * to a member the moment it is marked down (`on-marked-down shutdown-sessions`), so that neither
 * PgBouncer nor Roost's LISTEN keeps a connection to a demoted or dead primary.
 */
export interface FailoverTopology {
  /** HAProxy's HTTP front of the three `roost serve` processes. */
  front: string;
  /** A token of the account `alice`. */
  token: string;
  cluster: PatroniCluster;
  /** `postgres://…@<HAProxy's primary port>/roost`: whichever member leads now. */
  primaryUrl: string;
  /** HAProxy's view of the PostgreSQL members (`postgres`) and of the processes (`roost`). */
  haproxy: TestHaproxy;
  servers: ServedRoost[];
  /** How long each step of the start took, in words (for a test's diagnostics). */
  startTimes: string;
  /** Everything down, in order, also what failed to start. Never rejects. */
  stop(): Promise<void>;
}

/** What the topology needs installed, or why it cannot run (a test skips with it). */
export function missingForFailover(): string | false {
  if (!patroniInstalled()) return 'patroni and etcd are not installed (Debian: apt-get install patroni etcd-server)';
  if (!haproxyInstalled()) return 'haproxy is not installed';
  return false;
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startFailoverTopology(options: { synchronous: boolean }): Promise<FailoverTopology> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-failover-'));
  let cluster: PatroniCluster | undefined;
  let haproxy: TestHaproxy | undefined;
  let bouncer: TestPgBouncer | undefined;
  const servers: ServedRoost[] = [];
  const times: string[] = [];
  let stepBegan = Date.now();
  const step = (what: string) => {
    times.push(`${what} ${((Date.now() - stepBegan) / 1000).toFixed(1)} s`);
    stepBegan = Date.now();
  };
  const stop = async () => {
    await haproxy?.stop().catch(() => {});
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.exited));
    await bouncer?.stop().catch(() => {});
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    cluster = await startPatroniCluster(options);
    step('etcd and a Patroni leader');
    const [primaryPort, bouncerPort, frontPort] = [await freePort(), await freePort(), await freePort()];
    const ports = [await freePort(), await freePort(), await freePort()];
    haproxy = await startHaproxy(dir, [
      [
        'listen postgres',
        `  bind 127.0.0.1:${primaryPort}`,
        '  mode tcp',
        // A LISTEN connection may be quiet for long (Patroni's documented HAProxy has 30m).
        '  timeout client 30m',
        '  timeout server 30m',
        '  option httpchk OPTIONS /primary',
        '  http-check expect status 200',
        // Checked every 200 ms, out at the first failed check, in at the first good one.
        '  default-server inter 200ms fall 1 rise 1 on-marked-down shutdown-sessions',
        ...cluster.members.map(
          (member) => `  server ${member.name} 127.0.0.1:${member.pgPort} check port ${member.restPort}`,
        ),
      ],
      ['frontend front', `  bind 127.0.0.1:${frontPort}`, '  default_backend roost'],
      // Roost's own 503s reach the client (no retry of a 503 by HAProxy), and while the database
      // is away every process is not ready at once: the fallback servers carry the requests then.
      roostBackend('roost', ports, { retryOn503: false, fallBack: true }),
    ]);
    step('HAProxy');
    const primaryUrl = cluster.url(primaryPort, 'roost');
    const balancer = haproxy;
    await waitUntil(
      async () => Object.values(await balancer.states('postgres')).includes('UP'),
      'HAProxy finds the primary',
      20_000,
    );
    const admin = new pg.Client({ connectionString: cluster.url(primaryPort) });
    await admin.connect();
    await admin.query('create database roost');
    await admin.end();
    bouncer = await startPgBouncer(bouncerPort, cluster.url(primaryPort), {
      settings: [
        // A failed login to the server (no primary behind HAProxy for a moment) is tried again
        // after a second, not PgBouncer's default 15; a query waits at most 10 s for a server
        // connection (the default 120), then its client hears an error Roost retries or
        // answers 503 with.
        'server_login_retry = 1',
        'query_wait_timeout = 10',
      ],
    });
    const input = {
      databaseUrl: bouncer.pooled(primaryUrl),
      databaseDirectUrl: primaryUrl,
      host: '127.0.0.1',
      logRequests: false,
      rateLimit: { max: 1_000_000 },
    };
    await writeFile(join(dir, 'roost.config.json'), JSON.stringify(input));
    // The account, made beside the servers as `roost user add` does (this also migrates).
    await addAccountBeside(parseConfig({ ...input, dataDir: join(dir, 'setup') }, dir), 'alice');
    step('PgBouncer, the database, its migrations and an account');
    const started = await Promise.allSettled(
      ports.map((port, i) =>
        // Three starting at once on a busy 2-core machine: up to two minutes.
        serveRoost(
          dir,
          { ROOST_DATA_DIR: join(dir, `data${i}`), ROOST_PORT: String(port), ROOST_LOG_LEVEL: 'info' },
          120_000,
        ),
      ),
    );
    // Those that started are stopped with the rest when another did not (`stop`).
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    step('three roost serve processes');
    // The standby streams (synchronously, when asked) before anyone kills the primary.
    await cluster.healthy();
    step('the standby');
    const front = `http://127.0.0.1:${frontPort}`;
    const signedIn = await call(front, '/users/api/token', { identity: 'alice', password: PASSWORD });
    const token = signedIn.body?.token;
    if (typeof token !== 'string') throw new Error(`no token: ${JSON.stringify(signedIn.body)}`);
    return { front, token, cluster, primaryUrl, haproxy, servers, startTimes: times.join(', '), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
