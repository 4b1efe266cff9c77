import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/**
 * `roost dev` (issue 40, docs/hooks.md "Where hooks live"): `roost serve` in a child process,
 * started again whenever a file of `hooks/` or the configuration file changes. A new process is
 * the whole reload: modules loaded through tsx cannot be unloaded, and a restart runs every
 * extension as a start does (its type check too). A start that fails (a type error) is shown and
 * waits for the next change; Ctrl-C stops both.
 */

/** Changes closer together than this are one restart (an editor writes a file in several steps). */
const SETTLE_MS = 150;
const CONFIG_FILE = /^roost\.config\.(ts|json|mts|js|mjs)$/;

export async function dev(cwd: string): Promise<number> {
  let child: ChildProcess | null = null;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  // In an object: TypeScript does not follow a `let` that callbacks assign.
  const watching: { hooks: FSWatcher | null } = { hooks: null };

  const start = () => {
    // The same command as this one (bin/roost.js, or a bundle of it), with `serve`.
    const started = spawn(process.execPath, [...process.execArgv, process.argv[1] ?? '', 'serve'], {
      cwd,
      stdio: 'inherit',
    });
    started.once('exit', (code, signal) => {
      if (child === started) child = null;
      if (!stopping && signal === null)
        console.error(
          `roost dev: the server stopped (exit ${code}); waiting for a change to hooks/ or the configuration`,
        );
    });
    child = started;
  };
  const stopChild = async () => {
    const running = child;
    if (!running) return;
    child = null;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  const restart = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(async () => {
      timer = null;
      console.error('roost dev: a change; starting the server again');
      await stopChild();
      if (!stopping) start();
    }, SETTLE_MS);
  };
  const watchHooks = () => {
    const dir = join(cwd, 'hooks');
    if (watching.hooks || !existsSync(dir)) return;
    watching.hooks = watch(dir, () => restart());
  };

  const root = watch(cwd, (_event, name) => {
    if (name === 'hooks') {
      watching.hooks?.close();
      watching.hooks = null;
      watchHooks();
      restart();
    } else if (name && CONFIG_FILE.test(name)) restart();
  });
  watchHooks();
  start();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopping = true;
  if (timer) clearTimeout(timer);
  root.close();
  watching.hooks?.close();
  await stopChild();
  return 0;
}
