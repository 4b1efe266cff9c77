import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/** Where free ports are drawn: below Linux's ephemeral range (32768–60999, `ip_local_port_range`). */
const FIRST = 20_000;
const LAST = 32_000;

/** Whether a server may listen on `port` of 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port on 127.0.0.1, for a server whose address must be known before it starts. Drawn at
 * random below the kernel's ephemeral range, where every outgoing connection of every test job
 * takes its local port: a port the kernel handed out for `listen(0)` came from that range, and
 * one was taken by such a connection in the seconds before the failover test's `roost serve`
 * started on it (EADDRINUSE in CI).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = randomInt(FIRST, LAST);
    if (await canListen(port)) return port;
  }
}
