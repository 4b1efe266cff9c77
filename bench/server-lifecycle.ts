// What a bench server does when the bench stops it: close what it opened, drop its database,
// remove its temporary files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cleanups: Array<() => Promise<void>> = [];

async function cleanUpAndExit(code: number): Promise<never> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((err: unknown) => console.error(err));
  process.exit(code);
}

/**
 * Run `cleanup` (close the server, drop its database) when the bench stops this process, when
 * the bench is interrupted, or when the server fails while setting up; then exit.
 */
export function onStop(cleanup: () => Promise<void>): void {
  if (cleanups.length === 0) {
    process.once('SIGTERM', () => void cleanUpAndExit(0));
    process.once('SIGINT', () => void cleanUpAndExit(130));
    // The bench itself went away without stopping its servers.
    process.once('disconnect', () => void cleanUpAndExit(0));
    process.once('uncaughtException', (err) => {
      console.error(err);
      void cleanUpAndExit(1);
    });
  }
  cleanups.push(cleanup);
}

/** A temporary directory of this server, removed when it stops. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onStop(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
