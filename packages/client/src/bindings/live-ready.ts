import type { Realtime } from '../realtime.js';

/** How long a view waits for its live stream before it loads anyway (a stream that cannot open retries for ever). */
const READY_WAIT_MS = 3000;

/**
 * Resolves once `live` holds every topic subscribed so far, or after a few seconds: a view that
 * applies changes to what it loaded (records-controller.ts, record-controller.ts) loads after its
 * subscription is in place, so a write between its answer and the subscription is not missed.
 */
export function liveReady(live: Realtime): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, READY_WAIT_MS);
    void live.ready().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
