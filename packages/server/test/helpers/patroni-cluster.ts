import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './test-server.js';

/**
 * PostgreSQL as Patroni runs it (issue 44, item 4; docs/scaling.md, "Failover"): one etcd member
 * and two PostgreSQL 15 instances, each managed by its own Patroni, on 127.0.0.1 in a temporary
 * directory, with Patroni's timings cut down so that a failover takes seconds, not half a minute.
 * Debian's `patroni` and `etcd` (etcd-server); the same PostgreSQL binaries as
 * test/helpers/pg-replica.ts.
 */

const BIN = process.env.ROOST_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** PostgreSQL refuses to run as root: as root, Patroni (and so PostgreSQL) runs as Debian's `postgres`. */
const asRoot = process.getuid?.() === 0;
/** The superuser Patroni makes at its bootstrap; its password is what PgBouncer's userlist needs. */
const PATRONI_USER = 'roost';
const PATRONI_PASSWORD = 'roost-failover';

/** Whether `patroni` and `etcd` are installed (the test skips with a message when not). */
export function patroniInstalled(): boolean {
  try {
    execFileSync('patroni', ['--version'], { stdio: 'ignore' });
    execFileSync('etcd', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface PatroniMember {
  name: string;
  /** PostgreSQL's port on 127.0.0.1. */
  pgPort: number;
  /** Patroni's REST API on 127.0.0.1 (`/primary` answers 200 on the leader only). */
  restPort: number;
}

/** A member as `GET /cluster` of Patroni's REST API describes it. */
interface ClusterState {
  members: Array<{ name: string; role: string; state: string; timeline?: number; lag?: number | string }>;
}

export interface PatroniCluster {
  members: PatroniMember[];
  /** `postgres://roost:…@127.0.0.1:<port>/<database>`: a member's own address, or another's (HAProxy's). */
  url(port: number, database?: string): string;
  /** The members' roles as Patroni tells them: `{ pg0: 'leader', pg1: 'sync_standby' }`. */
  roles(): Promise<Record<string, string>>;
  /**
   * Resolves with the leader's name once there is a leader and the other member streams from it
   * (`sync_standby` with synchronous replication, else `replica`) on the leader's timeline.
   */
  healthy(timeoutMs?: number): Promise<string>;
  /**
   * kill -9 of the member's PostgreSQL, every process of it at once (a crash). Patroni sees it at
   * its next loop and, `primary_start_timeout` being 0, hands the leadership over at once.
   */
  crashPostgres(name: string): void;
  /**
   * kill -9 of the member's Patroni and PostgreSQL at once: its machine gone. Nobody gives the
   * leader key up: it expires after `ttl` (10 s), then the other member is promoted.
   */
  crashMember(name: string): void;
  /** Starts a crashed member's Patroni again: it starts PostgreSQL, which rejoins as the standby. */
  restartMember(name: string): void;
  /** Everything down (etcd, both Patronis, both PostgreSQLs) and the directory removed. Never rejects. */
  stop(): Promise<void>;
}

/** How long to wait, every 100 ms, for `check` (which may throw while things start). */
async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`, { cause: last });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A child in a process group of its own (so that it and its children end together), its output appended to `log`. */
function spawnLogged(command: string, args: string[], log: string): ChildProcess {
  const out = openSync(log, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  return child;
}

/** SIGKILL to a process group, which may be gone already. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * The process group of a member's postmaster: Patroni starts PostgreSQL in a session of its own
 * (patroni/postgresql/postmaster.py calls setsid), so that it survives Patroni; its backends
 * share that group.
 */
function postmasterGroup(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; comm has no spaces for postgres.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** A member's Patroni configuration (YAML, of which JSON is a subset). */
function memberConfig(
  member: PatroniMember,
  dir: string,
  etcdPort: number,
  options: { synchronous: boolean },
): Record<string, unknown> {
  const password = { username: PATRONI_USER, password: PATRONI_PASSWORD };
  return {
    scope: 'roost',
    namespace: '/roost-test/',
    name: member.name,
    log: { level: 'WARNING' },
    restapi: { listen: `127.0.0.1:${member.restPort}`, connect_address: `127.0.0.1:${member.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${etcdPort}`] },
    bootstrap: {
      dcs: {
        // The leader key lives 10 s unrenewed; Patroni loops every second and gives up on etcd
        // after 4 (ttl ≥ loop_wait + 2 × retry_timeout, Patroni's rule). A crashed primary's
        // Patroni hands the leadership over at once (primary_start_timeout 0) instead of
        // restarting PostgreSQL in place: the failover this cluster is for.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 4,
        primary_start_timeout: 0,
        synchronous_mode: options.synchronous,
        postgresql: {
          use_pg_rewind: true,
          remove_data_directory_on_rewind_failure: true,
          use_slots: true,
          parameters: {
            // A test's cluster need not survive the machine (as test/helpers/pg-replica.ts).
            fsync: 'off',
            max_connections: 100,
            wal_keep_size: '128MB',
          },
        },
      },
      // --no-sync: a test's cluster need not survive the machine, and initdb's sync takes seconds on a busy disk.
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }, 'no-sync'],
    },
    postgresql: {
      listen: `127.0.0.1:${member.pgPort}`,
      connect_address: `127.0.0.1:${member.pgPort}`,
      data_dir: join(dir, 'data'),
      bin_dir: BIN,
      pgpass: join(dir, 'pgpass'),
      authentication: { superuser: password, replication: password, rewind: password },
      parameters: { unix_socket_directories: dir },
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
    },
  };
}

/**
 * Starts etcd and two Patroni members and resolves once one leads (`healthy` waits for the other
 * to stream from it).
 * `synchronous: true` is Patroni's `synchronous_mode`: a commit is acknowledged once the standby
 * has it, and only a synchronous standby may be promoted.
 */
export async function startPatroniCluster(options: { synchronous: boolean }): Promise<PatroniCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'roost-patroni-'));
  // PostgreSQL's user must pass through it to its own directory.
  await chmod(dir, 0o711);
  /** Every child started, to wait for at the end; etcd's is the first. */
  const children: ChildProcess[] = [];
  const members: PatroniMember[] = [];
  const memberDirs = new Map<string, string>();
  /** Each member's Patroni now. */
  const patronis = new Map<string, ChildProcess>();
  let startPatroni: (name: string) => void = () => {};
  let stopped = false;

  // Patroni first (it would start PostgreSQL again), then each PostgreSQL, then etcd.
  const killAll = () => {
    for (const child of patronis.values()) killGroup(child.pid);
    for (const memberDir of memberDirs.values()) killGroup(postmasterGroup(join(memberDir, 'data')));
    killGroup(children[0]?.pid);
  };
  // A test process that ends without its `after` (a timeout of the runner) leaves nothing running:
  // these children are in process groups of their own, which no signal to the test's group reaches.
  const onExit = () => {
    killAll();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    killAll();
    await Promise.all(
      children.map((child) =>
        child.exitCode !== null || child.signalCode !== null
          ? undefined
          : new Promise((resolve) => child.once('exit', resolve)),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };

  try {
    // etcd: one member, its client and peer ports on 127.0.0.1.
    const [etcdPort, peerPort] = [await freePort(), await freePort()];
    const etcdLog = join(dir, 'etcd.log');
    children.push(
      spawnLogged(
        'etcd',
        [
          ...['--name', 'e0', '--data-dir', join(dir, 'etcd')],
          ...['--listen-client-urls', `http://127.0.0.1:${etcdPort}`],
          ...['--advertise-client-urls', `http://127.0.0.1:${etcdPort}`],
          ...['--listen-peer-urls', `http://127.0.0.1:${peerPort}`],
          ...['--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`],
          ...['--initial-cluster', `e0=http://127.0.0.1:${peerPort}`],
        ],
        etcdLog,
      ),
    );
    await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${etcdPort}/health`);
        return res.ok ? true : undefined;
      },
      `etcd starts (${etcdLog})`,
      20_000,
    );

    // The members' directories belong to the user PostgreSQL runs as (it wants its data 0700).
    const owner = asRoot
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
          gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
        }
      : undefined;
    for (const name of ['pg0', 'pg1']) {
      const member = { name, pgPort: await freePort(), restPort: await freePort() };
      const memberDir = join(dir, name);
      await mkdir(memberDir, { mode: 0o700 });
      await chmod(memberDir, 0o700);
      const configFile = join(memberDir, 'patroni.yml');
      await writeFile(configFile, JSON.stringify(memberConfig(member, memberDir, etcdPort, options), null, 2));
      const log = join(memberDir, 'patroni.log');
      await writeFile(log, '');
      if (owner) for (const path of [memberDir, configFile, log]) await chown(path, owner.uid, owner.gid);
      members.push(member);
      memberDirs.set(name, memberDir);
    }
    startPatroni = (name) => {
      const memberDir = memberDirs.get(name) as string;
      const [configFile, log] = [join(memberDir, 'patroni.yml'), join(memberDir, 'patroni.log')];
      // setpriv executes Patroni itself (runuser would stay as its parent): the child is Patroni.
      const child = owner
        ? spawnLogged(
            'setpriv',
            ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', 'patroni', configFile],
            log,
          )
        : spawnLogged('patroni', [configFile], log);
      children.push(child);
      patronis.set(name, child);
    };
    for (const member of members) startPatroni(member.name);
  } catch (error) {
    await stop();
    throw error;
  }

  const url = (port: number, database = 'postgres') =>
    `postgres://${PATRONI_USER}:${PATRONI_PASSWORD}@127.0.0.1:${port}/${database}`;

  const clusterState = async (): Promise<ClusterState> => {
    let last: unknown;
    for (const member of members) {
      try {
        const res = await fetch(`http://127.0.0.1:${member.restPort}/cluster`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return (await res.json()) as ClusterState;
      } catch (error) {
        last = error;
      }
    }
    throw new Error('no Patroni answers /cluster', { cause: last });
  };

  const cluster: PatroniCluster = {
    members,
    url,
    async roles() {
      const state = await clusterState();
      return Object.fromEntries(state.members.map((m) => [m.name, m.role]));
    },
    async healthy(timeoutMs = 60_000) {
      const standbyRole = options.synchronous ? 'sync_standby' : 'replica';
      try {
        return await waitFor(
          async () => {
            const state = await clusterState();
            const leader = state.members.find((m) => m.role === 'leader' && m.state === 'running');
            // `running` in Patroni 3.0, `streaming` from 3.0.4 on.
            const standby = state.members.find(
              (m) => m.role === standbyRole && (m.state === 'running' || m.state === 'streaming'),
            );
            return leader && standby && standby.timeline === leader.timeline ? leader.name : undefined;
          },
          `a leader and a ${standbyRole} streaming from it`,
          timeoutMs,
        );
      } catch (error) {
        const logs = await Promise.all(
          [...memberDirs.values()].map((memberDir) => readFile(join(memberDir, 'patroni.log'), 'utf8').catch(() => '')),
        );
        throw new Error(`${(error as Error).message}\n${logs.map((log) => log.slice(-3000)).join('\n---\n')}`, {
          cause: error,
        });
      }
    },
    crashPostgres(name) {
      const memberDir = memberDirs.get(name);
      const group = memberDir ? postmasterGroup(join(memberDir, 'data')) : undefined;
      if (group === undefined) throw new Error(`${name} runs no PostgreSQL`);
      killGroup(group);
    },
    crashMember(name) {
      const memberDir = memberDirs.get(name);
      const group = memberDir ? postmasterGroup(join(memberDir, 'data')) : undefined;
      killGroup(patronis.get(name)?.pid);
      killGroup(group);
    },
    restartMember(name) {
      startPatroni(name);
    },
    stop,
  };
  try {
    // A leader is enough to go on with (the standby's copy takes a few seconds more): whoever
    // fails it over waits for `healthy` first.
    await waitFor(
      async () => (Object.values(await cluster.roles()).includes('leader') ? true : undefined),
      'a leader',
      60_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}
