import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { isRoostError, RoostError } from './errors.js';
import type { Item } from './datastore-types.js';
import type { Entry } from './filestore-types.js';
import type { Profile } from './users-types.js';
import type { AnyRecord } from './collection-types.js';
import { Deadline, Transport } from './transport.js';
import type { ConnectorOptions } from './options.js';

/** What every live event has: its topic (as subscribed) and its id (what a reconnection resumes from). */
interface EventBase {
  topic: string;
  eventId: string;
}

/** A change to an item; `item` is what getItem answers, absent when the subscriber may not read it (any more). */
export interface LiveItemEvent extends EventBase {
  event: 'item.created' | 'item.replaced' | 'item.removed' | 'item.owner_changed';
  store: string;
  key: string;
  id?: number;
  item?: Item;
}

/** A change to a file or directory; `entry` is what the listing shows; a move says where to (`to`). */
export interface LiveFileEvent extends EventBase {
  event: 'file.created' | 'file.written' | 'file.moved' | 'file.removed' | 'file.owner_changed';
  store: string;
  path: string;
  to?: string;
  entry?: Entry;
}

/** A change to the subscriber's own account; `user` is its profile while the session lasts. */
export interface LiveAccountEvent extends EventBase {
  event: 'account.created' | 'account.changed' | 'account.disabled' | 'account.removed' | 'account.signed_out';
  user?: Profile;
}

/**
 * A change to a record of a collection (docs/collections.md "Live queries"): `record` is the
 * record as the API answers it (for a deletion, as it was; absent past the size an event carries).
 * `left` (an update, without the record): it no longer passes the topic's filter or the view rule.
 */
export interface LiveRecordEvent<R = AnyRecord> extends EventBase {
  event: 'record.created' | 'record.updated' | 'record.deleted';
  collection: string;
  id: string;
  record?: R;
  left?: true;
}

/** Events were missed (away too long, or the server lost some): fetch what you show again. */
export interface LiveReloadEvent extends EventBase {
  event: 'reload';
  reason: string;
}

export type LiveEvent = LiveItemEvent | LiveFileEvent | LiveAccountEvent | LiveRecordEvent | LiveReloadEvent;
export type LiveHandler = (event: LiveEvent) => void;

/** What a subscription may be told besides its events. */
export interface SubscribeOptions {
  /** The subscription was refused (a topic the caller may not read, a limit), or the stream keeps failing. */
  onError?: (error: RoostError) => void;
}

interface Subscriber {
  handler: LiveHandler;
  onError: ((error: RoostError) => void) | undefined;
}

const MAX_DELAY = 30_000;

/**
 * Live changes (docs/realtime.md): one stream to Roost for every subscription made here, opened
 * on the first and closed after the last. The stream is read with `fetch` (so the token goes
 * in a header, from a browser as from Node) and parsed with eventsource-parser; a topic added
 * or removed while it is open is posted by the stream's client id. A dropped stream comes back
 * by itself, with `Last-Event-ID`: what was missed arrives once, or a `reload` event when the
 * server no longer has it.
 *
 * @example
 * const live = realtime({ baseUrl: 'http://127.0.0.1:8080', token });
 * const stop = live.subscribe('items/notes', (change) => console.log(change.event, change));
 * stop();
 */
export class Realtime {
  readonly #transport: Transport;
  readonly #topics = new Map<string, Set<Subscriber>>();
  #abort: AbortController | null = null;
  #clientId: string | null = null;
  #lastEventId: string | null = null;
  /** The topics the open stream has (as opened or last posted). */
  #held: string[] = [];
  #posting: Promise<void> = Promise.resolve();
  #retryMs = 2000;
  #running = false;
  #connected = false;
  #waiting: Array<() => void> = [];

  constructor(options: ConnectorOptions) {
    this.#transport = new Transport(options);
  }

  /** True while the stream is open. */
  get connected(): boolean {
    return this.#connected;
  }

  /**
   * Resolves once the stream is open with every topic subscribed so far (events of writes made
   * after it are heard); at once when there is no subscription.
   */
  ready(): Promise<void> {
    if (this.#isReady()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #isReady(): boolean {
    const topics = [...this.#topics.keys()];
    return topics.length === 0 || (this.#connected && topics.every((t) => this.#held.includes(t)));
  }

  /** Tells those waiting for `ready` once it holds. */
  #settle(): void {
    if (!this.#isReady()) return;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /**
   * Calls `handler` with every event of `topic` (`items/<store>`, `items/<store>?keys=a,b`,
   * `items/<store>?prefix=p`, `files/<store>/<dir>`, `files/<store>/<dir>/**`, `account`,
   * `records/<collection>`, `records/<collection>?filter=<URL-encoded filter>`) and
   * with `reload` when events were missed. The function returned ends the subscription.
   */
  subscribe(topic: string, handler: LiveHandler, options: SubscribeOptions = {}): () => void {
    if (typeof topic !== 'string' || topic.length === 0) throw new TypeError('a topic is a non-empty string');
    if (typeof handler !== 'function') throw new TypeError('the handler is a function');
    const subscriber: Subscriber = { handler, onError: options.onError };
    const set = this.#topics.get(topic);
    if (set) set.add(subscriber);
    else {
      this.#topics.set(topic, new Set([subscriber]));
      this.#changed();
    }
    return () => {
      const current = this.#topics.get(topic);
      if (!current?.delete(subscriber) || current.size > 0) return;
      this.#topics.delete(topic);
      this.#changed();
    };
  }

  /** Ends every subscription and the stream. */
  close(): void {
    this.#topics.clear();
    this.#changed();
  }

  /** The set of topics changed: open, post or close. */
  #changed(): void {
    if (this.#topics.size === 0) {
      this.#abort?.abort();
      this.#settle();
      return;
    }
    if (!this.#running) {
      this.#running = true;
      void this.#run();
      return;
    }
    if (this.#clientId !== null) this.#post();
  }

  /** Posts the topics the stream is to have, one post after the other. */
  #post(): void {
    this.#posting = this.#posting.then(async () => {
      const clientId = this.#clientId;
      const topics = [...this.#topics.keys()];
      if (clientId === null || same(topics, this.#held)) return;
      try {
        await this.#transport.request('realtime', '/api/realtime', { clientId, topics });
        this.#held = topics;
        this.#settle();
      } catch (err) {
        // Refused: the stream keeps what it had; the topics it does not have are dropped and told.
        const error = asError(err);
        for (const topic of topics.filter((t) => !this.#held.includes(t))) {
          for (const subscriber of this.#topics.get(topic) ?? []) subscriber.onError?.(error);
          this.#topics.delete(topic);
        }
        this.#settle();
      }
    });
  }

  async #run(): Promise<void> {
    let delay = this.#retryMs;
    while (this.#topics.size > 0) {
      try {
        if (await this.#stream()) delay = this.#retryMs;
      } catch (err) {
        const error = asError(err);
        // A refusal that trying again cannot mend (a topic not allowed, not signed in): tell and stop.
        if (error.status >= 400 && error.status < 500 && error.status !== 429 && error.status !== 408) {
          this.#failAll(error);
          break;
        }
      }
      if (this.#topics.size === 0) break;
      await sleep(delay + Math.random() * 250);
      delay = Math.min(delay * 2, MAX_DELAY);
    }
    this.#running = false;
    // Topics added after the loop decided to stop get a stream of their own.
    if (this.#topics.size > 0) this.#changed();
  }

  #failAll(error: RoostError): void {
    for (const set of this.#topics.values()) for (const subscriber of set) subscriber.onError?.(error);
    this.#topics.clear();
    this.#settle();
  }

  /** One stream, until it ends; true when it got as far as its `connect` event. */
  async #stream(): Promise<boolean> {
    const abort = new AbortController();
    this.#abort = abort;
    const topics = [...this.#topics.keys()];
    const query = topics.map((t) => `topic=${encodeURIComponent(t)}`).join('&');
    const deadline = new Deadline(0, abort.signal);
    let connected = false;
    try {
      const response = await this.#transport.send(
        'realtime',
        `/api/realtime?${query}`,
        {
          method: 'GET',
          headers: {
            accept: 'text/event-stream',
            ...(this.#lastEventId ? { 'last-event-id': this.#lastEventId } : {}),
          },
        },
        deadline,
      );
      this.#held = topics;
      const parser = createParser({
        onEvent: (message) => {
          if (message.event === 'connect') connected = true;
          this.#receive(message);
        },
        onRetry: (ms) => {
          this.#retryMs = Math.max(500, ms);
        },
      });
      const body = response.body;
      if (!body) return false;
      const reader = body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (err) {
      if (abort.signal.aborted) return connected;
      throw err;
    } finally {
      deadline.clear();
      this.#connected = false;
      this.#clientId = null;
      if (this.#abort === abort) this.#abort = null;
    }
    return connected;
  }

  #receive(message: EventSourceMessage): void {
    if (message.id) this.#lastEventId = message.id;
    const data = parseData(message.data);
    if (message.event === 'connect') {
      this.#clientId = typeof data.clientId === 'string' ? data.clientId : null;
      this.#connected = true;
      // Topics may have changed while the stream was opening.
      this.#post();
      this.#settle();
      return;
    }
    if (message.event === 'close') return;
    const eventId = message.id ?? '';
    if (message.event === 'reload') {
      for (const [topic, set] of this.#topics)
        for (const s of set) call(s, { event: 'reload', reason: String(data.reason ?? ''), topic, eventId });
      return;
    }
    const topic = message.event ?? '';
    for (const s of this.#topics.get(topic) ?? []) call(s, { ...data, topic, eventId } as LiveEvent);
  }
}

/** One subscriber's handler; one that throws is reported and does not keep the others from their event. */
function call(subscriber: Subscriber, event: LiveEvent): void {
  try {
    subscriber.handler(event);
  } catch (err) {
    const report = (globalThis as { reportError?: (err: unknown) => void }).reportError;
    if (report) report(err);
    else console.error(err);
  }
}

function parseData(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

const asError = (err: unknown) =>
  isRoostError(err) ? err : new RoostError(String((err as Error)?.message ?? err), { code: 'error', cause: err });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
