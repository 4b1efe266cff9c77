/**
 * What changed, told after the change is committed: one typed event per change, on one bus per
 * process. Other processes on the same PostgreSQL database get the same events through the
 * change feed (storage/change-feed.ts); on SQLite one process owns the database. Live updates
 * and webhooks subscribe here; so may a program that embeds Roost (docs/embedding.md).
 */

import type { CacheFeed, FeedChange } from './cache.js';

/**
 * Every event by its kind: an open map each service kind fills from its own folder by declaration
 * merging (datastore/item-events.ts, filestore/file-events.ts, users/account-events.ts; a kind of
 * an embedding program from wherever it lives), so that this file names none of them:
 *
 *   declare module '../core/events.js' { interface RoostEvents { 'counter.incremented': {...} } }
 *
 * Each entry's `kind` is its key. The kinds are also listed at run time, by the kind's
 * descriptor (core/service-kind.ts `events`), for the webhooks' offer and the topics.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, as above
export interface RoostEvents {}

export type EventKind = keyof RoostEvents;
/** The event of one kind, or of each of a union of kinds (a union narrowed by `kind`). */
type EventOf<K extends EventKind> = K extends EventKind ? RoostEvents[K] : never;
export type ChangeEvent = EventOf<EventKind>;

/**
 * What caused a change: the request it served (`requestId`, http/request-id.ts). A caller's
 * `Principal` (core/permissions.ts) is one, so an operation hands its caller to `emit`.
 */
export interface Cause {
  readonly requestId?: string | undefined;
}

/**
 * An event as listeners get it: when it was told, whether by this process, and the id of the
 * request that caused it, if one did (the webhooks send it on, realtime/webhook-delivery.ts).
 */
export type Told<E extends ChangeEvent = ChangeEvent> = E & { at: number; local: boolean; requestId?: string };
/** A told event of one kind, or of each of a union of kinds. */
export type ToldOf<K extends EventKind> = Extract<Told, { kind: K }>;

export type EventListener = (event: Told) => void;

/**
 * Whether an event is of one of `kinds`, as a type guard: a family of kinds is told apart by
 * its list, never by a prefix of the kind's name.
 *
 * @example
 * const isItem = kindIn(ITEM_EVENTS);
 * if (isItem(event)) console.log(event.store, event.key);
 */
export function kindIn<K extends EventKind>(kinds: readonly K[]): (event: Told) => event is ToldOf<K> {
  const set: ReadonlySet<EventKind> = new Set<EventKind>(kinds);
  return (event): event is ToldOf<K> => set.has(event.kind);
}

export interface EventBus {
  /**
   * Tell every listener here and in the other processes. Call it after the change is committed,
   * with its cause (the caller's principal carries its request's id).
   */
  emit(event: ChangeEvent, cause?: Cause): void;
  /**
   * Listen to the events of one kind or of a list of kinds, each handed as its type, of this
   * process and of the others; the function returned stops it.
   *
   * @example
   * bus.on('item.created', (event) => console.log(event.store, event.key));
   */
  on<K extends EventKind>(kinds: K | readonly K[], listener: (event: ToldOf<K>) => void): () => void;
  /** Listen to every event (the hub, an embedding program's log); the function returned stops it. */
  onAny(listener: EventListener): () => void;
  /**
   * Called when events of other processes may have been lost (the transport's connection was
   * down a while); the function returned stops it.
   */
  onGap(listener: () => void): () => void;
  /**
   * What caches forget (core/cache.ts takes it as its feed), told to the other processes on the
   * events' own channel: in one message with the events of the same turn, in the order told, so
   * that a process forgets what a change made stale before it hears of the change's event. Its
   * `publish` resolves once the entry is queued. Null without other processes (SQLite).
   */
  readonly feed: CacheFeed | null;
  /** Resolves once everything told is on its way (before the transport closes). */
  flush(): Promise<void>;
}

/** How messages reach the other processes (storage/change-feed.ts and storage/redis-events.ts have this shape). */
export interface EventTransport {
  /** False while messages may be missed. */
  readonly live: boolean;
  publish(topic: string, key: string): Promise<void>;
  subscribe(listener: (change: FeedChange) => void): void;
}

/** One entry of a message between processes: an event, or what a cache forgets (`forget`: its topic). */
type Entry = (ChangeEvent & { at: number; requestId?: string }) | { forget: string; key: string };

const TOPIC = 'events';
/** NOTIFY carries at most 8000 bytes; a turn's events go in as few messages as fit. */
const MESSAGE_BYTES = 7000;

/**
 * The bus. A listener that throws is reported to `onError` and does not stop the others or the
 * write that emitted. Events leave for the other processes in the order they were told, those
 * told while a message is on its way together in the next (one NOTIFY for many writes under
 * load). The transport never rejects (storage/change-feed.ts logs its failures).
 */
export function createEventBus(options: {
  now: () => number;
  transport?: EventTransport | null;
  onError?: (err: unknown) => void;
}): EventBus {
  // Each listener with the kinds it wants (null: all). A kind nobody wants here costs nothing.
  const listeners = new Map<EventListener, ReadonlySet<string> | null>();
  const wanted = new Map<string, number>();
  let listeningToAll = 0;
  const deliver = (event: Told) => {
    for (const [listener, kinds] of listeners) {
      if (kinds !== null && !kinds.has(event.kind)) continue;
      try {
        listener(event);
      } catch (err) {
        options.onError?.(err);
      }
    }
  };
  const gapListeners = new Set<() => void>();
  const feedListeners = new Set<(change: FeedChange) => void>();
  const { transport } = options;
  transport?.subscribe((change) => {
    if (change === null) {
      for (const listener of feedListeners) listener(null);
      for (const listener of gapListeners) listener();
      return;
    }
    if (change.topic !== TOPIC) return;
    try {
      // Written by `send` below from `Entry`s: the one place the bus trusts another process's message.
      for (const entry of JSON.parse(change.key) as Entry[]) {
        if ('forget' in entry) for (const listener of feedListeners) listener({ topic: entry.forget, key: entry.key });
        else deliver({ ...entry, local: false });
      }
    } catch (err) {
      options.onError?.(err);
    }
  });

  // One message at a time, each sent once the one before it is: NOTIFYs of pooled connections
  // would otherwise commit, and arrive, in any order. What is told meanwhile leaves together,
  // and so does what one turn of the event loop told (a write's invalidations and its event).
  const outgoing: string[] = [];
  let sending: Promise<void> | null = null;
  let scheduled = false;
  async function send(): Promise<void> {
    while (outgoing.length > 0) {
      let bytes = 2;
      let count = 0;
      for (const text of outgoing) {
        const size = Buffer.byteLength(text) + 1;
        if (count > 0 && bytes + size > MESSAGE_BYTES) break;
        bytes += size;
        count++;
      }
      const message = outgoing.splice(0, count);
      await transport?.publish(TOPIC, `[${message.join(',')}]`);
    }
  }
  function queue(entry: Entry): void {
    outgoing.push(JSON.stringify(entry));
    schedule();
  }
  // After this turn's I/O: the writes that finish together leave in one message.
  function schedule(): void {
    if (sending || scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      sending = send()
        .catch((err: unknown) => options.onError?.(err))
        .finally(() => {
          sending = null;
          // Told between the last message and now.
          if (outgoing.length > 0) schedule();
        });
    });
  }

  const feed: CacheFeed | null = transport
    ? {
        get live() {
          return transport.live;
        },
        // Resolves once queued, not sent: the write then tells its event in the same turn, and
        // both leave in one message (NOTIFY reaches the others after its commit either way).
        publish: async (topic, key) => queue({ forget: topic, key }),
        subscribe(listener) {
          feedListeners.add(listener);
        },
      }
    : null;

  function listen(listener: EventListener, set: ReadonlySet<string> | null): () => void {
    listeners.set(listener, set);
    if (set === null) listeningToAll++;
    else for (const kind of set) wanted.set(kind, (wanted.get(kind) ?? 0) + 1);
    return () => forget(listener);
  }

  function forget(listener: EventListener): void {
    if (!listeners.has(listener)) return;
    const set = listeners.get(listener);
    listeners.delete(listener);
    if (!set) listeningToAll--;
    else
      for (const kind of set) {
        const left = (wanted.get(kind) ?? 1) - 1;
        if (left > 0) wanted.set(kind, left);
        else wanted.delete(kind);
      }
  }

  return {
    emit(event, cause) {
      // Nobody to tell (SQLite, no listener for the kind) costs nothing on the write's path.
      const here = listeningToAll > 0 || wanted.has(event.kind);
      if (!here && !transport) return;
      const at = options.now();
      const requestId = cause?.requestId;
      const told = requestId === undefined ? { ...event, at } : { ...event, at, requestId };
      if (here) deliver({ ...told, local: true });
      if (transport) queue(told);
    },
    on<K extends EventKind>(kinds: K | readonly K[], listener: (event: ToldOf<K>) => void) {
      // The bus hands a listener only the kinds it registered with, so each is of its type.
      const only = (event: Told) => {
        if (isWanted(event)) listener(event);
      };
      const list: readonly K[] = typeof kinds === 'string' ? [kinds] : kinds;
      const isWanted = kindIn(list);
      return listen(only, new Set<string>(list));
    },
    onAny: (listener) => listen(listener, null),
    onGap(listener) {
      gapListeners.add(listener);
      return () => gapListeners.delete(listener);
    },
    feed,
    async flush() {
      while (scheduled || sending) await (sending ?? new Promise((resolve) => setImmediate(resolve)));
    },
  };
}
