import { randomBytes } from 'node:crypto';
import { commonErrors } from '../core/errors.js';
import type { AccountEvent, EventBus, FileEvent, ItemEvent, Told } from '../core/events.js';
import { grantsIn, grantsOf } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import type { DataStores } from '../datastore/index.js';
import type { FileStores } from '../filestore/index.js';
import type { User } from '../users/index.js';
import { realtimeErrors } from './realtime-errors.js';
import { ReplayLog } from './replay-log.js';
import { Stream, type StreamSink } from './stream.js';
import { matches, parseTopic, type Topic } from './topics.js';
import { subjectReader, type Resolved, type SubjectViews } from './subjects.js';

/** The limits and timings of live changes (config `realtime`, docs/configuration.md). */
interface RealtimeSettings {
  heartbeatMs: number;
  /** How often an open stream's token is checked again besides on its account's events. */
  recheckMs: number;
  maxStreamsPerUser: number;
  maxStreamsPerAddress: number;
  maxTopicsPerStream: number;
  bufferBytes: number;
  replayEvents: number;
  replayMs: number;
}

/** A caller as the transport found it: who, and the token it came with (null: none). */
export interface StreamCaller {
  principal: Principal;
  token: string | null;
}

export interface RealtimeHubDeps {
  events: EventBus;
  dataStores: DataStores;
  fileStores: FileStores;
  /** The user service's `authenticate`: a token's caller now, or null once it is revoked. */
  authenticate(token: string): Promise<{ principal: Principal; user: User | null } | null>;
  views: SubjectViews;
  settings: RealtimeSettings;
  now(): number;
  onError(err: unknown): void;
}

interface OpenOptions {
  address: string;
  caller: StreamCaller;
  /** `Last-Event-ID` of a client coming back: what it missed is replayed once it has subscriptions. */
  lastEventId: string | null;
  topics: readonly string[];
  /** Called once the request is accepted: the transport then starts the response. */
  connect(): StreamSink;
}

/** What /metrics shows of the hub (http/metrics.ts). */
export interface RealtimeStats {
  streams: number;
  /** Frames written since start, heartbeats and control frames included. */
  frames: number;
  /** Streams dropped for falling too far behind (`too_slow`). */
  dropped: number;
}

export interface RealtimeHub {
  stats(): RealtimeStats;
  /** Opens a stream: refuses bad topics and passed limits before `connect` is called. */
  open(options: OpenOptions): Promise<Stream>;
  /** Replaces a stream's subscriptions (PocketBase's pattern for token mode); the topics held after. */
  subscribe(clientId: string, caller: StreamCaller, topics: readonly string[]): Promise<string[]>;
  /** Ends every stream (`shutting_down`) and stops listening. */
  close(): void;
}

/** The permission a subscriber needs on an item or entry to hear of it: reading it. */
const READ = 'getItem';

const controlFrame = (name: string, data: object, id?: string) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Live changes (issue 21): the streams of this process, fed from the event bus (core/events.ts,
 * which brings the other processes' events too). Each event is read once (the item or entry as
 * it is now) and checked against every subscriber's grants in memory (core/grants.ts), never a
 * query per subscriber. Events get ids `<epoch>-<n>` in a bounded replay log, so a client that
 * comes back with `Last-Event-ID` gets what it missed exactly once, or `reload` when the log no
 * longer holds it (another process, a restart, too long away). Each stream receives only ids
 * above the newest it has considered (`seen`), which is what keeps a replay and the live
 * events from overlapping.
 */
export function createRealtimeHub(deps: RealtimeHubDeps): RealtimeHub {
  const { settings, views } = deps;
  const resolve = subjectReader(deps);
  /** Changes with each start: an id from before a restart is not mistaken for one of now. */
  const epoch = randomBytes(4).toString('hex');
  const log = new ReplayLog({ capacity: settings.replayEvents, maxAgeMs: settings.replayMs, now: deps.now });
  const streams = new Map<string, Stream>();
  /** Streams with a topic of a store, by `items/<store>` or `files/<store>`. */
  const byStore = new Map<string, Set<Stream>>();
  const byUser = new Map<string, Set<Stream>>();
  const byAddress = new Map<string, number>();
  /** What each stream has considered: a stream gets only events with a higher id. */
  const seen = new WeakMap<Stream, number>();
  /** Events are read concurrently and delivered in their order. */
  let tail: Promise<void> = Promise.resolve();

  const eventId = (n: number) => `${epoch}-${n}`;
  const storeKey = (topic: Topic) => (topic.kind === 'account' ? null : `${topic.kind}/${topic.store}`);

  function addTo<K>(map: Map<K, Set<Stream>>, key: K, stream: Stream): void {
    const set = map.get(key);
    if (set) set.add(stream);
    else map.set(key, new Set([stream]));
  }
  function removeFrom<K>(map: Map<K, Set<Stream>>, key: K, stream: Stream): void {
    const set = map.get(key);
    set?.delete(stream);
    if (set?.size === 0) map.delete(key);
  }

  function index(stream: Stream, add: boolean): void {
    for (const topic of stream.topics.values()) {
      const key = storeKey(topic);
      if (key === null) continue;
      if (add) addTo(byStore, key, stream);
      else removeFrom(byStore, key, stream);
    }
  }

  /** Counts of the streams gone, for `stats` (those open are counted when asked). */
  let framesOfClosed = 0;
  let dropped = 0;

  function forget(stream: Stream): void {
    framesOfClosed += stream.framesSent;
    if (stream.endedBy === 'too_slow') dropped++;
    streams.delete(stream.id);
    index(stream, false);
    if (stream.principal.userId !== null) removeFrom(byUser, stream.principal.userId, stream);
    const left = (byAddress.get(stream.address) ?? 1) - 1;
    if (left > 0) byAddress.set(stream.address, left);
    else byAddress.delete(stream.address);
    lingerThenStop();
  }

  /** The topics asked for, parsed, each one the principal may listen to; refuses the first that is not. */
  async function admit(texts: readonly string[], principal: Principal): Promise<Map<string, Topic>> {
    const unique = [...new Set(texts)];
    if (unique.length > settings.maxTopicsPerStream)
      throw realtimeErrors.too_many_subscriptions({
        message: `A stream takes at most ${settings.maxTopicsPerStream} subscriptions.`,
        fields: [['topics', 'too many']],
      });
    const topics = new Map(unique.map((text) => [text, parseTopic(text)]));
    for (const topic of topics.values()) {
      if (topic.kind === 'account') {
        if (principal.userId === null) throw commonErrors.not_signed_in();
        continue;
      }
      const store = topic.kind === 'items' ? deps.dataStores.get(topic.store) : deps.fileStores.get(topic.store);
      if (!store) throw realtimeErrors.unknown_store({ fields: [['topic', 'unknown_store']] });
      (await grantsOf(store.permissions, principal)).require(READ);
    }
    return topics;
  }

  /**
   * Only a stream's own user steers a signed-in stream (its token or its cookie, any session):
   * an anonymous post would otherwise change its topics, checked with the owner's rights.
   */
  function assertOwner(stream: Stream, userId: string | null): void {
    const owner = stream.principal.userId;
    if (owner === null || owner === userId) return;
    if (userId === null) throw commonErrors.not_signed_in({ message: "Sign in as the stream's user to change it." });
    throw commonErrors.not_allowed({ message: 'This stream belongs to another user.' });
  }

  function assertRoom(address: string, userId: string | null): void {
    if ((byAddress.get(address) ?? 0) >= settings.maxStreamsPerAddress)
      throw realtimeErrors.too_many_streams({
        message: `One address may hold at most ${settings.maxStreamsPerAddress} open streams.`,
      });
    assertUserRoom(userId);
  }

  function assertUserRoom(userId: string | null): void {
    if (userId !== null && (byUser.get(userId)?.size ?? 0) >= settings.maxStreamsPerUser)
      throw realtimeErrors.too_many_streams({
        message: `A user may hold at most ${settings.maxStreamsPerUser} open streams.`,
      });
  }

  // ---- delivery ----

  /** The data a subscriber gets of a resolved event: the subject if it may read it now, else less or nothing. */
  function dataFor(resolved: Resolved, principal: Principal): string | null {
    const grants = grantsIn(resolved.entries, principal);
    if (resolved.now && grants.covers(READ, resolved.now)) return resolved.now.data;
    if (resolved.before && grants.covers(READ, resolved.before)) return resolved.before.data;
    return null;
  }

  /**
   * The frames of one event, each encoded once for every stream that gets it: by its data (what
   * a subscriber may see of it), then by the topic it is named after.
   */
  class Frames {
    readonly #byData = new Map<string, Map<string, Buffer>>();
    constructor(readonly id: number) {}

    of(text: string, data: string): Buffer {
      let byTopic = this.#byData.get(data);
      if (!byTopic) {
        byTopic = new Map();
        this.#byData.set(data, byTopic);
      }
      let frame = byTopic.get(text);
      if (!frame) {
        frame = Buffer.from(`id: ${eventId(this.id)}\nevent: ${text}\ndata: ${data}\n\n`);
        byTopic.set(text, frame);
      }
      return frame;
    }
  }

  /**
   * Sends the frames of one event to a stream: one per topic of the stream it matches. A live
   * event waits while the stream replays (`held`); the replay itself sends at once.
   */
  function deliver(stream: Stream, frames: Frames, event: Told, data: string, replaying = false): void {
    for (const [text, topic] of stream.topics) {
      if (!matches(topic, event, stream.principal.userId)) continue;
      const frame = frames.of(text, data);
      if (stream.held && !replaying) stream.held.push({ id: frames.id, frame });
      else stream.send(frame);
    }
  }

  function dispatch(id: number, event: Told<ItemEvent | FileEvent>, resolved: Resolved): void {
    const set = byStore.get(`${event.kind.startsWith('item.') ? 'items' : 'files'}/${event.store}`);
    if (!set) return;
    const frames = new Frames(id);
    // Streams of one session share its principal (users/sessions.ts keeps one per session row):
    // what it may see is decided once.
    const decided = new Map<Principal, string | null>();
    for (const stream of set) {
      if ((seen.get(stream) ?? 0) >= id) continue;
      seen.set(stream, id);
      let data = decided.get(stream.principal);
      if (data === undefined) {
        data = dataFor(resolved, stream.principal);
        decided.set(stream.principal, data);
      }
      if (data !== null) deliver(stream, frames, event, data);
    }
  }

  /**
   * Checks the token of each stream of the account again: it follows the new groups, or is
   * closed when the token no longer signs in (signed out, disabled, removed, password changed).
   * Those subscribed to `account` hear of the event first.
   */
  async function accountChanged(id: number, event: Told<AccountEvent>): Promise<void> {
    const set = byUser.get(event.userId);
    if (!set) return;
    // The session cache has forgotten the account already: in the process that made the change
    // before the event was told (users/session-cache.ts), in the others on the message before
    // the event's, on the one channel that carries both (storage/redis-events.ts, or the change
    // feed). The turn's other listeners run first all the same.
    await new Promise((resolve) => setImmediate(resolve));
    for (const stream of [...set]) {
      if ((seen.get(stream) ?? 0) >= id) continue;
      seen.set(stream, id);
      const user = await recheck(stream);
      if (stream.closed) continue;
      const data = JSON.stringify(user ? { event: event.kind, user: views.user(user) } : { event: event.kind });
      deliver(stream, new Frames(id), event, data);
      if (!user) stream.close('signed_out', 'The session of this stream ended.');
    }
  }

  /** The number of each stream's latest recheck: an older one, answering later, changes nothing. */
  const rechecks = new WeakMap<Stream, number>();

  /**
   * The stream's user now, its principal updated; null (stream to close) when its token no
   * longer signs in. A periodic recheck that read before an account event and answers after
   * that event's recheck would otherwise put the old groups back (until the next one, a minute).
   */
  async function recheck(stream: Stream): Promise<User | null> {
    stream.checkedAt = deps.now();
    const number = (rechecks.get(stream) ?? 0) + 1;
    rechecks.set(stream, number);
    const caller = stream.token === null ? null : await deps.authenticate(stream.token);
    if (!caller?.user || caller.principal.userId !== stream.principal.userId) return null;
    if (rechecks.get(stream) === number) stream.principal = caller.principal;
    return caller.user;
  }

  const onEvent = (event: Told) => {
    const id = log.append(event);
    if (event.kind.startsWith('account.')) {
      const account = event as Told<AccountEvent>;
      if (!byUser.has(account.userId)) return;
      tail = tail.then(() => accountChanged(id, account)).catch(deps.onError);
      return;
    }
    const subject = event as Told<ItemEvent | FileEvent>;
    if (!byStore.has(`${subject.kind.startsWith('item.') ? 'items' : 'files'}/${subject.store}`)) return;
    // Read now, concurrently with the events before it; delivered after them.
    const resolving = resolve(subject);
    tail = tail
      .then(async () => {
        const resolved = await resolving;
        if (resolved) dispatch(id, subject, resolved);
      })
      .catch(deps.onError);
  };

  /**
   * The hub listens to the bus only while a stream is open, and for the replay window after the
   * last one closed (a client coming back may ask for that long): with no stream, writes keep
   * their cost. Keeping every event in the log costs a write about a tenth on SQLite (it is
   * kept past a young collection; bench/RESULTS.md, "Live changes"). When it listens again, what
   * came meanwhile is not in the log: nobody resumes across that (`gap`).
   */
  let stopListening: (() => void) | null = null;
  let lingering: ReturnType<typeof setTimeout> | null = null;
  function listen(): void {
    if (lingering) clearTimeout(lingering);
    lingering = null;
    if (stopListening) return;
    log.gap();
    stopListening = deps.events.on(onEvent);
  }
  function lingerThenStop(): void {
    if (streams.size > 0 || lingering || !stopListening) return;
    lingering = setTimeout(() => {
      lingering = null;
      if (streams.size > 0) return;
      stopListening?.();
      stopListening = null;
    }, settings.replayMs);
    lingering.unref();
  }

  // Events of other processes may have been lost: nobody resumes across that, and every open
  // stream is told to fetch what it shows again.
  const stopGaps = deps.events.onGap(() => {
    log.gap();
    const frame = controlFrame(
      'reload',
      { reason: 'Events from other processes may have been missed.' },
      eventId(log.last),
    );
    for (const stream of streams.values()) {
      seen.set(stream, log.last);
      stream.send(frame);
    }
  });

  // ---- resume ----

  /** Where `Last-Event-ID` says the client was: the number after it, or null when it is not of this log. */
  function positionOf(lastEventId: string): number | null {
    const [head, n] = lastEventId.split('-');
    const number = Number(n);
    return head === epoch && /^\d{1,15}$/.test(n ?? '') && Number.isSafeInteger(number) ? number : null;
  }

  /**
   * Sends what a returning client missed on its current subscriptions, oldest first, each read
   * as it is now; live events meanwhile wait (`held`) and follow. Past the log: `reload`.
   */
  async function replay(stream: Stream, lastEventId: string): Promise<void> {
    const position = positionOf(lastEventId);
    const missed = position === null ? 'reload' : log.since(position);
    const upTo = log.last;
    seen.set(stream, upTo);
    if (missed === 'reload') {
      stream.send(
        controlFrame('reload', { reason: 'The events since Last-Event-ID are no longer kept.' }, eventId(upTo)),
      );
      return;
    }
    stream.held = [];
    try {
      for (const { id, event } of missed) {
        if (stream.closed) return;
        const data = await replayData(stream, event);
        if (data !== null) deliver(stream, new Frames(id), event, data, true);
      }
    } finally {
      const held = stream.held;
      stream.held = null;
      for (const { id, frame } of held) if (id > upTo) stream.send(frame);
    }
  }

  async function replayData(stream: Stream, event: Told): Promise<string | null> {
    if (![...stream.topics.values()].some((topic) => matches(topic, event, stream.principal.userId))) return null;
    if (event.kind.startsWith('account.')) {
      const user = await recheck(stream);
      return JSON.stringify(user ? { event: event.kind, user: views.user(user) } : { event: event.kind });
    }
    const resolved = await resolve(event as Told<ItemEvent | FileEvent>);
    return resolved ? dataFor(resolved, stream.principal) : null;
  }

  /** A client that came back with `Last-Event-ID` gets its replay once its stream has topics. */
  async function resumeIfAsked(stream: Stream): Promise<void> {
    const from = stream.resumeFrom;
    if (from === null || stream.topics.size === 0) return;
    stream.resumeFrom = null;
    await replay(stream, from);
  }

  // ---- heartbeats ----

  // Each stream's heartbeat and token check come when its own time is due, on a tick a fifth of
  // the heartbeat: streams opened together would otherwise all be written to (and their tokens
  // all looked up) in one turn, a pause every subscriber's events wait behind (bench/RESULTS.md,
  // "Live changes"). A stream that got an event lately needs no heartbeat.
  const tickMs = Math.max(10, settings.heartbeatMs / 5);
  const heartbeat = setInterval(() => {
    const now = deps.now();
    // Enough checks per tick to go round every stream within `recheckMs`, never a burst of all.
    let checks = Math.max(100, Math.ceil(streams.size / Math.max(1, settings.recheckMs / tickMs)));
    for (const stream of streams.values()) {
      if (now - stream.sentAt >= settings.heartbeatMs) stream.send(':\n\n');
      if (stream.token === null || now - stream.checkedAt < settings.recheckMs || checks === 0) continue;
      checks--;
      void recheck(stream)
        .then((user) => {
          if (!user) stream.close('signed_out', 'The session of this stream ended.');
        })
        .catch(deps.onError);
    }
  }, tickMs);
  heartbeat.unref();

  // ---- the hub ----

  return {
    stats() {
      let frames = framesOfClosed;
      for (const stream of streams.values()) frames += stream.framesSent;
      return { streams: streams.size, frames, dropped };
    },

    async open(options) {
      const { principal, token } = options.caller;
      assertRoom(options.address, principal.userId);
      const topics = await admit(options.topics, principal);
      // Again: other streams may have opened while the topics' permissions were read.
      assertRoom(options.address, principal.userId);
      listen();
      const stream = new Stream({
        id: randomBytes(16).toString('base64url'),
        address: options.address,
        principal,
        token: principal.userId === null ? null : token,
        resumeFrom: options.lastEventId,
        now: deps.now,
        bufferBytes: settings.bufferBytes,
        sink: options.connect(),
        onClose: forget,
      });
      stream.topics = topics;
      streams.set(stream.id, stream);
      byAddress.set(stream.address, (byAddress.get(stream.address) ?? 0) + 1);
      if (principal.userId !== null) addTo(byUser, principal.userId, stream);
      index(stream, true);
      seen.set(stream, log.last);
      // The connect event carries the id to resume from, so even a client that got no event
      // yet comes back without a gap (`retry`: the browser's wait before reconnecting).
      stream.send(`retry: 2000\n${controlFrame('connect', { clientId: stream.id }, eventId(log.last))}`);
      await resumeIfAsked(stream);
      return stream;
    },

    async subscribe(clientId, caller, texts) {
      const stream = streams.get(clientId);
      if (!stream) throw realtimeErrors.unknown_stream({ fields: [['clientId', 'not found']] });
      const incoming = caller.principal.userId;
      assertOwner(stream, incoming);
      // A stream opened without a token (token mode in a browser) takes the subscriber's.
      const adopting = stream.principal.userId === null && incoming !== null;
      if (adopting) assertUserRoom(incoming);
      const topics = await admit(texts, adopting ? caller.principal : stream.principal);
      if (stream.closed) throw realtimeErrors.unknown_stream({ fields: [['clientId', 'not found']] });
      // Another post may have given the stream its user meanwhile.
      assertOwner(stream, incoming);
      if (adopting && stream.principal.userId === null) {
        assertUserRoom(incoming);
        stream.principal = caller.principal;
        stream.token = caller.token;
        stream.checkedAt = deps.now();
        addTo(byUser, incoming, stream);
      }
      index(stream, false);
      stream.topics = topics;
      index(stream, true);
      await resumeIfAsked(stream);
      return [...topics.keys()];
    },

    close() {
      clearInterval(heartbeat);
      if (lingering) clearTimeout(lingering);
      stopListening?.();
      stopListening = null;
      stopGaps();
      for (const stream of [...streams.values()]) stream.close('shutting_down', 'The server is stopping.');
    },
  };
}
