import type { Realtime } from '../realtime.js';

/** Changes within this many milliseconds make one refresh: a burst of writes is one request. */
const SETTLE_MS = 50;

/**
 * Calls `refresh` after the changes of `topic` on `live` (and after a `reload`), at most once
 * per burst. For views that show a page of a store or a directory: list-controller.ts,
 * directory-controller.ts. Returns the function that stops it.
 */
export function refreshOnChanges(live: Realtime, topic: string, refresh: () => Promise<void>): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = live.subscribe(topic, () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void refresh();
    }, SETTLE_MS);
  });
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    stop();
  };
}
