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
  /** Thumbnails made by sharp, not those read back from where they are kept (filestore/thumbnails/). */
  thumbnailsMade: 0,
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

/** One try of a job (core/job-queue.ts), for `/metrics`' runs, failures and durations per job. */
export interface JobRun {
  /** The job's kind: `mail`, `webhook`, or an extension's `job:<name>` and `schedule:<name>` (extend/jobs.ts). */
  kind: string;
  outcome: 'done' | 'failed' | 'skipped';
  seconds: number;
}

const jobRunListeners = new Set<(run: JobRun) => void>();

/**
 * The tries of jobs, told as they end: a duration is observed into a histogram, which plain
 * counts cannot give. Each metrics registry listens while its app is open (http/metrics.ts).
 */
export const jobRuns = {
  record(run: JobRun): void {
    for (const listener of jobRunListeners) listener(run);
  },
  /** Listens to every try of this process; returns the function that stops it. */
  listen(listener: (run: JobRun) => void): () => void {
    jobRunListeners.add(listener);
    return () => jobRunListeners.delete(listener);
  },
};
