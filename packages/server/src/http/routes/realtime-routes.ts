import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import { parseInput, stringList } from '../../core/validation.js';
import type { RealtimeHub, StreamCaller } from '../../realtime/hub.js';
import type { StreamSink } from '../../realtime/stream.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf, tokenOf } from '../auth.js';
import { docSchema } from '../openapi.js';
import { answerOf, SCALARS } from '../protocol/answer-schemas.js';
import { requestValues } from '../request-values.js';

export interface RealtimeRouteOptions {
  hub: RealtimeHub;
  users: UserService;
  config: Config;
}

/** A topic is a line (realtime/topics.ts bounds it again, with the reason). */
const topics = stringList.pipe(z.array(z.string().max(4096)).max(10_000));

const openInput = z.object({
  topic: topics.optional().describe('A subscription; repeat it for several (docs/realtime.md, "Topics").'),
  lastEventId: z
    .string()
    .max(100)
    .optional()
    .describe('Where a returning client left off, for clients that cannot send the Last-Event-ID header.'),
});

const subscribeInput = z.object({
  clientId: z.string().min(1).max(64).describe("The id the stream's `connect` event gave."),
  topics: topics.describe('Every subscription the stream is to have from now on (an empty list: none).'),
});

const SUBSCRIBED = answerOf({ result: { const: true }, clientId: SCALARS.string, topics: SCALARS.strings });

/** The caller of a request with the token it came with: a stream checks it again on its account's events. */
async function streamCaller(request: FastifyRequest, users: UserService): Promise<StreamCaller> {
  const caller = await callerOf(request, users);
  return {
    principal: caller.principal,
    // A key's stream is checked again too: a revoked key's stream ends at its next check.
    token: caller.principal.userId === null && !caller.principal.key ? null : (tokenOf(request)?.token ?? null),
  };
}

/**
 * Starts the event stream on the raw response, with the headers the hooks set so far (security
 * headers, CORS: http/security-headers.ts, http/cors.ts). Fastify lets go of the reply.
 */
function startEventStream(request: FastifyRequest, reply: FastifyReply): StreamSink {
  reply.hijack();
  const raw = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // nginx buffers answers unless told not to; an event stream must go out as it is written.
    'x-accel-buffering': 'no',
  });
  request.raw.socket.setNoDelay(true);
  return {
    write: (text) => raw.write(text),
    onDrain: (listener) => raw.on('drain', listener),
    onGone: (listener) => raw.on('close', listener),
    end: () => raw.end(),
    destroy: () => raw.destroy(),
  };
}

/**
 * Live changes (docs/realtime.md): `GET /api/realtime` opens a server-sent event stream, with
 * its subscriptions in the query (`topic`, repeated) or posted afterwards; `POST /api/realtime`
 * replaces a stream's subscriptions by its client id, authenticated like any call (the token
 * mode of a browser, whose EventSource cannot send a header: PocketBase's pattern).
 */
export async function registerRealtimeRoutes(app: FastifyInstance, options: RealtimeRouteOptions): Promise<void> {
  const { hub, users, config } = options;
  app.addHook('preClose', async () => hub.close());

  app.get(
    '/api/realtime',
    {
      schema: docSchema({
        operationId: 'realtime_stream',
        tags: ['live changes'],
        summary: 'Opens a stream of live changes (text/event-stream).',
        answerMedia: 'text/event-stream',
        description:
          'Events: `connect` (the client id), one per subscription an event matches (named after the ' +
          'topic), `reload` (what was missed is no longer kept), `close` (why the server ends it). ' +
          'Sends `Last-Event-ID` back to resume.',
        input: openInput,
        in: 'querystring',
      }),
      // A stream only reads, for as long as it is open: no audit frame (http/audit-context.ts).
      config: { readOnly: true },
    },
    async (request, reply) => {
      const query = parseInput(openInput, request.query);
      const header = request.headers['last-event-id'];
      const lastEventId =
        (typeof header === 'string' && header.length <= 100 ? header : null) ?? query.lastEventId ?? null;
      try {
        await hub.open({
          address: request.ip,
          caller: await streamCaller(request, users),
          lastEventId,
          topics: query.topic ?? [],
          connect: () => startEventStream(request, reply),
        });
      } catch (err) {
        // Refused before the stream started: the failure body, as for any call.
        if (!reply.raw.headersSent) throw err;
        request.log.error({ err }, 'a live changes stream failed while resuming');
        reply.raw.end();
      }
      return reply;
    },
  );

  app.post(
    '/api/realtime',
    {
      schema: docSchema({
        operationId: 'realtime_subscribe',
        tags: ['live changes'],
        summary: "Replaces an open stream's subscriptions.",
        description:
          "Only the stream's own user may post (any of its sessions); a stream opened without a token " +
          'takes the user of its first signed-in post.',
        input: subscribeInput,
        answer: SUBSCRIBED,
        in: 'body',
      }),
    },
    async (request) => {
      const caller = await callerOf(request, users);
      assertWriteOrigin(request, caller, config.corsOrigins);
      // The body's values as every route reads them: one that is not an object is malformed_body.
      const input = parseInput(subscribeInput, requestValues(request));
      const held = await hub.subscribe(input.clientId, await streamCaller(request, users), input.topics);
      return { result: true, clientId: input.clientId, topics: held };
    },
  );
}
