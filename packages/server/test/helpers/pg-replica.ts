import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './test-server.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 programs (the version the suite is tested with, docs/scaling.md). */
const BIN = process.env.ROOST_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** PostgreSQL refuses to run as root: as root, its programs run as Debian's `postgres` user. */
const asRoot = process.getuid?.() === 0;
const USER = 'roost';

/** One PostgreSQL server of this machine, in a temporary directory of its own, on its own port. */
export interface TestCluster {
  /** `postgres://roost@127.0.0.1:<port>/postgres` (the superuser `roost`, trusted on 127.0.0.1). */
  url: string;
  port: number;
  /** A query on this server (a fresh connection each time: the server may be stopped between). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string): Promise<R[]>;
  /** Stops the server (`immediate`: as a crash would) and removes its directory. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

/** A streaming replica (`pg_basebackup -R`) of a `TestCluster`, in hot standby. */
export interface TestReplica extends TestCluster {
  /** `pg_wal_replay_pause()`: the replica keeps receiving the primary's WAL but applies none of it. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has applied everything the primary had written when called. */
  caughtUp(primary: TestCluster): Promise<void>;
  /** Stops the server as a crash would, its directory kept for `startAgain`. */
  crash(): Promise<void>;
  /** Starts the server again on its port after `crash`: it recovers and streams on. */
  startAgain(): Promise<void>;
}

/** A program of `BIN`, as `postgres` when we are root. */
async function pgProgram(program: string, args: readonly string[]): Promise<void> {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(BIN, program), ...args]]
    : [join(BIN, program), [...args]];
  await run(file, argv, { timeout: 60_000 });
}

/** A directory the server's user owns (PostgreSQL wants its data directory 0700 and its own). */
async function ownDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o700);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(gid));
  }
  return dir;
}

function cluster(dir: string, port: number): TestCluster {
  const url = `postgres://${USER}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async query<R extends pg.QueryResultRow>(text: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<R>(text)).rows;
      } finally {
        await client.end();
      }
    },
    async stop(mode = 'fast') {
      await pgProgram('pg_ctl', ['-D', join(dir, 'data'), '-m', mode, '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts the server of `data` on `port`, listening on 127.0.0.1 only, its socket in `dir`. */
async function start(dir: string, port: number): Promise<void> {
  // fsync off: a test's cluster need not survive the machine; start-up and writes are faster.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  await pgProgram('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-o', options, '-w', 'start']);
}

/**
 * A new primary of our own (`initdb`, about a second), so that the tests depend on nothing of the
 * machine's main cluster: `wal_level=replica` (15's default) and replication connections trusted
 * from 127.0.0.1 (initdb's `pg_hba.conf` with `-A trust`).
 */
export async function startPrimary(): Promise<TestCluster> {
  const dir = await ownDir('roost-pg-primary-');
  const port = await freePort();
  await pgProgram('initdb', ['-D', join(dir, 'data'), '-U', USER, '-A', 'trust', '--no-sync', '--no-instructions']);
  await start(dir, port);
  return cluster(dir, port);
}

/**
 * A hot-standby replica of `primary`, streaming from it: `pg_basebackup -R` writes
 * `standby.signal` and the connection to the primary into the copy, which starts on its own port.
 */
export async function startReplica(primary: TestCluster): Promise<TestReplica> {
  const dir = await ownDir('roost-pg-replica-');
  const port = await freePort();
  const data = join(dir, 'data');
  await pgProgram('pg_basebackup', [
    ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', USER, '-D', data],
    ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
  ]);
  await start(dir, port);
  const replica = cluster(dir, port);
  return {
    ...replica,
    async pauseReplay() {
      await replica.query('select pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await replica.query('select pg_wal_replay_resume()');
    },
    async crash() {
      await pgProgram('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    async startAgain() {
      await start(dir, port);
    },
    async caughtUp(from) {
      const [row] = await from.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [replayed] = await replica.query<{ ok: boolean }>(
          `select pg_last_wal_replay_lsn() >= '${row?.lsn}'::pg_lsn as ok`,
        );
        if (replayed?.ok) return;
        if (Date.now() > deadline) throw new Error('the replica did not catch up with its primary in 20 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
