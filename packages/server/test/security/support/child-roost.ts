import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../../src/core/config.js';
import { ROOST_BIN } from '../../helpers/roost-command.js';

/**
 * Roost as users run it: `roost serve` in a process of its own, configured by a JSON file
 * (ROOST_CONFIG), so a test can kill it (SIGKILL: no handler, no flush, no goodbye) and start it
 * again on the same data. The command is ROOST_BIN (helpers/roost-command.ts): under
 * scripts/test.mjs src/cli/cli.ts bundled once, whose start costs about 0.6 s of CPU where
 * bin/roost.js through tsx costs about 2 (cli-arguments.test.ts starts bin/roost.js itself).
 */
const root = new URL('../../../../../', import.meta.url).pathname;

export interface ChildRoost {
  url: string;
  process: ChildProcess;
  /** Every line the server logged (pino JSON), for checks of what it said. */
  lines: string[];
  /** Resolves with the exit code or the signal. */
  exited: Promise<number | string>;
}

export async function writeConfig(dir: string, config: Record<string, unknown>): Promise<string> {
  const file = join(dir, 'roost.config.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}

/**
 * A second `roost serve` beside the test server `a`: on its database and blobs, with its own
 * data directory `dir`, and `config` added (the scale tests: several processes on PostgreSQL).
 */
export async function startBeside(
  a: { roost: { config: Config } },
  dir: string,
  config: Record<string, unknown> = {},
): Promise<ChildRoost> {
  const file = await writeConfig(dir, {
    databaseUrl: a.roost.config.databaseUrl,
    // Through PgBouncer (pass 5) the server's own URL beside the pooler's, as `a` has it.
    databaseDirectUrl: a.roost.config.databaseDirectUrl,
    blobs: a.roost.config.blobs,
    dataDir: dir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'info',
    ...config,
  });
  return startChild(file);
}

export function startChild(configFile: string, timeoutMs = 60_000): Promise<ChildRoost> {
  const child = spawn(process.execPath, [ROOST_BIN, 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      ROOST_CONFIG: configFile,
      ROOST_DATABASE_URL: '',
      ROOST_DATABASE_DIRECT_URL: '',
      ROOST_DATA_DIR: '',
      ROOST_PORT: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`roost did not start within ${timeoutMs} ms:\n${lines.join('\n')}`));
    }, timeoutMs);
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        const url = /Roost listens on (http:\/\/[^\s]+) /.exec(line)?.[1];
        if (url) {
          clearTimeout(timer);
          resolve({ url, process: child, lines, exited });
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`roost exited (${code}) before it listened:\n${lines.join('\n')}`));
    });
  });
}
