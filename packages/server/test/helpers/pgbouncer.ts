import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgres } from '../../src/storage/database.js';

export interface TestPgBouncer {
  /** `upstream` with PgBouncer's host and port: the pooled URL of the same database. */
  pooled(upstream: string): string;
  /** Close PgBouncer's server connections to `database`, so that it can be dropped at once. */
  forget(database: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer (Debian's, 1.18) on `port` of 127.0.0.1 in transaction mode, in front of the
 * PostgreSQL server of `upstream` (postgres://user:password@host:port/…): every database of that
 * server under the same name (`*`), the same user and password (SCRAM), as a managed
 * service's pooler is set up (docs/scaling.md, "Behind PgBouncer"). `settings` are more lines of
 * its `[pgbouncer]` section.
 */
export async function startPgBouncer(
  port: number,
  upstream: string,
  options: { unref?: boolean; settings?: string[] } = {},
): Promise<TestPgBouncer> {
  const server = new URL(upstream);
  const user = decodeURIComponent(server.username);
  const dir = await mkdtemp(join(tmpdir(), 'roost-pgbouncer-'));
  const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
  await writeFile(join(dir, 'userlist.txt'), `${quoted(user)} ${quoted(decodeURIComponent(server.password))}\n`);
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      // Kept short: a test's database is dropped when it ends, and PgBouncer's idle server
      // connections to it would hold it (`forget` closes them at once).
      'server_idle_timeout = 10',
      'ignore_startup_parameters = extra_float_digits,options',
      'log_connections = 0',
      'log_disconnections = 0',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      // The caller's own (test/helpers/failover-topology.ts: retries and waits cut down for a failover).
      ...(options.settings ?? []),
      // PgBouncer refuses to run as root; it changes to this user when started so (CI runs as root).
      ...(process.getuid?.() === 0 ? ['user = postgres'] : []),
    ].join('\n'),
  );
  // That user writes its log here.
  if (process.getuid?.() === 0) await chmod(dir, 0o777);
  // What it says goes to its log file, read when it does not start.
  const child = spawn('pgbouncer', [join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (options.unref) {
    child.unref();
    process.once('exit', () => {
      child.kill('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    });
  }
  // Started when its admin console answers.
  const admin = () => {
    const url = new URL(upstream);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    url.pathname = '/pgbouncer';
    return new (postgres().Client)({ connectionString: url.toString() });
  };
  for (let tries = 0; ; tries++) {
    const client = admin();
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (child.exitCode !== null || tries > 100) {
        const log = await readFile(join(dir, 'pgbouncer.log'), 'utf8').catch(() => '');
        throw new Error(`pgbouncer did not start: ${log}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    pooled(url) {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    async forget(database) {
      const client = admin();
      await client.connect();
      try {
        // KILL closes its client and server connections; the name is never used again.
        await client.query(`KILL ${database}`);
      } catch {
        // no connection to it was ever made through PgBouncer
      } finally {
        await client.end();
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
