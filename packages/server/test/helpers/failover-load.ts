import { call, type Follower, follow, newFollower } from './stream-follower.js';

/**
 * The clients of a failover (scale/failover.test.ts, bench/suite-failover.ts): writers of new
 * items, readers of acknowledged ones and live streams, all through the balancer's front, and what
 * each answer was. A writer whose write is answered with a retryable failure writes the same item
 * again 200 ms later, as a connector would (`setItem` may be repeated: docs/scaling.md, "When the
 * database fails"); the short wait measures the database's pause, not the clients' patience.
 */
export interface FailoverLoad {
  followers: Follower[];
  /** Each acknowledged write (answered 200) by its key, with when its answer came (ms since the epoch). */
  acknowledged: Map<string, number>;
  /** The figures so far (a copy). */
  figures(): FailoverFigures;
  /** Stops the clients and resolves once all have ended, with the figures of the whole run. */
  stop(): Promise<FailoverFigures>;
}

export interface FailoverFigures {
  requests: number;
  acknowledged: number;
  /** The retryable answers (503 `database_unavailable` with Retry-After), by what was asked: `setItem`, `getItem`. */
  retryable: Record<string, number>;
  /** Every other failed answer or request, in words: what the test asserts is empty. */
  failures: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Roost's retryable failure: 503 `database_unavailable`, with a Retry-After (storage/retry.ts). */
function retryable(res: Awaited<ReturnType<typeof call>>): boolean {
  return res.status === 503 && res.body?.code === 'database_unavailable' && res.retryAfter !== null;
}

export function startFailoverLoad(
  front: string,
  token: string,
  clients: { writers: number; readers: number; streams: number },
): FailoverLoad {
  let stopping = false;
  const done = () => stopping;
  let requests = 0;
  const acknowledged = new Map<string, number>();
  const keys: string[] = [];
  const retryableCounts: Record<string, number> = {};
  const failures: string[] = [];
  const countRetryable = (operation: string) => (retryableCounts[operation] = (retryableCounts[operation] ?? 0) + 1);

  const writer = async (w: number) => {
    for (let n = 0; !stopping; n++) {
      const key = `w${w}-${n}`;
      for (;;) {
        requests++;
        try {
          const res = await call(front, '/data/api/setItem', { key, value: n }, token);
          if (res.status === 200 && res.body?.result === 1) {
            acknowledged.set(key, Date.now());
            keys.push(key);
            break;
          }
          if (!retryable(res)) failures.push(`setItem ${key}: ${res.status} ${JSON.stringify(res.body)}`);
          else countRetryable('setItem');
        } catch (err) {
          failures.push(`setItem ${key}: ${(err as Error).message}`);
        }
        if (stopping) break;
        await sleep(200);
      }
    }
  };
  const reader = async () => {
    while (!stopping) {
      const key = keys[Math.floor(Math.random() * keys.length)];
      if (key === undefined) {
        await sleep(20);
        continue;
      }
      requests++;
      try {
        const res = await call(front, '/data/api/getItem', { key }, token);
        // Every key read was acknowledged: a 404 is a lost write.
        if (retryable(res)) {
          countRetryable('getItem');
          await sleep(200);
        } else if (res.status !== 200) failures.push(`getItem ${key}: ${res.status} ${JSON.stringify(res.body)}`);
      } catch (err) {
        failures.push(`getItem ${key}: ${(err as Error).message}`);
      }
    }
  };
  const followers = Array.from({ length: clients.streams }, newFollower);
  const running = [
    ...followers.map((f) => follow(front, token, f, done)),
    ...Array.from({ length: clients.writers }, (_, w) => writer(w)),
    ...Array.from({ length: clients.readers }, reader),
  ];
  const figures = () => ({
    requests,
    acknowledged: acknowledged.size,
    retryable: { ...retryableCounts },
    failures: [...failures],
  });
  return {
    followers,
    acknowledged,
    figures,
    async stop() {
      stopping = true;
      await Promise.all(running);
      return figures();
    },
  };
}

/**
 * The longest time between two acknowledged writes answered from `from` to `to` (and from `from`
 * to the first of them): how long the clients saw no write succeed, in seconds.
 */
export function secondsWithoutWrites(acknowledged: Map<string, number>, from: number, to = Infinity): number {
  const times = [from, ...[...acknowledged.values()].filter((at) => at > from && at <= to)].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < times.length; i++) longest = Math.max(longest, (times[i] as number) - (times[i - 1] as number));
  return longest / 1000;
}

/** The acknowledged keys the database does not have (read through the front in batches of 100). */
export async function missingWrites(front: string, token: string, keys: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    const batch = keys.slice(i, i + 100);
    const res = await call(front, '/data/api/getItem', { key: batch }, token);
    if (res.status === 404) {
      missing.push(...batch);
      continue;
    }
    if (res.status !== 200) throw new Error(`reading back: ${res.status} ${JSON.stringify(res.body)}`);
    const found = new Set((res.body.items as Array<{ key: string }>).map((item) => item.key));
    missing.push(...batch.filter((key) => !found.has(key)));
  }
  return missing;
}
