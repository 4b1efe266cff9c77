import { realtimeErrors } from './realtime-errors.js';
import type { Stream } from './stream.js';

/** The limits of open streams (config `realtime`, docs/configuration.md). */
interface Limits {
  maxStreamsPerUser: number;
  maxStreamsPerAddress: number;
}

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

/**
 * The open streams of a process (realtime/hub.ts), filed three ways: by the places of their
 * topics (core/event-family.ts: an event reaches only the streams filed where it is), by user
 * (their sessions are checked again on the account's events) and by address (for the limits).
 */
export class StreamRegistry {
  readonly #streams = new Map<string, Stream>();
  readonly #byPlace = new Map<string, Set<Stream>>();
  readonly #byUser = new Map<string, Set<Stream>>();
  readonly #byAddress = new Map<string, number>();
  /** Counts of the streams gone, for `stats` (those open are counted when asked). */
  #framesOfClosed = 0;
  #dropped = 0;

  constructor(readonly limits: Limits) {}

  get size(): number {
    return this.#streams.size;
  }

  values(): IterableIterator<Stream> {
    return this.#streams.values();
  }

  get(id: string): Stream | undefined {
    return this.#streams.get(id);
  }

  /** The streams filed at a place, if any. */
  at(place: string): ReadonlySet<Stream> | undefined {
    return this.#byPlace.get(place);
  }

  /** The open streams of a user, if any. */
  ofUser(userId: string): ReadonlySet<Stream> | undefined {
    return this.#byUser.get(userId);
  }

  add(stream: Stream): void {
    this.#streams.set(stream.id, stream);
    this.#byAddress.set(stream.address, (this.#byAddress.get(stream.address) ?? 0) + 1);
    if (stream.principal.userId !== null) addTo(this.#byUser, stream.principal.userId, stream);
    this.#file(stream, true);
  }

  remove(stream: Stream): void {
    this.#framesOfClosed += stream.framesSent;
    if (stream.endedBy === 'too_slow') this.#dropped++;
    this.#streams.delete(stream.id);
    this.#file(stream, false);
    if (stream.principal.userId !== null) removeFrom(this.#byUser, stream.principal.userId, stream);
    const left = (this.#byAddress.get(stream.address) ?? 1) - 1;
    if (left > 0) this.#byAddress.set(stream.address, left);
    else this.#byAddress.delete(stream.address);
  }

  /** Gives a stream new topics, filed where they are. */
  retopic(stream: Stream, topics: Stream['topics']): void {
    this.#file(stream, false);
    stream.topics = topics;
    this.#file(stream, true);
  }

  /** Files an anonymous stream that took a subscriber's principal under its user. */
  adopted(stream: Stream, userId: string): void {
    addTo(this.#byUser, userId, stream);
  }

  /** Refuses one more stream of an address or a user past its limit. */
  assertRoom(address: string, userId: string | null): void {
    if ((this.#byAddress.get(address) ?? 0) >= this.limits.maxStreamsPerAddress)
      throw realtimeErrors.too_many_streams({
        message: `One address may hold at most ${this.limits.maxStreamsPerAddress} open streams.`,
      });
    this.assertUserRoom(userId);
  }

  assertUserRoom(userId: string | null): void {
    if (userId !== null && (this.#byUser.get(userId)?.size ?? 0) >= this.limits.maxStreamsPerUser)
      throw realtimeErrors.too_many_streams({
        message: `A user may hold at most ${this.limits.maxStreamsPerUser} open streams.`,
      });
  }

  /** Frames written since start, and streams dropped for falling behind (/metrics, http/metrics.ts). */
  counts(): { frames: number; dropped: number } {
    let frames = this.#framesOfClosed;
    for (const stream of this.#streams.values()) frames += stream.framesSent;
    return { frames, dropped: this.#dropped };
  }

  #file(stream: Stream, add: boolean): void {
    for (const topic of stream.topics.values()) {
      if (add) addTo(this.#byPlace, topic.place, stream);
      else removeFrom(this.#byPlace, topic.place, stream);
    }
  }
}
