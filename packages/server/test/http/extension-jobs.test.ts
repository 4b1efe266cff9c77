import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { isRoostError } from '../../src/core/errors.js';
import type { ExtensionApi, RoostExtension } from '../../src/extend/extension.js';
import type { ExtensionJobs, JobHandle } from '../../src/extend/jobs.js';
import { createMigratedPostgresDatabase, startServer } from '../helpers/test-server.js';
import { eventually } from '../scale/scale-helpers.js';
import { programCaller } from '../../src/users/index.js';

/**
 * The extensions' jobs (extend/jobs.ts; docs/hooks.md, "Jobs") in one process, on this pass's
 * database: a schedule's ticks, a background job retried across a restart, a time limit, the
 * refusals of bad crons and bad input, and what /metrics counts. Two processes sharing
 * PostgreSQL: test/scale/jobs-processes.test.ts.
 */

/** One sample of Prometheus' text format (labels in any order), or 0. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

/** The refusal a call throws, as Roost's failure: its code and its fields. */
function refusal(call: () => unknown): { code: string; fields: unknown; message: string } {
  try {
    call();
  } catch (err) {
    if (isRoostError(err)) return { code: err.code, fields: err.fields, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

// Their tests mostly wait for ticks and retries: all of them at once.
describe("the extensions' jobs", { concurrency: true }, () => {
  describe('scheduled jobs in one process', { concurrency: true }, () => {
    test('a job every second runs once per tick, shows on the jobs page and in /metrics', async () => {
      const ticks: string[] = [];
      const s = await startServer(
        {},
        {
          extensions: [
            (roost) =>
              roost.jobs.schedule('every-second', '* * * * * *', ({ tick, system }) => {
                assert.equal(system.principal.name, 'system');
                ticks.push(tick?.toISOString() ?? 'now');
              }),
          ],
        },
      );
      try {
        await eventually(async () => ticks.length >= 3, 'three ticks', 6000);
        assert.equal(new Set(ticks).size, ticks.length, 'no tick twice');
        for (const tick of ticks) assert.match(tick, /\.000Z$/, 'a tick is a whole second');
        const token = await s.adminToken();
        const page = await s.request('/admin/jobs', undefined, { token });
        assert.equal(page.status, 200);
        assert.match(page.body, /every-second/);
        assert.match(page.body, /\* \* \* \* \* \*/);
        const metrics = (await s.request('/metrics', undefined, { token })).body as string;
        assert.ok(sample(metrics, 'roost_job_runs_total', { job: 'schedule:every-second', outcome: 'done' }) >= 3);
        assert.ok(sample(metrics, 'roost_job_duration_seconds_count', { job: 'schedule:every-second' }) >= 3);
      } finally {
        await s.close();
      }
    });

    test('a tick whose previous run still runs is skipped, and recorded as skipped', async () => {
      let running = 0;
      let overlapped = false;
      const s = await startServer(
        {},
        {
          extensions: [
            (roost) =>
              roost.jobs.schedule(
                'slow',
                '* * * * * *',
                async () => {
                  running++;
                  if (running > 1) overlapped = true;
                  await new Promise((resolve) => setTimeout(resolve, 1600));
                  running--;
                },
                { timeoutMs: 5000 },
              ),
          ],
        },
      );
      try {
        const token = await s.adminToken();
        const skipped = async () =>
          (await s.request('/admin/jobs?kind=schedule%3Aslow&state=skipped', undefined, { token })).body as string;
        await eventually(async () => (await skipped()).includes('skipped: the previous run'), 'a skipped tick', 8000);
        assert.equal(overlapped, false);
      } finally {
        await s.close();
      }
    });

    test('bad crons, time zones and names are refused with the field at fault', async () => {
      const calls: Array<() => unknown> = [];
      const s = await startServer(
        {},
        {
          extensions: [
            (roost) => {
              calls.push(
                () => roost.jobs.schedule('bad-cron', 'every day', () => {}),
                () => roost.jobs.schedule('bad-zone', '0 3 * * *', () => {}, { timezone: 'Mars/Olympus' }),
                () => roost.jobs.schedule('no spaces', '0 3 * * *', () => {}),
                () => roost.jobs.define('bad-retries', () => {}, { retries: -1 }),
              );
              // Its next tick is further than a Node timer waits: it must not be added early.
              roost.jobs.schedule('yearly', '0 0 1 1 *', () => {});
            },
          ],
        },
      );
      try {
        const [cron, zone, name, retries] = calls.map(refusal);
        assert.deepEqual([cron?.code, cron?.fields], ['validation_failure', [['cron', 'invalid']]]);
        assert.match(cron?.message ?? '', /bad-cron/);
        assert.deepEqual(zone?.fields, [['timezone', 'invalid']]);
        assert.deepEqual(name?.fields, [['name', 'invalid']]);
        assert.deepEqual(retries?.fields, [['retries', 'invalid']]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const yearly = await s.roost.jobs.list(programCaller('test').principal, { kind: 'schedule:yearly', limit: 5 });
        assert.deepEqual(yearly, []);
      } finally {
        await s.close();
      }
    });

    test('an extension that throws stops the start', async () => {
      await assert.rejects(
        startServer({}, { extensions: [(roost) => roost.jobs.schedule('x', 'nonsense', () => {})] }),
        /Scheduled job "x"/,
      );
    });
  });

  describe('background jobs', { concurrency: true }, () => {
    test('a job that fails twice succeeds on its third try after a restart', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'roost-jobs-'));
      const pg = process.env.ROOST_TEST_DIALECT === 'postgres' ? await createMigratedPostgresDatabase() : null;
      const config = { dataDir, ...pg?.settings };
      const tries: Array<{ attempt: number; to: string; server: string }> = [];
      const flaky = (server: string): { extension: RoostExtension; handle: () => JobHandle<{ to: string }> } => {
        let handle: JobHandle<{ to: string }> | undefined;
        return {
          extension: (roost: ExtensionApi) => {
            handle = roost.jobs.define<{ to: string }>(
              'flaky',
              (input, { attempt }) => {
                tries.push({ attempt, to: input.to, server });
                if (attempt < 3) throw new Error(`try ${attempt} failed`);
              },
              { retries: 4, backoff: 1000 },
            );
          },
          handle: () => handle!,
        };
      };
      try {
        const first = flaky('first');
        let jobs: ExtensionJobs | undefined;
        const s1 = await startServer(config, {
          extensions: [
            first.extension,
            (roost) => {
              jobs = roost.jobs;
            },
          ],
        });
        let id: string;
        try {
          const token = await s1.adminToken();
          id = await jobs!.enqueue(first.handle(), { to: 'ann@example.com' });
          await eventually(async () => tries.length === 1, 'the first try', 5000);
          await eventually(async () => {
            const metrics = (await s1.request('/metrics', undefined, { token })).body as string;
            return sample(metrics, 'roost_job_runs_total', { job: 'job:flaky', outcome: 'failed' }) >= 1;
          }, 'the failure counted');
          // Try 2 fails after 1 s; try 3 waits 2 s more: the process stops first.
          await eventually(async () => tries.length === 2, 'two tries', 5000);
        } finally {
          await s1.close();
        }
        const s2 = await startServer(config, { extensions: [flaky('second').extension] });
        try {
          await eventually(async () => tries.length === 3, 'the third try', 5000);
          assert.deepEqual(
            tries.map((t) => `${t.server} ${t.attempt} ${t.to}`),
            ['first 1 ann@example.com', 'first 2 ann@example.com', 'second 3 ann@example.com'],
          );
          const admin = await s2.createUser('admin2', { groups: ['admins'] });
          const page = await s2.request(`/admin/jobs/${id}`, undefined, { token: admin });
          assert.match(page.body, /done/);
        } finally {
          await s2.close();
        }
      } finally {
        await pg?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    test('a try over its time limit fails, with the reason on its page; input must be JSON', async () => {
      let jobs: ExtensionJobs | undefined;
      let aborted = false;
      const s = await startServer(
        {},
        {
          extensions: [
            (roost) => {
              jobs = roost.jobs;
              roost.jobs.define(
                'sleepy',
                async (_input, { signal }) => {
                  await new Promise((resolve) => setTimeout(resolve, 2000));
                  aborted = signal.aborted;
                },
                { retries: 0, timeoutMs: 200 },
              );
            },
          ],
        },
      );
      try {
        const token = await s.adminToken();
        const id = await jobs!.enqueue('sleepy', { n: 1 });
        const page = async () => (await s.request(`/admin/jobs/${id}`, undefined, { token })).body as string;
        await eventually(async () => (await page()).includes('timed out after 200 ms'), 'the time out', 5000);
        assert.match(await page(), /<dd>failed<\/dd>/);
        await eventually(async () => aborted, 'the signal aborted', 3000);

        const notJson = [
          [{ when: new Date() }, /input\.when is a Date/],
          [{ f: () => 1 }, /input\.f is a function/],
          [{ n: Number.NaN }, /input\.n is NaN/],
          [undefined, /input is undefined/],
        ] as const;
        for (const [input, message] of notJson)
          await assert.rejects(jobs!.enqueue('sleepy', input as never), (err: unknown) => {
            assert.ok(isRoostError(err));
            assert.deepEqual(err.fields, [['input', 'invalid']]);
            assert.match(err.message, message);
            return true;
          });
        await assert.rejects(jobs!.enqueue('nobody', {}), /There is no background job "nobody"/);
      } finally {
        await s.close();
      }
    });
  });

  describe('docs/hooks.md, "Jobs"', () => {
    test('its extension runs as written: the heartbeat every second, the welcome mail', async () => {
      const doc = readFileSync(new URL('../../../../docs/hooks.md', import.meta.url), 'utf8');
      const program = /## Jobs\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)?.[1];
      assert.ok(program?.includes("roost.jobs.schedule('heartbeat'"));
      // As an extension file would load it: its TypeScript compiled, `@roost/server` being this
      // checkout's (the module this test imports, so that the extension is handed our API).
      const roostModule = new URL('../../src/roost.js', import.meta.url).href;
      const { code } = await transform((program ?? '').replace("'@roost/server'", JSON.stringify(roostModule)), {
        loader: 'ts',
        format: 'esm',
      });
      const dir = await mkdtemp(join(tmpdir(), 'roost-hooks-doc-'));
      await writeFile(join(dir, 'jobs.mjs'), code);
      const extension = ((await import(pathToFileURL(join(dir, 'jobs.mjs')).href)) as { default: RoostExtension })
        .default;
      const s = await startServer({}, { extensions: [extension] });
      try {
        const token = await s.adminToken();
        await eventually(
          async () =>
            /Z$/.test(String((await s.request('/data/api/getItem?key=heartbeat', undefined, { token })).body?.value)),
          'the heartbeat item',
          5000,
        );
        await eventually(
          async () => (await s.outbox()).some((m) => m.to === 'ann@example.com'),
          'the welcome mail',
          8000,
        );
        const page = (await s.request('/admin/jobs', undefined, { token })).body as string;
        assert.match(page, /nightly/);
        assert.match(page, /Europe\/Paris/);
      } finally {
        await s.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
