import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { ROOST_VERSION } from '../core/version.js';

type ContentTypeParser = (
  request: FastifyRequest,
  body: string | Buffer,
  done: (err: Error | null, body?: unknown) => void,
) => void;
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { onFirstUse } from '../core/on-first-use.js';
import type { Config } from '../core/config.js';
import { commonErrors } from '../core/errors.js';
import type { UserService } from '../users/index.js';
import type { EventBus } from '../core/events.js';
import type { RealtimeHub } from '../realtime/hub.js';
import { registerRealtimeRoutes } from './routes/realtime-routes.js';
import type { DataStores } from '../datastore/index.js';
import type { FileStores } from '../filestore/index.js';
import { failureBody, installErrorHandler } from './error-handler.js';
import { registerOpenApi } from './openapi.js';
import { registerHealthRoutes, type Readiness } from './routes/health-routes.js';
import { installCors } from './cors.js';
import { answerClientError } from './client-errors.js';
import { installSecurityHeaders } from './security-headers.js';
import { createDrain, installShutdown, type Drain } from './shutdown.js';
import { installRequestLog } from './request-log.js';
import { installAuditContext } from './audit-context.js';
import { installReaderContext } from './reader-context.js';
import type { Readers } from '../core/readers.js';
import { registerKeyRoutes } from './routes/key-routes.js';
import type { KeyService } from '../keys/index.js';
import { createHttpMetrics, registerMetrics } from './metrics.js';
import type { MailQueueCounts } from '../core/mailer.js';
import type { HookStat } from '../core/hooks.js';
import type { RequestRecords } from '../core/request-records.js';
import type { BackupHealth } from '../backups/index.js';
import { requestLogger } from './request-logger.js';
import { installRequestIdHeader, requestIdOf } from './request-id.js';

/** ioredis, loaded with `rateLimit.redisUrl` only (core/on-first-use.ts). */
const ioredis = onFirstUse<typeof import('ioredis')>('ioredis');

export interface HttpServices {
  users: UserService;
  /** The committed changes live streams deliver (core/events.ts). */
  events: EventBus;
  dataStores: DataStores;
  fileStores: FileStores;
  /** The routes of every service kind, registered in order (src/service-kinds.ts builds them). */
  routes?: ReadonlyArray<(app: FastifyInstance) => Promise<unknown>>;
  /** The OpenAPI paths the kinds' route schemas cannot say (core/service-kind.ts `docPaths`). */
  docPaths?: () => Record<string, object>;
  /** For `/ready` (routes/health-routes.ts); without it `/ready` says ready once the process runs. */
  readiness?: Readiness;
  /** The recent requests kept for the admin logs page (`requestLog.keep`; request-log.ts). */
  requestRecords?: RequestRecords | null;
  /** The drain a stop starts before it closes the app (shutdown.ts); without it, none. */
  drain?: Drain;
  /** The live changes hub services.ts built (null or absent: realtime is off, no stream routes). */
  hub?: RealtimeHub | null;
  /** The mail queue's counts, for /metrics (metrics.ts). */
  mailQueueCounts?: () => Promise<MailQueueCounts>;
  /** The hooks' runs (/metrics). */
  hookStats?: () => readonly HookStat[];
  /** The API keys, for their administrators' routes (routes/key-routes.ts). */
  keys?: KeyService;
  /** The newest backup and restore check (/metrics; backups/backups-service.ts). */
  backupHealth?: () => Promise<BackupHealth>;
  /** Whose reads a request's are, for read replicas (reader-context.ts); absent: every read on the primary. */
  readers?: Readers;
}

/**
 * With `rateLimit.redisUrl`, counters live in Redis, shared by every process that uses it.
 * When Redis cannot be reached, requests are let through (logged once per outage) rather than
 * refused: sign-in stays guarded by the per-account lockout, which is in the database. Commands
 * fail at once while disconnected instead of queueing, so a request never waits for Redis.
 */
function sharedCounters(
  app: FastifyInstance,
  log: FastifyBaseLogger,
  redisUrl: string | undefined,
): { redis: Redis; skipOnError: true; nameSpace: string } | Record<string, never> {
  if (!redisUrl) return {};
  const redis = new (ioredis().Redis)(redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log.warn({ err }, 'rate limit counters: Redis unreachable, requests are not limited until it is back');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('rate limit counters: Redis is back');
    down = false;
  });
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  return { redis, skipOnError: true, nameSpace: 'roost-rate-limit:' };
}

/** The Fastify app with every route; `listen` is the caller's business (tests listen on port 0). */
export async function buildHttp(
  services: HttpServices,
  config: Config,
  log: FastifyBaseLogger,
): Promise<FastifyInstance> {
  const metrics = config.metrics.enabled ? createHttpMetrics() : null;
  const app = Fastify({
    // Fastify's own logger stays off: with one, Fastify adds listeners and clock readings to
    // every request for its request log, which Roost does not write (one line per request would
    // cost more than many operations; failures are logged by the error handler). A request's
    // lines go to Roost's log, tagged with the request id (request-logger.ts).
    logger: false,
    childLoggerFactory: (_off, bindings, options) => requestLogger(log, bindings, options),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // Read by request-id.ts, which checks what it takes.
    requestIdHeader: false,
    genReqId: requestIdOf(config.trustRequestId ?? config.trustProxy),
    // A URL the router cannot decode (`%ff`) gets Roost's failure body, not Fastify's own.
    frameworkErrors: (_error, _request, reply) => {
      // The generic reply type of this hook is narrower than any route's; a plain reply it is.
      (reply as unknown as FastifyReply).code(400).send(failureBody('bad_request', 'The request is malformed.'));
    },
    // What Node's HTTP parser refuses (headers over 16 KiB, a broken request line) never reaches
    // a route; it still gets Roost's failure body.
    clientErrorHandler: answerClientError,
    // Requests that arrive while the server stops get Roost's failure body (shutdown.ts).
    return503OnClosing: false,
  });
  app.decorateRequest('roostCaller', null);
  app.decorateRequest('routePattern', null);
  installErrorHandler(app);
  installAuditContext(app, services.users);
  if (services.readers) installReaderContext(app, services.users, services.readers);

  // Operations validate with their own zod schemas (for the seed's field reasons); route
  // schemas only document them.
  app.setValidatorCompiler(() => (data) => ({ value: data }));

  // An empty body with a JSON content type is an empty object (the AngularJS connector sends
  // one); the default parser keeps its protection against prototype poisoning.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const jsonParser: ContentTypeParser = (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    return parseJson(request, text, done);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonParser);
  // The original Python connector posts its JSON with no Content-Type at all (it names the
  // header `contentType`); such a body is read as JSON. Any other unknown type is refused.
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    if (request.headers['content-type'] === undefined) return jsonParser(request, body, done);
    done(
      Object.assign(new Error('unsupported media type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }),
      undefined,
    );
  });

  installSecurityHeaders(app);
  installRequestIdHeader(app);
  installRequestLog(app, log, config.logRequests, services.requestRecords ?? null);
  const hub = services.hub ?? null;
  if (metrics)
    await registerMetrics(app, metrics, {
      allow: config.metrics.allow,
      users: services.users,
      mailQueue: services.mailQueueCounts,
      ...(services.hookStats ? { hooks: services.hookStats } : {}),
      ...(services.backupHealth ? { backups: services.backupHealth } : {}),
      ...(hub ? { realtime: () => hub.stats() } : {}),
      ...(services.readers?.replicated ? { replicas: services.readers.replicas } : {}),
    });

  await app.register(cookie);
  await app.register(formbody, { bodyLimit: config.bodyLimit });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: () => commonErrors.rate_limited(),
    ...sharedCounters(app, log, config.rateLimit.redisUrl),
  });
  installCors(app, config.corsOrigins);
  const drain = services.drain ?? createDrain();
  installShutdown(app, drain, config.shutdownGraceSeconds * 1000);
  await registerOpenApi(app, ROOST_VERSION, services.docPaths);

  await app.register(registerHealthRoutes, {
    readiness: services.readiness ?? { problems: async () => [] },
    drain,
  });
  // Each service kind's operations (service-kinds.ts: users, data stores, file stores, ...).
  for (const register of services.routes ?? []) await register(app);
  if (services.keys) await app.register(registerKeyRoutes, { keys: services.keys, users: services.users, config });
  if (hub) await app.register(registerRealtimeRoutes, { hub, users: services.users, config });
  return app;
}
