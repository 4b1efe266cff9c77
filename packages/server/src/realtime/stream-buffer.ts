/**
 * What waits to be written to one subscriber's stream (issue 21: "a slow consumer is dropped
 * with a reason after a bounded buffer instead of growing memory"). Frames queue while the
 * socket is busy; past `maxBytes` the buffer refuses, and the stream is to be closed with the
 * reason, so one slow reader never holds the memory of a process.
 */
/** A frame as written: text, or the bytes one event's frame was encoded to once for every stream. */
export type Frame = string | Buffer;

export class StreamBuffer {
  readonly #frames: Frame[] = [];
  #bytes = 0;
  #overflowed = false;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Queues a frame; false (and from then on always false) once the bound would be passed. */
  push(frame: Frame): boolean {
    if (this.#overflowed) return false;
    const size = Buffer.byteLength(frame);
    if (this.#bytes + size > this.#maxBytes) {
      this.#overflowed = true;
      this.#frames.length = 0;
      this.#bytes = 0;
      return false;
    }
    this.#frames.push(frame);
    this.#bytes += size;
    return true;
  }

  /** Everything queued, in order, and empties the buffer (the writer drained). */
  take(): Buffer {
    const out = Buffer.concat(this.#frames.map((f) => (typeof f === 'string' ? Buffer.from(f) : f)));
    this.#frames.length = 0;
    this.#bytes = 0;
    return out;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** True once a push was refused: the subscriber is too slow and its stream is to be closed. */
  get overflowed(): boolean {
    return this.#overflowed;
  }
}
