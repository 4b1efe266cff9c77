import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { checkoutRoot } from './checkout.js';

/**
 * The packages as another project gets them: `npm pack` of a workspace (its `prepack` builds
 * dist/, scripts/build.mjs) installed with npm into a fresh project outside this repository.
 */
const run = promisify(execFile);
const root = checkoutRoot;

/**
 * The environment of a consumer: without the `roost-source` condition that scripts/test.mjs sets
 * (a consumer resolves the packages' builds, never their sources) and without the test runner's
 * own variables.
 */
export function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // npm passes its configuration to the scripts it runs as npm_config_* (this repository's
  // .npmrc sets engine-strict): a consumer has its own. Only where Node's headers are (pass 4
  // on another Node) is kept, for a native build.
  const npmOwn = (key: string) => key.toLowerCase().startsWith('npm_') && key.toLowerCase() !== 'npm_config_nodedir';
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('NODE_TEST') && key !== 'NODE_OPTIONS' && !key.startsWith('ROOST_') && !npmOwn(key))
      env[key] = value;
  return { ...env, ...extra };
}

/** A `file:` dependency on a package of this repository's own install (the same registry package, no download). */
export function repoPackage(name: string): string {
  return `file:${join(root, 'node_modules', name)}`;
}

/** `npm pack` the workspace `@roost/<name>` into `dir`; resolves to the tarball's path. */
export async function pack(name: 'client' | 'forms' | 'server', dir: string): Promise<string> {
  const { stdout } = await run(
    'npm',
    ['pack', '-w', `@roost/${name}`, '--pack-destination', dir, '--json', '--silent'],
    { cwd: root, env: consumerEnv(), maxBuffer: 64 * 1024 * 1024 },
  );
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  if (!packed) throw new Error(`npm pack @roost/${name} printed nothing`);
  return join(dir, packed.filename);
}

/** The paths a tarball holds (as `npm pack --json` would list them). */
export async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['tzf', tarball]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''));
}

/**
 * A new project in `dir` depending on `dependencies` (tarball paths, registry ranges, or `file:`
 * links into this repository's node_modules), installed with npm. Install scripts never run:
 * for a linked package they would run in this repository's own node_modules (a rebuild of
 * better-sqlite3 there pulls its addon from under the tests running beside), and a native
 * addon the consumer needs is provided by the test that needs it (packed-server.test.ts).
 */
export async function consumerProject(dir: string, dependencies: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'roost-consumer', private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  const flags = ['--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', '--ignore-scripts'];
  await run('npm', ['install', ...flags], { cwd: dir, env: consumerEnv(), maxBuffer: 64 * 1024 * 1024 });
}

/** Run `node` (this one) in the consumer project. */
export async function nodeIn(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd: dir, env: consumerEnv(env) });
}

/** The repository's TypeScript compiler on a consumer's tsconfig.json; resolves to its output (it fails with it). */
export async function tscIn(dir: string): Promise<string> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    const { stdout } = await run(process.execPath, [tsc, '-p', dir], { cwd: dir, env: consumerEnv() });
    return stdout;
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`tsc failed in ${dir}:\n${stdout}${stderr}`);
  }
}
