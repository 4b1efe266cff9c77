import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
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

/**
 * `npm pack` the workspace `@roost/<name>` into `dir`; resolves to the tarball's path. Under
 * scripts/test.mjs (`ROOST_TEST_PACKS`, a folder of the run) each package is packed once for
 * every test file and pass that asks (packed-server.test.ts installs all three, in passes 1 and
 * 4: the same bytes): the first caller packs, the others wait for its tarball.
 */
export async function pack(name: 'client' | 'forms' | 'server', dir: string): Promise<string> {
  const shared = process.env.ROOST_TEST_PACKS;
  if (!shared) return packInto(name, dir);
  const answer = join(shared, `${name}.json`);
  try {
    await mkdir(join(shared, `${name}.packing`));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return packedBy(answer, name);
  }
  let said: { tarball: string } | { error: string };
  try {
    said = { tarball: await packInto(name, join(shared, name)) };
  } catch (err) {
    said = { error: String(err) };
  }
  // Written whole, then renamed: a waiting reader never sees half of it.
  await writeFile(`${answer}.part`, JSON.stringify(said));
  await rename(`${answer}.part`, answer);
  if ('error' in said) throw new Error(said.error);
  return said.tarball;
}

/** The tarball another test file packed (`answer`), once it is there; its failure if it failed. */
async function packedBy(answer: string, name: string): Promise<string> {
  for (const started = Date.now(); Date.now() - started < 10 * 60_000; await delay(200)) {
    let said: { tarball?: string; error?: string };
    try {
      said = JSON.parse(await readFile(answer, 'utf8')) as typeof said;
    } catch {
      continue;
    }
    if (said.tarball) return said.tarball;
    throw new Error(`npm pack @roost/${name} failed in another test file: ${said.error}`);
  }
  throw new Error(`npm pack @roost/${name} in another test file did not end within 10 minutes`);
}

async function packInto(name: 'client' | 'forms' | 'server', dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
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

/**
 * TypeScript 7 on a consumer's tsconfig.json: the lines of its errors (`file(line,col): error
 * TSnnnn: ...`, paths relative to `dir`), none when it passes. 7 is what `npm install typescript`
 * gives a new project, and what emitted the declarations (scripts/build.mjs). A test that wants
 * both a clean program and a caught mistake checks them in one run: each run reads every
 * declaration of the consumer's node_modules again (about 12 s of CPU with TypeScript 5.9, a
 * fraction of it with 7).
 */
export async function tscErrorsIn(dir: string): Promise<string[]> {
  const tsc = join(root, 'node_modules', 'typescript-7', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir], { cwd: dir, env: consumerEnv() });
    return [];
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    const errors = stdout.split('\n').filter((line) => /: error TS\d+:/.test(line));
    if (errors.length === 0) throw new Error(`tsc failed in ${dir} without a type error:\n${stdout}${stderr}`);
    return errors;
  }
}

/** tscErrorsIn, for a program that must pass: it throws with the errors. */
export async function tscIn(dir: string): Promise<void> {
  const errors = await tscErrorsIn(dir);
  if (errors.length > 0) throw new Error(`tsc failed in ${dir}:\n${errors.join('\n')}`);
}
