import type { FastifyInstance } from 'fastify';
import { ANONYMOUS } from '../core/permissions.js';
import { readerOf, type Readers } from '../core/readers.js';
import type { UserService } from '../users/index.js';
import { callerOf } from './auth.js';

/**
 * With read replicas (docs/scaling.md, "Read replicas"), every request runs as its caller's
 * reader (core/readers.ts): the stores' reads in it go to a replica that has replayed what that
 * caller wrote, and its writes mark what the caller's next reads must see. The caller is read
 * once per request (`callerOf` keeps it; audit-context.ts reads it the same way); a refused
 * token reads as anonymous, and the route answers the refusal. `as` around `done` carries the
 * reader through the route's handler, as audit-context.ts carries its frame. Without replicas
 * nothing is installed: no request pays for a reader.
 */
export function installReaderContext(app: FastifyInstance, users: UserService, readers: Readers): void {
  if (!readers.replicated) return;
  app.addHook('preHandler', (request, _reply, done) => {
    callerOf(request, users).then(
      (caller) => readers.as(readerOf(caller.principal, request.ip), done),
      () => readers.as(readerOf(ANONYMOUS, request.ip), done),
    );
  });
}
