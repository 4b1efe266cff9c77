import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../core/config.js';
import { liveRateLimit, type RuntimeSettingsService } from '../../core/runtime-settings.js';
import type { UserService } from '../../users/index.js';
import { assertSameOrigin, assertWriteOrigin, callerOf, withClient } from '../auth.js';
import { requestValues } from '../request-values.js';
import { docSchema } from '../openapi.js';
import { userOperations } from '../protocol/user-protocol.js';

/** `/users/api/<op>` and its aliases (http/protocol/user-protocol.ts), with rate limits and origin checks. */
export async function registerUserRoutes(
  app: FastifyInstance,
  options: { users: UserService; config: Config; settings: RuntimeSettingsService },
): Promise<void> {
  const { users, config } = options;
  const rateLimit = liveRateLimit(options.settings);

  for (const route of userOperations(users, config)) {
    const also = [
      ...(route.aliases ?? []).map((name) => `\`/users/api/${name}\``),
      'GET with the parameters in the query',
      ...(route.del ? ['DELETE'] : []),
    ];
    const docs = {
      tags: [route.admin ? 'users (administrators)' : 'users'],
      summary: route.summary,
      description: `Also answers as ${also.join(', ')}.`,
      input: route.input,
      answer: route.answer,
    };
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Tokens and profiles must not stay in a browser's or a proxy's cache.
      reply.header('cache-control', 'no-store');
      const caller = await callerOf(request, users);
      if (route.sameOrigin) assertSameOrigin(request, config.corsOrigins);
      else if (!route.read) assertWriteOrigin(request, caller, config.corsOrigins);
      // Sign-ins and the rate-limited calls (sign-ups, resets, mailed sign-ins) know the client:
      // its address and agent for the throttle and the session, its proof of work (users/proof-of-work.ts).
      const client = route.signin || route.limited ? withClient(caller, request) : caller;
      const answer = await route.call(client, requestValues(request));
      return route.after ? route.after(request, reply, answer) : answer;
    };
    // GET, POST and DELETE of one operation share one rate-limit counter: one limiter (one
    // store) per operation, as a hook of each route. A per-route `config.rateLimit` would give
    // every method a store, and so a counter, of its own (`groupId` does not join them).
    const routeConfig = { validationStatus: 200 };
    // The key names the operation: a shared (Redis) store would otherwise count every operation together.
    const limit = route.limited
      ? { onRequest: app.rateLimit({ ...rateLimit, keyGenerator: (request) => `${route.op}:${request.ip}` }) }
      : {};
    for (const name of [route.op, ...(route.aliases ?? [])]) {
      const url = `/users/api/${name}`;
      // One operation, documented once: its POST under its own name; the rest answers too.
      const post = { ...docs, operationId: `users_${name}`, alias: name !== route.op };
      const other = { ...post, alias: true };
      app.post(url, { schema: docSchema({ ...post, in: 'body' }), config: routeConfig, ...limit }, handler);
      app.get(url, { schema: docSchema({ ...other, in: 'querystring' }), config: routeConfig, ...limit }, handler);
      if (route.del)
        app.delete(url, { schema: docSchema({ ...other, in: 'none' }), config: routeConfig, ...limit }, handler);
    }
  }
}
