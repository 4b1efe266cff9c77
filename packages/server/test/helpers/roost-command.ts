import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The `roost` command as users run it (packages/server/bin/roost.js), in a process of its own:
 * for the tests of the command (cli.test.ts, cli-users.test.ts, cli-arguments.test.ts) and of what
 * only a separate process shows (scale/backup-restore.test.ts, scale/two-processes.test.ts,
 * shutdown.test.ts, and the servers of security/support/child-roost.ts).
 */
export const ROOST_SOURCE_BIN = fileURLToPath(new URL('../../bin/roost.js', import.meta.url));
/**
 * What the tests start: under scripts/test.mjs the same src/cli/cli.ts bundled once without tsx
 * (scripts/cli-bundle.mjs: a start costs less than half the CPU); ROOST_SOURCE_BIN otherwise.
 * cli-arguments.test.ts runs ROOST_SOURCE_BIN itself once.
 */
export const ROOST_BIN = process.env.ROOST_TEST_CLI ?? ROOST_SOURCE_BIN;

/**
 * This process's environment without the caller's ROOST_* settings and node:test's own variables
 * (a child that saw NODE_TEST_CONTEXT would report to the runner), with `extra` added.
 */
export function roostEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ROOST_') && !k.startsWith('NODE_TEST')) env[k] = v;
  return { ...env, ...extra };
}

export interface RoostRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `roost <args>` to its end, in `cwd`, with `env` over a clean environment (roostEnv); killed
 * after `timeoutMs` when given (a command that hangs then fails its test instead of the run).
 */
export function runRoost(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number; bin?: string },
): Promise<RoostRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? ROOST_BIN, ...args], {
      cwd: options.cwd,
      env: roostEnv(options.env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A `roost serve` child that listens (serveRoost). */
export interface ServedRoost {
  child: ChildProcess;
  /** Where it listens, as its log says. */
  url: string;
  /** Resolves with its exit code once it has ended. */
  exited: Promise<number | null>;
  /** What it wrote so far (its log). */
  output(): string;
}

/**
 * `roost serve` in `cwd` as a process of its own, with `env` over a clean environment (roostEnv);
 * resolves once it says where it listens, rejects if it ends first or takes over `timeoutMs` (then
 * it is killed: nobody else holds it to stop it).
 */
export function serveRoost(cwd: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ServedRoost> {
  const child = spawn(process.execPath, [ROOST_BIN, 'serve'], { cwd, env: roostEnv(env) });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start: ${out}`));
    }, timeoutMs);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /Roost listens on (http:\/\/[^\s"]+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], exited, output: () => out });
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}
