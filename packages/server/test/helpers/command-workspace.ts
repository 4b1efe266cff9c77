import { after, before } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RoostRun, runRoost } from './roost-command.js';
import { createPostgresDatabase, type TestPostgresDatabase } from './test-server.js';

/** A folder and a database of their own for the `roost` commands of one test file's `describe`. */
export interface CommandWorkspace {
  readonly cwd: string;
  readonly dataDir: string;
  /** The environment naming the PostgreSQL database in the PostgreSQL pass; empty on SQLite. */
  readonly database: Record<string, string>;
  readonly postgres: boolean;
  /** `roost <args>` in the folder, on its data directory and database, the log at info. */
  run(args: string[], extra?: Record<string, string>): Promise<RoostRun>;
}

/**
 * Registers the `before` and `after` that make and remove the workspace (cli.test.ts,
 * cli-users.test.ts). In the PostgreSQL pass the commands work on a database of their own there,
 * as `serve` does. A command that hangs fails its test after a minute (a start took over 20 s on
 * a machine loaded by other work).
 */
export function commandWorkspace(prefix: string): CommandWorkspace {
  let cwd = '';
  let pgDb: TestPostgresDatabase | null = null;
  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), prefix));
    if (process.env.ROOST_TEST_DIALECT === 'postgres') pgDb = await createPostgresDatabase();
  });
  after(async () => {
    await pgDb?.drop();
    await rm(cwd, { recursive: true, force: true });
  });
  const workspace: CommandWorkspace = {
    get cwd() {
      return cwd;
    },
    get dataDir() {
      return join(cwd, 'data');
    },
    get database() {
      return pgDb?.env ?? {};
    },
    get postgres() {
      return pgDb !== null;
    },
    run: (args, extra = {}) =>
      runRoost(args, {
        cwd,
        env: { ROOST_LOG_LEVEL: 'info', ROOST_DATA_DIR: workspace.dataDir, ...workspace.database, ...extra },
        timeoutMs: 60_000,
      }),
  };
  return workspace;
}
