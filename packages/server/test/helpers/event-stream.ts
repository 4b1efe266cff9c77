import { get, type IncomingMessage } from 'node:http';
import { after } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** A frame of a live changes stream, its data parsed (docs/realtime.md). */
interface StreamEvent {
  id: string | undefined;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the members they check
  data: any;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** The failure body when the stream was refused. */
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the members they check
  failure: any;
  /** From the `connect` event. */
  clientId: string;
  /** The id of the `connect` event: where a client that got nothing yet resumes. */
  connectId: string | undefined;
  /** Every event after `connect`, in order. */
  events: StreamEvent[];
  /** The next event not yet taken by `next` (the first matching `name`, when given); fails after `ms`. */
  next(name?: string, ms?: number): Promise<StreamEvent>;
  /** Waits `ms` (default 800) and answers what came meanwhile that `next` has not taken. */
  quiet(ms?: number): Promise<StreamEvent[]>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export interface StreamOptions {
  token?: string;
  cookie?: string;
  topics?: string[];
  lastEventId?: string;
  headers?: Record<string, string>;
}

/**
 * Opens `GET /api/realtime` over HTTP and reads its frames with eventsource-parser, as a Node
 * program would: the real server, the real wire.
 */
export async function openStream(baseUrl: string, options: StreamOptions = {}): Promise<OpenStream> {
  const query = new URLSearchParams();
  for (const topic of options.topics ?? []) query.append('topic', topic);
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers['x-auth-token'] = options.token;
  if (options.cookie) headers.cookie = options.cookie;
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  // node:http with a connection of its own, dropped by `close`: fetch's pool opens a spare
  // connection when a body is aborted, which would hold the server's stop for its headers timeout.
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = get(`${baseUrl}/api/realtime${query.size ? `?${query}` : ''}`, { headers, agent: false }, resolve);
    request.on('error', reject);
  });
  const status = res.statusCode ?? 0;
  const events: StreamEvent[] = [];
  let taken = 0;
  // A holder, not a `let`: TypeScript would take a `let` assigned in callbacks for always null.
  const waiting: { wake: (() => void) | null } = { wake: null };
  let connect: EventSourceMessage | null = null;
  let onConnect: (() => void) | null = null;
  const parser = createParser({
    onEvent(message) {
      if (message.event === 'connect' && connect === null) {
        connect = message;
        onConnect?.();
        return;
      }
      events.push({ id: message.id, event: message.event ?? 'message', data: JSON.parse(message.data) });
      waiting.wake?.();
    },
  });
  let ended: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  if (status === 200) {
    res.setEncoding('utf8');
    ended = new Promise<void>((resolve) => {
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('error', () => {});
      res.on('close', () => {
        waiting.wake?.();
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      onConnect = resolve;
      void ended.then(() => reject(new Error('the stream ended before its connect event')));
    });
  } else {
    let text = '';
    for await (const chunk of res) text += String(chunk);
    failure = JSON.parse(text);
  }

  const connected = connect as EventSourceMessage | null;
  let finished = false;
  void ended.then(() => (finished = true));
  return {
    status,
    headers: new Headers(
      Object.entries(res.headers).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, String(value)] satisfies [string, string]],
      ),
    ),
    failure,
    clientId: connected ? (JSON.parse(connected.data) as { clientId: string }).clientId : '',
    connectId: connected?.id,
    events,
    ended,
    async next(name, ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        while (taken < events.length) {
          const event = events[taken++] as StreamEvent;
          if (name === undefined || event.event === name) return event;
        }
        if (finished) throw new Error(`the stream ended; no ${name ?? 'event'} came`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${name ?? 'event'} within ${ms} ms; got ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiting.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiting.wake = null;
      }
    },
    // Long enough for events a loaded machine (the PostgreSQL pass with S3) delivers late.
    async quiet(ms = 800) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      const rest = events.slice(taken);
      taken = events.length;
      return rest;
    },
    close: () => res.destroy(),
  };
}

/**
 * `openStream` on the server at `baseUrl()` (asked at each call: test files start their servers
 * in `before`) for the tests of a suite (call it in a `describe`), every stream they opened
 * closed after the suite.
 */
export function streamsOf(baseUrl: () => string): (options?: StreamOptions) => Promise<OpenStream> {
  const opened: OpenStream[] = [];
  after(() => {
    for (const stream of opened) stream.close();
  });
  return async (options) => {
    const stream = await openStream(baseUrl(), options);
    opened.push(stream);
    return stream;
  };
}
