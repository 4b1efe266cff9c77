import { randomBytes } from 'node:crypto';
import type { EventFamily, Listener, Subject, Topic } from '../core/event-family.js';
import type { EventBus, Told } from '../core/events.js';
import type { Principal } from '../core/permissions.js';
import { isAccountEvent, type User } from '../users/index.js';
import { isKeyRevoked } from '../keys/index.js';
import { controlFrame, Frames } from './frames.js';
import { startHeartbeats } from './heartbeats.js';
import { realtimeErrors } from './realtime-errors.js';
import { ReplayLog } from './replay-log.js';
import { StreamRegistry } from './stream-registry.js';
import { assertStreamOwner, Stream, type StreamSink } from './stream.js';
import { admitTopics } from './topics.js';
import type { RealtimeSettings } from './realtime-settings.js';

/** A caller as the transport found it: who, and the token it came with (null: none). */
export interface StreamCaller {
  principal: Principal;
  token: string | null;
}

export interface RealtimeHubDeps {
  events: EventBus;
  /** What the services tell, with their topics (core/event-family.ts; the kinds' descriptors list them). */
  families: readonly EventFamily[];
  /** The user service's `authenticate`: a token's caller now, or null once it is revoked. */
  authenticate(token: string): Promise<{ principal: Principal; user: User | null } | null>;
  settings: RealtimeSettings;
  now(): number;
  onError(err: unknown): void;
}

/** What a stream gets of an event: the same data under each of its topics, or per topic (`Subject.viewUnder`). */
type View = string | ((topic: Topic) => string | null);
const viewOf = (subject: Subject, listener: Listener): View | null =>
  subject.viewUnder ? (topic) => subject.viewUnder?.(listener, topic) ?? null : subject.viewFor(listener);

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
  const { settings, families } = deps;
  /** Changes with each start: an id from before a restart is not mistaken for one of now. */
  const epoch = randomBytes(4).toString('hex');
  const log = new ReplayLog({ capacity: settings.replayEvents, maxAgeMs: settings.replayMs, now: deps.now });
  const streams = new StreamRegistry(settings);
  /** What each stream has considered: a stream gets only events with a higher id. */
  const seen = new WeakMap<Stream, number>();
  /** Events are read concurrently and delivered in their order. */
  let tail: Promise<void> = Promise.resolve();

  const eventId = (n: number) => `${epoch}-${n}`;
  const admit = (texts: readonly string[], principal: Principal) =>
    admitTopics(texts, principal, families, settings.maxTopicsPerStream);

  function forget(stream: Stream): void {
    streams.remove(stream);
    lingerThenStop();
  }

  // ---- delivery ----

  /**
   * Sends the frames of one event to a stream: one per topic of the stream it matches. A live
   * event waits while the stream replays (`held`); the replay itself sends at once.
   */
  function deliver(stream: Stream, frames: Frames, event: Told, view: View, replaying = false): void {
    for (const [text, topic] of stream.topics) {
      if (!topic.matches(event)) continue;
      const data = typeof view === 'string' ? view : view(topic);
      if (data === null) continue;
      const frame = frames.of(text, data);
      if (stream.held && !replaying) stream.held.push({ id: frames.id, frame });
      else stream.send(frame);
    }
  }

  /** Sends an event to the streams filed at its place, each getting what its caller may see of the subject. */
  function dispatch(id: number, event: Told, place: string, subject: Subject, ended: ReadonlySet<Stream>): void {
    const set = streams.at(place);
    if (!set) return;
    const frames = new Frames(id, eventId(id));
    // Streams of one session share its principal (users/sessions.ts keeps one per session row):
    // what it may see is decided once.
    const decided = new Map<Principal, View | null>();
    for (const stream of set) {
      if ((seen.get(stream) ?? 0) >= id) continue;
      seen.set(stream, id);
      const sessionEnded = ended.has(stream);
      let data = sessionEnded ? undefined : decided.get(stream.principal);
      if (data === undefined) {
        data = viewOf(subject, { principal: stream.principal, sessionEnded });
        if (!sessionEnded) decided.set(stream.principal, data);
      }
      if (data !== null) deliver(stream, frames, event, data);
    }
  }

  /**
   * Checks the token of each stream of the account again: it follows the new groups, or is to
   * be closed when the token no longer signs in (signed out, disabled, removed, password
   * changed): those are returned, and hear of the event first.
   */
  async function recheckAccount(userId: string): Promise<Set<Stream>> {
    return recheckAll(streams.ofUser(userId) ?? []);
  }

  /**
   * Checks again each stream of a revoked key (key-events.ts): refused now, each ends at once
   * rather than at its next periodic check. Revocations are rare: every stream is looked at.
   */
  async function recheckKey(keyId: string): Promise<Set<Stream>> {
    return recheckAll([...streams.values()].filter((stream) => stream.principal.key?.id === keyId));
  }

  async function recheckAll(set: Iterable<Stream>): Promise<Set<Stream>> {
    const ended = new Set<Stream>();
    // The session cache (or the keys', keys/key-service.ts) has forgotten the account (the key)
    // already: in the process that made the change before the event was told
    // (users/session-cache.ts), in the others on the message before the event's, on the one
    // channel that carries both (storage/redis-events.ts, or the change feed). The turn's other
    // listeners run first all the same.
    await new Promise((resolve) => setImmediate(resolve));
    for (const stream of [...set]) if (!stream.closed && !(await recheck(stream))) ended.add(stream);
    return ended;
  }

  /** The number of each stream's latest recheck: an older one, answering later, changes nothing. */
  const rechecks = new WeakMap<Stream, number>();

  /**
   * Whether the stream's token still signs in as its user, its principal updated. A periodic
   * recheck that read before an account event and answers after that event's recheck would
   * otherwise put the old groups back (until the next one, a minute).
   */
  async function recheck(stream: Stream): Promise<boolean> {
    stream.checkedAt = deps.now();
    const number = (rechecks.get(stream) ?? 0) + 1;
    rechecks.set(stream, number);
    // A key that is refused now (revoked, expired: core/api-keys.ts) ends its stream as a
    // signed-out token does; a key stays the same key, a session the same account.
    const caller = stream.token === null ? null : await deps.authenticate(stream.token).catch(() => null);
    const key = stream.principal.key;
    const same = key
      ? caller?.principal.key?.id === key.id
      : caller?.user != null && caller.principal.userId === stream.principal.userId;
    if (!caller || !same) return false;
    if (rechecks.get(stream) === number) stream.principal = caller.principal;
    return true;
  }

  const onEvent = (event: Told) => {
    const id = log.append(event);
    const account = isAccountEvent(event) && streams.ofUser(event.userId) ? event.userId : null;
    const revokedKey = isKeyRevoked(event) ? event.keyId : null;
    // Read now, concurrently with the events before it; delivered after them.
    const reads: Array<{ place: string; subject: Promise<Subject | null> }> = [];
    for (const family of families) {
      const place = family.placeOf(event);
      if (place !== null && streams.at(place)) reads.push({ place, subject: family.read(event) });
    }
    if (account === null && revokedKey === null && reads.length === 0) return;
    tail = tail
      .then(async () => {
        const ended =
          account !== null
            ? await recheckAccount(account)
            : revokedKey !== null
              ? await recheckKey(revokedKey)
              : new Set<Stream>();
        for (const { place, subject } of reads) {
          const read = await subject;
          if (read) dispatch(id, event, place, read, ended);
        }
        for (const stream of ended) stream.close('signed_out', 'The session of this stream ended.');
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
    stopListening = deps.events.onAny(onEvent);
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
        if (data !== null) deliver(stream, new Frames(id, eventId(id)), event, data, true);
      }
    } finally {
      const held = stream.held;
      stream.held = null;
      for (const { id, frame } of held) if (id > upTo) stream.send(frame);
    }
  }

  async function replayData(stream: Stream, event: Told): Promise<View | null> {
    if (![...stream.topics.values()].some((topic) => topic.matches(event))) return null;
    const own = isAccountEvent(event) && event.userId === stream.principal.userId;
    const sessionEnded = own && !(await recheck(stream));
    for (const family of families) {
      if (family.placeOf(event) === null) continue;
      const subject = await family.read(event);
      return subject ? viewOf(subject, { principal: stream.principal, sessionEnded }) : null;
    }
    return null;
  }

  /** A client that came back with `Last-Event-ID` gets its replay once its stream has topics. */
  async function resumeIfAsked(stream: Stream): Promise<void> {
    const from = stream.resumeFrom;
    if (from === null || stream.topics.size === 0) return;
    stream.resumeFrom = null;
    await replay(stream, from);
  }

  const stopHeartbeats = startHeartbeats({
    streams,
    heartbeatMs: settings.heartbeatMs,
    recheckMs: settings.recheckMs,
    now: deps.now,
    recheck,
    onError: deps.onError,
  });

  // ---- the hub ----

  return {
    stats() {
      return { streams: streams.size, ...streams.counts() };
    },

    async open(options) {
      const { principal, token } = options.caller;
      streams.assertRoom(options.address, principal.userId);
      const topics = await admit(options.topics, principal);
      // Again: other streams may have opened while the topics' permissions were read.
      streams.assertRoom(options.address, principal.userId);
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
      streams.add(stream);
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
      assertStreamOwner(stream, incoming);
      // A stream opened without a token (token mode in a browser) takes the subscriber's.
      const adopting = stream.principal.userId === null && incoming !== null;
      if (adopting) streams.assertUserRoom(incoming);
      const topics = await admit(texts, adopting ? caller.principal : stream.principal);
      if (stream.closed) throw realtimeErrors.unknown_stream({ fields: [['clientId', 'not found']] });
      // Another post may have given the stream its user meanwhile.
      assertStreamOwner(stream, incoming);
      if (adopting && stream.principal.userId === null) {
        streams.assertUserRoom(incoming);
        stream.principal = caller.principal;
        stream.token = caller.token;
        stream.checkedAt = deps.now();
        streams.adopted(stream, incoming);
      }
      streams.retopic(stream, topics);
      await resumeIfAsked(stream);
      return [...topics.keys()];
    },

    close() {
      stopHeartbeats();
      if (lingering) clearTimeout(lingering);
      stopListening?.();
      stopListening = null;
      stopGaps();
      for (const stream of [...streams.values()]) stream.close('shutting_down', 'The server is stopping.');
    },
  };
}
