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
