/**
 * What the domains count as they work, for `/metrics` (http/metrics.ts). Plain numbers that a
 * hot path bumps for nothing measurable; the metrics read them when scraped. They are per
 * process, as Prometheus expects of a target: each process of a deployment is scraped on its
 * own. Several Roost instances in one process (the tests) share them, so a test reads
 * differences, never absolute values.
 */
export interface CacheStats {
  hits: number;
  misses: number;
}

export const processStats = {
  /** Sign-ins refused for a wrong identity or password, or a locked account (users/sessions.ts). */
  signinFailures: 0,
  /**
   * Caches by name: `session` (users/session-cache.ts), `item` (datastore/item-cache.ts),
   * `record` (collections/record-cache.ts).
   */
  caches: {
    session: { hits: 0, misses: 0 } satisfies CacheStats,
    item: { hits: 0, misses: 0 } satisfies CacheStats,
    record: { hits: 0, misses: 0 } satisfies CacheStats,
  },
};
