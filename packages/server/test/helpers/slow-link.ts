import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface SlowLink {
  /** `host:port` of the link's end to connect to. */
  address: string;
  /**
   * While on, every chunk is dropped both ways and nothing is closed: a peer gone without a reset
   * (a machine stopped, a network cut), as the connections through the link see it.
   */
  silence(on: boolean): void;
  close(): Promise<void>;
}

/**
 * A TCP link to `target` (`host:port`) that hands on every chunk `delayMs` late, in order, both
 * ways: a database far away or busy, as one process sees it. A process whose database URL goes
 * through it gets its answers and its NOTIFY messages that much later, while what comes
 * another way (Redis) does not wait (test/scale/realtime-processes.test.ts).
 */
export async function startSlowLink(target: string, delayMs: number): Promise<SlowLink> {
  const [host, port] = target.split(':');
  const sockets = new Set<Socket>();
  let silent = false;
  // Timers of one duration fire in the order they were set, so the chunks keep theirs.
  const pipe = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => silent || setTimeout(() => to.writable && to.write(chunk), delayMs));
    from.on('end', () => setTimeout(() => to.end(), delayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    silence(on) {
      silent = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
