// Subscribers of Roost's live changes for the suites (suite-realtime.ts, suite-collections.ts):
// raw sockets of the bench process reading the server-sent events of `GET /api/realtime`. Lean on
// purpose: the bench process reads every subscriber, on the server's machine.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Milliseconds since the epoch, to the microsecond: what latencies are measured in. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Opens `count` streams of `topic` (as the query string carries it: URL-encoded), 200 at a time,
 * signed in with `token`; resolves once each has its `connect` event. Every chunk read after that
 * goes to `onData` with the time it was read (a frame may be cut between two chunks).
 */
export async function openStreams(
  info: { url: string; token: string },
  topic: string,
  count: number,
  onData: ((at: number, chunk: Buffer) => void) | null,
): Promise<Socket[]> {
  const { hostname, port } = new URL(info.url);
  const request =
    `GET /api/realtime?topic=${topic} HTTP/1.1\r\nHost: ${hostname}\r\n` + `x-auth-token: ${info.token}\r\n\r\n`;
  const one = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let head = '';
      let open = false;
      socket.on('error', reject);
      socket.on('connect', () => socket.write(request));
      socket.on('data', (chunk: Buffer) => {
        const at = now();
        if (!open) {
          head += chunk.toString('latin1');
          if (head.startsWith('HTTP/1.1 ') && !head.startsWith('HTTP/1.1 200')) {
            reject(new Error(`stream refused: ${head.split('\r\n')[0]}`));
            return;
          }
          if (!head.includes('event: connect')) return;
          open = true;
          head = '';
          resolve(socket);
          return;
        }
        onData?.(at, chunk);
      });
    });
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, count - i) }, one));
    sockets.push(...batch);
  }
  return sockets;
}

/** The `q` quantile of `values` (NaN when there are none). */
export const quantile = (values: readonly number[], q: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};
