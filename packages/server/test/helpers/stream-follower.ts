import { openStream, type OpenStream } from './event-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client of a live stream (through a balancer) that comes back, as EventSource does, with the
 * last id it saw (scale/rolling-restart.test.ts, scale/failover.test.ts).
 */
export interface Follower {
  lastId: string | undefined;
  opened: number;
  /** Opens sent with a `Last-Event-ID`. */
  resumed: number;
  closes: string[];
  reloads: number;
  keys: Set<string>;
  failures: string[];
}

export function newFollower(): Follower {
  return { lastId: undefined, opened: 0, resumed: 0, closes: [], reloads: 0, keys: new Set(), failures: [] };
}

/** Follows `items/data` on `url` until `done()`, opening the stream again whenever it ends. */
export async function follow(url: string, token: string, follower: Follower, done: () => boolean): Promise<void> {
  while (!done()) {
    let stream: OpenStream;
    try {
      stream = await openStream(url, {
        token,
        topics: ['items/data'],
        ...(follower.lastId ? { lastEventId: follower.lastId } : {}),
      });
    } catch (err) {
      follower.failures.push(`open: ${(err as Error).message}`);
      await sleep(100);
      continue;
    }
    if (stream.status !== 200) {
      follower.failures.push(`open: ${stream.status} ${JSON.stringify(stream.failure)}`);
      await sleep(100);
      continue;
    }
    if (follower.lastId) follower.resumed++;
    follower.opened++;
    follower.lastId = stream.connectId ?? follower.lastId;
    let ended = false;
    void stream.ended.then(() => (ended = true));
    for (;;) {
      let event: Awaited<ReturnType<OpenStream['next']>>;
      try {
        event = await stream.next(undefined, 200);
      } catch {
        if (ended) break;
        if (done()) {
          stream.close();
          await stream.ended;
          break;
        }
        continue;
      }
      if (event.id) follower.lastId = event.id;
      if (event.event === 'close') follower.closes.push(String(event.data.code));
      else if (event.event === 'reload') follower.reloads++;
      else if (typeof event.data?.key === 'string') follower.keys.add(event.data.key);
    }
  }
}

/** A POST of JSON to `url` + `path`, with the token when given: its status, body and Retry-After. */
export async function call(
  url: string,
  path: string,
  body: unknown,
  token?: string,
  // biome-ignore lint/suspicious/noExplicitAny: whatever the server answered; the tests read the members they check
): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'x-auth-token': token } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (a proxy's page): kept as text, for the failure's message
  }
  return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
}
