/**
 * Routes of your own (issue 40, item 3; docs/hooks.md, "Routes of your own"): an extension
 * declares `roost.routes.get('/orders/:id', { auth, input, answer, summary }, handler)` and
 * Roost serves it under `/api/x`, with the caller resolved as on every route (http/auth.ts),
 * the input checked by its schema (extend/route-input.ts), Roost's failure body
 * (http/failure.ts) and an entry in `/openapi.json` (http/openapi.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
} from 'fastify';
import { administers } from '../core/grants.js';
import { withinTime } from '../core/time-limit.js';
import { commonErrors, defineErrors, isRoostError } from '../core/errors.js';
import type { Principal } from '../core/permissions.js';
import type { User } from '../users/index.js';
import { assertWriteOrigin, callerOf, withClient } from '../http/auth.js';
import { docSchema } from '../http/openapi.js';
import { queryValues, requestValues } from '../http/request-values.js';
import type { ExtensionJobs } from './jobs.js';
import {
  documentedSchema,
  inputCheck,
  routeAjvs,
  type InputCheck,
  type InputOf,
  type RouteSchema,
} from './route-input.js';
import { SYSTEM_CALLER, servicesAs, type ServicesAs, type ServicesAsDeps } from './services-as.js';

/** Where every extension route is served: Roost's own routes never use it (docs/hooks.md). */
const EXTENSION_ROUTE_PREFIX = '/api/x';

/** Who may call: anyone, a signed-in user, or one who administers (core/grants.ts `administers`). */
export type RouteAuth = 'none' | 'user' | 'admin';

export interface RouteOptions<S extends RouteSchema | undefined> {
  auth: RouteAuth;
  /** The input: the query string for GET and DELETE, else the JSON body over the query. None when absent. */
  input?: S;
  /** The answer's schema, for `/openapi.json` only (the handler's value is sent as it is). */
  answer?: RouteSchema;
  /** A line for `/openapi.json`; the route's method and path when absent. */
  summary?: string;
  description?: string;
  /** How long the handler may take before the caller gets 503 `route_timeout` (default 30). */
  timeoutSeconds?: number;
}

/** Who called a route. */
export interface RouteCaller {
  /** The signed-in account, null for an anonymous caller (only with `auth: 'none'`). */
  readonly user: User | null;
  readonly principal: Principal;
  /** Holds the backend permission (an administrator). */
  readonly administers: boolean;
}

/** What a handler is given. */
export interface RouteContext<I> {
  readonly input: I;
  readonly caller: RouteCaller;
  /** The services as the caller: what it may not do is refused as it would be on Roost's own routes. */
  readonly services: ServicesAs;
  /** The services as the system (a program that administers): for what the route itself vouches for. */
  asSystem(): ServicesAs;
  /** Background and scheduled jobs (extend/jobs.ts). */
  readonly jobs: ExtensionJobs;
  /** The path's parameters (`:id`), as text. */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** The client's address (behind `trustProxy`, the forwarded one). */
  readonly ip: string;
  /** Aborted when the time limit is over: work that can stop should. */
  readonly signal: AbortSignal;
  /** The request's log, its lines tagged with the route. */
  readonly log: FastifyBaseLogger;
}

/** A handler: its value (JSON) is the 200 answer; a RoostError is its failure; anything else a 500. */
export type RouteHandler<I> = (context: RouteContext<I>) => unknown;

type Declare = <S extends RouteSchema | undefined = undefined>(
  path: string,
  options: RouteOptions<S>,
  handler: RouteHandler<InputOf<S>>,
) => void;

/** The routes part of the extension API (extend/extension.ts). */
export interface ExtensionRoutes {
  get: Declare;
  post: Declare;
  put: Declare;
  patch: Declare;
  delete: Declare;
}

type Method = keyof ExtensionRoutes;

/** The failures of an extension's route besides the handler's own (docs/errors.md). */
export const routeErrors = defineErrors({
  route_timeout: { kind: 'unavailable', message: 'The route took too long to answer. Try again later.' },
});

/** A segment is a name (letters, digits, `-._~`) or a parameter `:name`; no wildcards, no patterns. */
const SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~-]+)$/;
const DEFAULT_TIMEOUT_SECONDS = 30;
/** setTimeout's own bound is about 24 days; an hour is longer than any request should wait. */
const MAX_TIMEOUT_SECONDS = 3600;

interface Declared {
  method: Method;
  /** As served: under EXTENSION_ROUTE_PREFIX. */
  url: string;
  /** `GET /api/x/orders/:id`: in the log of its failures and its errors at start. */
  name: string;
  options: RouteOptions<RouteSchema | undefined>;
  handler: RouteHandler<unknown>;
  check: InputCheck | null;
}

export interface ExtensionRoutesDeps extends ServicesAsDeps {
  /** The CORS origins a cookie write may come from (config `corsOrigins`, http/auth.ts). */
  corsOrigins: readonly string[];
  jobs: ExtensionJobs;
}

/** The routes part of the API, and what the composition root does with what was declared. */
export interface ExtensionRouteTable {
  readonly api: ExtensionRoutes;
  /** Adds every declared route to the app (before it listens); later declarations are refused. */
  register(app: FastifyInstance): void;
}

export function createExtensionRoutes(deps: ExtensionRoutesDeps): ExtensionRouteTable {
  const declared: Declared[] = [];
  const ajvs = routeAjvs();
  let registered = false;

  const declare =
    (method: Method): Declare =>
    (path, options, handler) => {
      const url = servedPath(path);
      const name = `${method.toUpperCase()} ${url}`;
      if (registered) throw new Error(`extension route ${name}: routes are declared at start, before Roost listens`);
      if (declared.some((route) => route.name === name)) throw new Error(`extension route ${name} is declared twice`);
      if (!['none', 'user', 'admin'].includes(options.auth))
        throw new Error(`extension route ${name}: auth is 'none', 'user' or 'admin'`);
      const seconds = options.timeoutSeconds;
      if (seconds !== undefined && !(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS))
        throw new Error(`extension route ${name}: timeoutSeconds is more than 0 and at most ${MAX_TIMEOUT_SECONDS}`);
      let check: InputCheck | null = null;
      try {
        if (options.input) check = inputCheck(options.input, where(method), ajvs[where(method)]);
      } catch (err) {
        throw new Error(`extension route ${name}: its input schema: ${(err as Error).message}`, { cause: err });
      }
      declared.push({ method, url, name, options, handler: handler as RouteHandler<unknown>, check });
    };

  return {
    api: {
      get: declare('get'),
      post: declare('post'),
      put: declare('put'),
      patch: declare('patch'),
      delete: declare('delete'),
    },
    register(app) {
      registered = true;
      for (const route of declared) {
        const method = route.method.toUpperCase() as HTTPMethods;
        if (app.hasRoute({ method, url: route.url }))
          throw new Error(`extension route ${route.name} collides with a route Roost already serves`);
        app.route({
          method,
          url: route.url,
          schema: documentation(route),
          // Validation failures answer 422, as the stores' and the collections' do (http/failure.ts).
          config: { validationStatus: 422 },
          handler: (request, reply) => serve(route, request, reply, deps),
        });
      }
    },
  };
}

const inQuery = (method: Method) => method === 'get' || method === 'delete';
const where = (method: Method) => (inQuery(method) ? 'query' : 'body');

/** The path as served, or the error naming what is wrong with it. */
function servedPath(path: string): string {
  const segments = path.split('/').slice(1);
  if (!path.startsWith('/') || segments.some((segment) => !SEGMENT.test(segment)))
    throw new Error(
      `extension route path "${path}": write it as /name/:param/..., letters, digits, -._~ and :params only`,
    );
  return `${EXTENSION_ROUTE_PREFIX}${path === '/' ? '' : path}`;
}

/** One request: the caller, its input, the handler under its time limit. */
async function serve(
  route: Declared,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ExtensionRoutesDeps,
): Promise<string> {
  // Every line of this request, the failure's too (http/failure.ts), names the route.
  request.log = request.log.child({ route: route.name });
  const found = await callerOf(request, deps.users);
  if (!inQuery(route.method)) assertWriteOrigin(request, found, deps.corsOrigins);
  const principal = found.principal;
  if (route.options.auth !== 'none' && !found.user) throw commonErrors.not_signed_in();
  const admin = administers(principal);
  if (route.options.auth === 'admin' && !admin) throw commonErrors.not_allowed();
  const values = inQuery(route.method) ? queryValues(request) : requestValues(request);
  const input = route.check ? await route.check(values) : undefined;
  const caller = withClient({ principal, user: found.user, tokenHash: found.tokenHash }, request);
  let system: ServicesAs | undefined;
  const aborts = new AbortController();
  const context: RouteContext<unknown> = {
    input,
    caller: { user: found.user, principal, administers: admin },
    services: servicesAs(deps, caller),
    asSystem: () => (system ??= servicesAs(deps, SYSTEM_CALLER)),
    jobs: deps.jobs,
    params: request.params as Record<string, string>,
    headers: request.headers,
    ip: request.ip,
    signal: aborts.signal,
    log: request.log,
  };
  const answer = await handlerWithinTime(
    (async () => route.handler(context))(),
    (route.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    aborts,
    request.log,
  );
  // Always JSON, a text too (Fastify would send a string as plain text); nothing returned is `null`.
  reply.type('application/json; charset=utf-8');
  return JSON.stringify(answer ?? null);
}

/**
 * The handler's result, or `route_timeout` when it takes longer than `ms`; a handler that fails
 * after its caller was answered is logged, never an unhandled rejection.
 */
function handlerWithinTime<T>(work: Promise<T>, ms: number, aborts: AbortController, log: FastifyBaseLogger) {
  return withinTime(work, ms, () => {
    aborts.abort();
    work.catch((err: unknown) => {
      if (!isRoostError(err)) log.error({ err }, 'an extension route failed after its time limit');
    });
    return routeErrors.route_timeout();
  });
}

/** The route's entry in `/openapi.json`: its input, answer, path parameters and who may call. */
function documentation(route: Declared): FastifySchema {
  const { options, method, url } = route;
  const schema = docSchema({
    operationId: `x_${method}_${url.slice(EXTENSION_ROUTE_PREFIX.length + 1).replace(/[^A-Za-z0-9]+/g, '_')}`,
    summary: options.summary ?? route.name,
    description: options.description,
    tags: ['extensions'],
    in: 'none',
    answer: options.answer ? documentedSchema(options.answer, 'output') : undefined,
  }) as FastifySchema & { security?: object[] };
  if (options.input)
    schema[where(method) === 'query' ? 'querystring' : 'body'] = documentedSchema(options.input, 'input');
  const params = url.split('/').filter((segment) => segment.startsWith(':'));
  if (params.length)
    schema.params = {
      type: 'object',
      properties: Object.fromEntries(params.map((param) => [param.slice(1), { type: 'string' }])),
      required: params.map((param) => param.slice(1)),
    };
  // Signed-in routes take any one of the three ways to send the token (http/openapi.ts).
  if (options.auth !== 'none') schema.security = [{ token: [] }, { bearer: [] }, { cookie: [] }];
  return schema;
}
