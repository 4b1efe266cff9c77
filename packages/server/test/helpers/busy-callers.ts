/** One request of a busy caller: when it was sent and what it got. */
export interface BusyRequest {
  sentAt: number;
  status: number;
}

/**
 * `workers` callers send `call` back to back; once each has answered a few times, `action`
 * runs (a revoking call, say), and the callers go on for `afterMs` past its answer. The
 * requests are split by whether they were sent before or after the action answered: what the
 * action changed must hold for every request of `after`.
 */
export async function busyCallers(
  workers: number,
  call: (worker: number, round: number) => Promise<{ status: number }>,
  action: () => Promise<number>,
  { warmupRounds = 3, afterMs = 400 } = {},
): Promise<{ actionStatus: number; before: BusyRequest[]; after: BusyRequest[] }> {
  const requests: BusyRequest[] = [];
  let stopAt = Number.POSITIVE_INFINITY;
  let warm = 0;
  let warmed!: () => void;
  const allWarm = new Promise<void>((resolve) => (warmed = resolve));
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let round = 0; performance.now() < stopAt; round++) {
      const sentAt = performance.now();
      const { status } = await call(worker, round);
      requests.push({ sentAt, status });
      if (round + 1 === warmupRounds && ++warm === workers) warmed();
    }
  });
  await allWarm;
  const actionStatus = await action();
  const answeredAt = performance.now();
  stopAt = answeredAt + afterMs;
  await Promise.all(loops);
  if (actionStatus !== 200) throw new Error(`the action answered ${actionStatus}`);
  return {
    actionStatus,
    before: requests.filter((r) => r.sentAt < answeredAt),
    after: requests.filter((r) => r.sentAt > answeredAt),
  };
}
