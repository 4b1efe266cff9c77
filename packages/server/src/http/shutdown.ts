import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { failureBody } from './error-handler.js';

/**
 * The drain before a stop (docs/operations.md, "Stopping / rolling restarts"): once started,
 * `/ready` answers 503 `shutting_down` (routes/health-routes.ts) while every request, new
 * connections included, is still served, so that a load balancer's health check takes the
 * process out before it refuses anything. `Roost.stop` (src/roost.ts) starts it, waits
 * `shutdownDrainSeconds`, then closes the app.
 */
export interface Drain {
  readonly started: boolean;
  start(): void;
}

export function createDrain(): Drain {
  let started = false;
  return {
    get started() {
      return started;
    },
    start() {
      started = true;
    },
  };
}

/** How often connections that went idle while the server stops are closed. */
const SWEEP_MS = 100;

/**
 * How the HTTP server stops (docs/operations.md, "Stopping / rolling restarts"), on any `close` of
 * the app: `roost serve`'s SIGTERM after the drain (above), the tests, a program that embeds Roost.
 *
 * - Connections that carry no request are closed at once and as they go idle. Node's
 *   `closeIdleConnections` (which `server.close()` calls once) leaves out a connection that never
 *   sent a request (a browser's preconnect, a spare one of a client's pool): `server.close()`
 *   would wait for it as long as the client keeps it (issue 46). Those have read no byte.
 * - A request still running may finish within `graceMs`; then every connection is closed (a live
 *   stream is ended before, by its hub: http/routes/realtime-routes.ts).
 * - A request arriving meanwhile on an open connection gets Roost's failure body, 503
 *   `shutting_down` with `Connection: close`, instead of Fastify's own (`return503OnClosing: false`
 *   in http-app.ts hands it to this hook).
 *
 * Install it after the hooks whose headers a failure carries too (security headers, CORS).
 */
export function installShutdown(app: FastifyInstance, drain: Drain, graceMs: number): void {
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let stopping = false;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!stopping) return done();
    request.failureCode = 'shutting_down';
    reply
      .code(503)
      .header('connection', 'close')
      .header('retry-after', '1')
      .send(failureBody('shutting_down', 'The server is stopping; try again (another process may answer).'));
  });

  const sweep = () => {
    app.server.closeIdleConnections();
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  };
  let sweeping: ReturnType<typeof setInterval> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  app.addHook('preClose', (done) => {
    stopping = true;
    drain.start();
    sweep();
    sweeping = setInterval(sweep, SWEEP_MS).unref();
    deadline = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, graceMs).unref();
    done();
  });
  app.addHook('onClose', (_app, done) => {
    clearInterval(sweeping);
    clearTimeout(deadline);
    done();
  });
}
