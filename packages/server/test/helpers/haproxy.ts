import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';

/**
 * A real HAProxy (Debian's) in front of the tests' processes: the balancer of `roost serve`
 * processes (scale/rolling-restart.test.ts, scale/failover.test.ts) and the address of a Patroni
 * cluster's primary (test/helpers/failover-topology.ts).
 */
export function haproxyInstalled(): boolean {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface TestHaproxy {
  /** HAProxy's view of each server of `backend`, from its stats socket: `{ r0: 'UP', r1: 'DOWN', … }`. */
  states(backend: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * The backend of `roost serve` processes on `ports` (servers `r0`, `r1`, …), checked on `/ready`
 * every 150 ms, out after two failed checks. A request a stopping process did not run (refused,
 * closed before it was read) goes to another (`retry-on`; `retryOn503` adds a stopping Roost's
 * 503 `shutting_down`, http/shutdown.ts). With `fallBack`, the same processes are backup servers
 * without a check: when every process says it is not ready (the database is away: all of them
 * at once), requests still reach them, and clients get Roost's own 503 `database_unavailable`
 * with Retry-After instead of HAProxy's page "No server is available" (docs/scaling.md, "Failover").
 */
export function roostBackend(name: string, ports: number[], options: { retryOn503: boolean; fallBack: boolean }) {
  return [
    `backend ${name}`,
    '  mode http',
    '  option httpchk GET /ready',
    '  default-server check inter 150ms fall 2 rise 1',
    '  option redispatch 1',
    '  retries 3',
    `  retry-on conn-failure empty-response${options.retryOn503 ? ' 503' : ''}`,
    ...(options.fallBack ? ['  option allbackups'] : []),
    ...ports.map((port, i) => `  server r${i} 127.0.0.1:${port}`),
    ...(options.fallBack ? ports.map((port, i) => `  server fallback${i} 127.0.0.1:${port} backup no-check`) : []),
  ];
}

/** HAProxy's view of the servers of `backend`, from `show stat` on its stats socket. */
async function serverStates(socketPath: string, backend: string): Promise<Record<string, string>> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(socketPath);
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.write('show stat\n');
  });
  const states: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const [proxy, server, ...rest] = line.split(',');
    // `status` is the 18th column of `show stat` (HAProxy's management guide, 9.1).
    if (proxy === backend && server && server !== 'BACKEND' && server !== 'FRONTEND') states[server] = rest[15] ?? '';
  }
  return states;
}

/**
 * HAProxy in the foreground with `sections` (frontends, backends, `listen` blocks) after a
 * `global` with a stats socket in `dir` and HTTP `defaults`; resolves once it answers on the socket.
 */
export async function startHaproxy(dir: string, sections: string[][]): Promise<TestHaproxy> {
  const statsSocket = join(dir, 'haproxy.sock');
  const config = [
    'global',
    `  stats socket ${statsSocket} level admin`,
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout check 2s',
    ...sections.flat(),
    '',
  ].join('\n');
  await writeFile(join(dir, 'haproxy.cfg'), config);
  const proxy: ChildProcess = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  proxy.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
  const exited = new Promise((resolve) => proxy.once('exit', resolve));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = await serverStates(statsSocket, '').then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (proxy.exitCode !== null || Date.now() > deadline) {
      proxy.kill('SIGKILL');
      throw new Error(`haproxy did not start: ${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    states: (backend) => serverStates(statsSocket, backend),
    async stop() {
      if (proxy.exitCode === null) proxy.kill('SIGTERM');
      await exited;
    },
  };
}
