import { after, before } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../src/core/config.js';
import { startServer, type TestServer } from '../helpers/test-server.js';
import { startBeside, type ChildRoost } from '../security/support/child-roost.js';

/** The PostgreSQL pass of `npm test` (ROOST_TEST_DIALECT=postgres): what several processes need. */
export const onPostgres = process.env.ROOST_TEST_DIALECT === 'postgres';

/**
 * Wait until `check` holds, asking every 20 ms for at most `timeoutMs` (generous: the machine
 * may be busy; a check that never holds fails with `what`).
 */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A test server `a` and a second `roost serve` `b` beside it (its database, its blobs), for the
 * tests of a describe block; both stop after them.
 */
export function useTwoProcesses(
  config: ConfigInput,
  besideConfig: Record<string, unknown> = config,
): { readonly a: TestServer; readonly b: ChildRoost } {
  const both = {} as { a: TestServer; b: ChildRoost };
  let dir = '';
  before(async () => {
    both.a = await startServer(config);
    dir = await mkdtemp(join(tmpdir(), 'roost-two-'));
    both.b = await startBeside(both.a, dir, besideConfig);
  });
  after(async () => {
    both.b?.process.kill('SIGTERM');
    await both.b?.exited;
    await both.a?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return both;
}
