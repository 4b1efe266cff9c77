import type { StreamRegistry } from './stream-registry.js';
import type { Stream } from './stream.js';

/**
 * Each stream's heartbeat and token check come when its own time is due, on a tick a fifth of
 * the heartbeat: streams opened together would otherwise all be written to (and their tokens
 * all looked up) in one turn, a pause every subscriber's events wait behind (bench/RESULTS.md,
 * "Live changes"). A stream that got an event lately needs no heartbeat. The function returned
 * stops them.
 */
export function startHeartbeats(deps: {
  streams: StreamRegistry;
  heartbeatMs: number;
  /** How often an open stream's token is checked again besides on its account's events. */
  recheckMs: number;
  now(): number;
  /** Checks a stream's token again: false when it no longer signs in (the stream is then closed). */
  recheck(stream: Stream): Promise<boolean>;
  onError(err: unknown): void;
}): () => void {
  const tickMs = Math.max(10, deps.heartbeatMs / 5);
  const timer = setInterval(() => {
    const now = deps.now();
    // Enough checks per tick to go round every stream within `recheckMs`, never a burst of all.
    let checks = Math.max(100, Math.ceil(deps.streams.size / Math.max(1, deps.recheckMs / tickMs)));
    for (const stream of deps.streams.values()) {
      if (now - stream.sentAt >= deps.heartbeatMs) stream.send(':\n\n');
      if (stream.token === null || now - stream.checkedAt < deps.recheckMs || checks === 0) continue;
      checks--;
      void deps
        .recheck(stream)
        .then((lasts) => {
          if (!lasts) stream.close('signed_out', 'The session of this stream ended.');
        })
        .catch(deps.onError);
    }
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
