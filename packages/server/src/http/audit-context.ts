import type {
  FastifyInstance,
  FastifyRequest,
  onRequestAbortHookHandler,
  onResponseHookHandler,
  preHandlerHookHandler,
} from 'fastify';
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
  interface FastifyContextConfig {
    /**
     * The route only reads: it changes nothing the audit log keeps, so it gets no actor frame
     * (`installAuditContext`). Said by the route, from its protocol table where it has one
     * (`read` of a data store's operation); a route that does not say it is framed.
     */
    readOnly?: boolean;
  }
}

/** A route as registered, and whether its requests may open an actor frame. */
export interface AuditedRoute {
  method: string | readonly string[];
  url: string;
  framed: boolean;
}

/** Each app's routes as `installAuditContext` saw them (test/http/audit-routes.test.ts reads them). */
const seen = new WeakMap<FastifyInstance, AuditedRoute[]>();

/** The routes of an app with `installAuditContext`, in the order registered. */
export function auditedRoutes(app: FastifyInstance): readonly AuditedRoute[] {
  return seen.get(app) ?? [];
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
 *
 * The hook is a `preHandler` of each route that can write (`onRoute`), not of every route: the
 * reads (`config.readOnly`: getItem, list, the live stream, health, /metrics) pay nothing for it,
 * not even the caller's promise before the handler (bench/RESULTS.md, "Operating Roost (issue
 * 42)": about 7 % of a getItem). A route that does not say it reads is framed, so that a new
 * writing route is audited without a word.
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
    path.startsWith('/admin') ||
    path.startsWith('/users/') ||
    path.startsWith('/api/keys') ||
    path.startsWith('/scim/');
  const openFrame: preHandlerHookHandler = (request, _reply, done) => {
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
  };
  const close = (request: FastifyRequest) => {
    request.closeActorFrame?.();
    request.closeActorFrame = null;
  };
  // In the callback style: an async hook costs every request a promise, frame or not.
  const closeAnswered: onResponseHookHandler = (request, _reply, done) => {
    if (request.closeActorFrame) close(request);
    done();
  };
  const closeAborted: onRequestAbortHookHandler = (request, done) => {
    if (request.closeActorFrame) close(request);
    done();
  };
  const routes: AuditedRoute[] = [];
  seen.set(app, routes);
  app.addHook('onRoute', (route) => {
    const framed = route.config?.readOnly !== true;
    routes.push({ method: route.method, url: route.url, framed });
    if (!framed) return;
    // First of the route's own: the frame covers its other hooks and its handler.
    route.preHandler = [openFrame, ...listOf(route.preHandler)];
    route.onResponse = [closeAnswered, ...listOf(route.onResponse)];
    route.onRequestAbort = [closeAborted, ...listOf(route.onRequestAbort)];
  });
}

/** A route option's hooks, none, one or several, as a list. */
const listOf = <H>(hooks: H | H[] | undefined): H[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
