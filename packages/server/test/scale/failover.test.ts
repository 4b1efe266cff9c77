import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { missingWrites, secondsWithoutWrites, startFailoverLoad } from '../helpers/failover-load.js';
import { type FailoverTopology, missingForFailover, startFailoverTopology } from '../helpers/failover-topology.js';
import { call } from '../helpers/stream-follower.js';
import { eventually, onPostgres } from './scale-helpers.js';

/**
 * A failover under load (issue 44, item 4; docs/scaling.md, "Failover"): Patroni with etcd
 * managing two PostgreSQL 15 instances with synchronous replication, PgBouncer in transaction mode
 * before HAProxy's primary port, three `roost serve` processes behind HAProxy
 * (test/helpers/failover-topology.ts). Writers, readers and live streams run through the front;
 * the primary's PostgreSQL is killed (kill -9 of all its processes) and Patroni promotes the
 * synchronous standby. Every failed request was answered 503 `database_unavailable` with
 * Retry-After (never a raw 500, never a proxy's page), every acknowledged write is read back
 * afterwards, writes resume, and every stream hears a write made after the failover. The long
 * version, several failovers in a row with their figures, is `npm run bench -- failover`.
 */
const missing = missingForFailover();

describe('a failover of the primary under load', {
  skip: !onPostgres ? 'runs in the PostgreSQL pass' : missing,
}, () => {
  let topology: FailoverTopology | undefined;
  let topologyStart = '';

  before(async () => {
    const began = Date.now();
    topology = await startFailoverTopology({ synchronous: true });
    topologyStart = `topology up in ${((Date.now() - began) / 1000).toFixed(1)} s (${topology.startTimes})`;
  });
  after(async () => {
    await topology?.stop();
  });

  test('only retryable answers, no acknowledged write lost, writes and streams resume', {
    timeout: 90_000,
  }, async (t) => {
    const { front, token, cluster } = topology as FailoverTopology;
    const load = startFailoverLoad(front, token, { writers: 4, readers: 2, streams: 3 });
    let killedAt = 0;
    let streamsBackAt = 0;
    let leaderBefore = '';
    let leaderAfter = '';
    let figures: Awaited<ReturnType<typeof load.stop>> | undefined;
    let failed = true;
    try {
      await eventually(async () => load.followers.every((f) => f.opened === 1), 'the streams open');
      await eventually(async () => load.acknowledged.size >= 20, 'writes are acknowledged');
      const roles = await cluster.roles();
      leaderBefore = Object.keys(roles).find((name) => roles[name] === 'leader') ?? '';
      killedAt = Date.now();
      cluster.crashPostgres(leaderBefore);
      // Patroni promotes the other member; writes are acknowledged again after the kill.
      await eventually(
        async () => {
          const now = await cluster.roles().catch(() => ({}) as Record<string, string>);
          leaderAfter = Object.keys(now).find((name) => now[name] === 'leader') ?? '';
          return leaderAfter !== '' && leaderAfter !== leaderBefore;
        },
        'the standby is promoted',
        30_000,
      );
      const before = load.acknowledged.size;
      await eventually(async () => load.acknowledged.size >= before + 20, 'writes resume', 30_000);
      // Each process's LISTEN connection reconnects to the new primary (storage/change-feed.ts,
      // every second) and tells its streams `reload`: events of other processes may have been
      // missed meanwhile. From then on every stream hears every write, whichever process made it.
      await eventually(
        async () => load.followers.every((f) => f.reloads >= 1),
        'every stream is told to reload once its process listens again',
        30_000,
      );
      streamsBackAt = Date.now();
      const last = await call(front, '/data/api/setItem', { key: 'after-failover', value: 1 }, token);
      assert.equal(last.status, 200, JSON.stringify(last.body));
      await eventually(
        async () => load.followers.every((f) => f.keys.has('after-failover')),
        'every stream hears a write made after the failover',
        20_000,
      );
      failed = false;
    } finally {
      figures = await load.stop();
      const gap = secondsWithoutWrites(load.acknowledged, killedAt);
      t.diagnostic(
        `${leaderBefore} killed, ${leaderAfter} promoted; ${gap.toFixed(2)} s without writes; streams back ` +
          `after ${((streamsBackAt - killedAt) / 1000).toFixed(2)} s; ` +
          `${figures.requests} requests, ${figures.acknowledged} writes acknowledged, retryable: ` +
          `${JSON.stringify(figures.retryable)}; streams opened/resumed/reloaded/heard the last write: ` +
          load.followers
            .map((f) => `${f.opened}/${f.resumed}/${f.reloads}/${f.keys.has('after-failover')}`)
            .join(', ') +
          `; ${topologyStart}`,
      );
      // What the processes logged as errors, for a failure's story.
      if (failed)
        for (const [i, server] of (topology as FailoverTopology).servers.entries())
          for (const line of server.output().split('\n'))
            if (/"level":[56]0/.test(line)) t.diagnostic(`r${i}: ${line.slice(0, 400)}`);
    }
    assert.deepEqual(figures.failures, [], `${figures.failures.length} of ${figures.requests} requests failed`);
    for (const f of load.followers) assert.deepEqual(f.failures, []);
    assert.deepEqual(await missingWrites(front, token, [...load.acknowledged.keys()]), [], 'acknowledged writes lost');
  });
});
