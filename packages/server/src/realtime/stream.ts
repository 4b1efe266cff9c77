import { commonErrors } from '../core/errors.js';
import type { Principal } from '../core/permissions.js';
import { StreamBuffer, type Frame } from './stream-buffer.js';
import type { Topic } from '../core/event-family.js';

/**
 * Where a stream's frames go: the transport's socket (http/routes/realtime-routes.ts). `write`
 * answers false when the socket's own buffer is full; `onDrain` listeners run once it has room,
 * `onGone` ones when the client went away. `end` finishes the response after what was written;
 * `destroy` drops the connection with whatever is still queued.
 */
export interface StreamSink {
  write(frame: Frame): boolean;
  onDrain(listener: () => void): void;
  onGone(listener: () => void): void;
  end(): void;
  destroy(): void;
}

/** Why the server ended a stream: the `close` event's code (docs/realtime.md). */
export type CloseReason = 'too_slow' | 'signed_out' | 'shutting_down';

/**
 * One subscriber's stream: who it is, what it listens to, and its frames on their way. While
 * the socket is full, frames wait in a bounded buffer; past it the connection is dropped without
 * a `close` frame, its reason kept as `too_slow` for /metrics (issue 21: a slow consumer never
 * holds a process's memory).
 */
export class Stream {
  readonly id: string;
  readonly address: string;
  principal: Principal;
  /** The token the stream signed in with (cookie, header or a subscription post): re-checked on account events. */
  token: string | null;
  /** The subscriptions, by their text (the SSE event name their events are delivered as). */
  topics = new Map<string, Topic>();
  /** Where a resuming client left off (`Last-Event-ID`), until its subscriptions are known. */
  resumeFrom: string | null;
  /** When the token was last checked (ms): streams are re-checked now and then, see hub.ts. */
  checkedAt: number;
  /** When a frame was last sent (ms): a stream that was quiet for a heartbeat's time gets one. */
  sentAt: number;
  readonly #now: () => number;
  /** Frames of live events held back while a replay is read (hub.ts `#replay`). */
  held: Array<{ id: number; frame: Frame }> | null = null;
  #closed = false;
  /** Why the stream ended, once it has (`gone`: the client went away). */
  endedBy: CloseReason | 'gone' | null = null;
  /** Frames given to the socket (for /metrics). */
  framesSent = 0;
  #waiting = false;
  readonly #buffer: StreamBuffer;
  readonly #sink: StreamSink;
  readonly #onClose: (stream: Stream) => void;

  constructor(options: {
    id: string;
    address: string;
    principal: Principal;
    token: string | null;
    resumeFrom: string | null;
    now: () => number;
    bufferBytes: number;
    sink: StreamSink;
    onClose: (stream: Stream) => void;
  }) {
    this.id = options.id;
    this.address = options.address;
    this.principal = options.principal;
    this.token = options.token;
    this.resumeFrom = options.resumeFrom;
    this.checkedAt = options.now();
    this.sentAt = options.now();
    this.#now = options.now;
    this.#buffer = new StreamBuffer(options.bufferBytes);
    this.#sink = options.sink;
    this.#onClose = options.onClose;
    this.#sink.onDrain(() => this.#drained());
    this.#sink.onGone(() => this.close());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes waiting for the socket (for the benchmark's memory figures and /metrics). */
  get waitingBytes(): number {
    return this.#buffer.bytes;
  }

  /** Sends a frame now, or queues it while the socket is full; a full queue closes the stream. */
  send(frame: Frame): void {
    if (this.#closed) return;
    this.sentAt = this.#now();
    this.framesSent++;
    if (!this.#waiting) {
      this.#waiting = !this.#sink.write(frame);
      return;
    }
    if (!this.#buffer.push(frame)) this.close('too_slow', 'The stream fell too far behind and was closed.');
  }

  /**
   * Ends the stream; with a reason, a last `close` event says why. A stream too slow to read is
   * dropped at once instead: what waits for it is what has to go, and the client comes back
   * with `Last-Event-ID` to get it again from the replay log.
   */
  close(reason?: CloseReason, message?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.endedBy = reason ?? 'gone';
    // Without a reason the client went away: nothing more goes out, and a socket kept for
    // another request would hold the server's stop for its keep-alive time.
    if (reason === 'too_slow' || reason === undefined) this.#sink.destroy();
    else {
      if (reason) this.#sink.write(`event: close\ndata: ${JSON.stringify({ code: reason, message })}\n\n`);
      this.#sink.end();
    }
    this.#onClose(this);
  }

  #drained(): void {
    if (this.#closed) return;
    const queued = this.#buffer.take();
    this.#waiting = queued.length > 0 && !this.#sink.write(queued);
  }
}

/**
 * Only a stream's own user steers a signed-in stream (its token or its cookie, any session):
 * an anonymous post would otherwise change its topics, checked with the owner's rights.
 */
export function assertStreamOwner(stream: Stream, userId: string | null): void {
  const owner = stream.principal.userId;
  if (owner === null || owner === userId) return;
  if (userId === null) throw commonErrors.not_signed_in({ message: "Sign in as the stream's user to change it." });
  throw commonErrors.not_allowed({ message: 'This stream belongs to another user.' });
}
