import type { FastifyInstance } from 'fastify';
import { currentFrame, inActorFrame, type ActorFrame } from '../core/audit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's actor frame (core/audit.ts), for what is recorded after its answer. */
    actorFrame: ActorFrame | null;
  }
}

/**
 * Each request runs in an actor frame of its own (core/audit.ts): the client's address now, the
 * caller once `callerOf` (auth.ts) knows it. The stores that record a change in the audit log
 * read both from there. `run` around `done` carries the frame through the route's handler, as
 * @fastify/request-context does.
 */
export function installAuditContext(app: FastifyInstance): void {
  app.decorateRequest('actorFrame', null);
  app.addHook('onRequest', (request, _reply, done) =>
    inActorFrame(request.ip, () => {
      request.actorFrame = currentFrame() ?? null;
      done();
    }),
  );
}
