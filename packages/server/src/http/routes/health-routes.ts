import type { FastifyInstance } from 'fastify';
import { failureBody } from '../error-handler.js';
import type { Drain } from '../shutdown.js';

/**
 * For load balancers and orchestrators (docs/operations.md, "Health and readiness"):
 * `/health` answers while the process serves requests (a liveness probe: touches nothing);
 * `/ready` answers 200 only when the database answers, its migrations are all applied and every
 * blob store can be reached, else 503 `not_ready` naming what is not (the causes go to the log);
 * from the start of a stop's drain (shutdown.ts), 503 `shutting_down` without asking anything.
 * Both answer GET and HEAD, without authentication, and are never cached.
 */
export interface Readiness {
  /** What is not ready, in words for an operator; empty when all is. */
  problems(): Promise<string[]>;
}

export async function registerHealthRoutes(
  app: FastifyInstance,
  options: { readiness: Readiness; drain: Drain },
): Promise<void> {
  // Probes read: no audit frame (http/audit-context.ts).
  const config = { readOnly: true };
  app.get('/health', { config }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { result: true, status: 'ok' };
  });
  app.get('/ready', { config }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    if (options.drain.started)
      return reply.code(503).send(failureBody('shutting_down', 'The server is stopping; another process may answer.'));
    const problems = await options.readiness.problems();
    if (problems.length === 0) return { result: true, status: 'ready' };
    return reply.code(503).send(failureBody('not_ready', `Not ready: ${problems.join('; ')}.`, [], { problems }));
  });
}
