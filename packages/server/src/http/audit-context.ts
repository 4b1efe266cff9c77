import type { FastifyInstance, FastifyRequest } from 'fastify';
import { openActorFrame, type ActorFrame } from '../core/audit.js';
import type { Principal } from '../core/permissions.js';
import { administers } from '../core/grants.js';
import type { UserService } from '../users/index.js';
import { callerOf } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's actor frame (core/audit.ts), for what is recorded after its answer. */
    actorFrame: ActorFrame | null;
    /** Ends the frame when the request ends. */
    closeActorFrame: (() => void) | null;
  }
}

/**
 * The requests that change what the audit log keeps run in an actor frame (core/audit.ts): the
 * client's address and the caller (`callerOf`, auth.ts, read before the handler; the handler's
 * own call finds it kept); the stores that record a change read both from there. Those are the
 * backend's pages, the user service's routes (every change of an account), the keys' routes, and
 * whatever an administrator calls (permissions, webhooks, collections). The others, the stores'
 * reads and writes by users and keys, open none: a frame costs every promise of the process
 * something on Node 20 and 22 while it is open.
 * `run` around `done` carries the frame through the route's handler, as @fastify/request-context
 * does.
 */
export function installAuditContext(app: FastifyInstance, users: UserService): void {
  app.decorateRequest('actorFrame', null);
  app.decorateRequest('closeActorFrame', null);
  const inFrame = (request: FastifyRequest, done: () => void, principal: Principal | null) => {
    const opened = openActorFrame(request.ip);
    opened.frame.principal = principal;
    request.actorFrame = opened.frame;
    request.closeActorFrame = opened.close;
    opened.run(done);
  };
  const recorded = (path: string) =>
    path.startsWith('/admin') || path.startsWith('/users/') || path.startsWith('/api/keys');
  app.addHook('preHandler', (request, _reply, done) => {
    // The caller is read once per request (callerOf keeps it): the route's own call finds it.
    callerOf(request, users).then(
      (caller) => {
        const known = caller.principal.userId !== null || caller.principal.key ? caller.principal : null;
        if (recorded(request.url) || administers(caller.principal)) inFrame(request, done, known);
        else done();
      },
      // A refused key: the route answers it; a backend page still gets its frame, without a caller.
      () => (recorded(request.url) ? inFrame(request, done, null) : done()),
    );
  });
  const close = (request: FastifyRequest) => {
    request.closeActorFrame?.();
    request.closeActorFrame = null;
  };
  // In the callback style: an async hook costs every request a promise, frame or not.
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.closeActorFrame) close(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    if (request.closeActorFrame) close(request);
    done();
  });
}
