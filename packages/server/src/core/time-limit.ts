/**
 * `work`'s result, or the error `overTime()` makes once `ms` have passed: the one time limit of
 * the jobs (core/job-queue.ts), the hooks (extend/hooks.ts) and the extensions' routes
 * (extend/routes.ts). The work itself goes on (JavaScript cannot stop it): `overTime` is where a
 * caller aborts its signal, and its result is ignored after (its failure too: the race handles it).
 */
export async function withinTime<T>(work: Promise<T>, ms: number, overTime: () => unknown): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(overTime()), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}
