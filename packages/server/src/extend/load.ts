import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importConfigModule, type Config } from '../core/config.js';
import type { ExtensionApi, RoostExtension } from './extension.js';
import { typeErrors } from './typecheck.js';

/**
 * Where extensions come from (issue 40, docs/hooks.md "Where hooks live"), in this order: the
 * files of the `hooks/` folder of the working directory by name (each one's default export),
 * `extend` of the configuration, and the embedding program's (`createRoost(config, { extensions })`).
 * A file is loaded as roost.config.ts is (core/config.ts `importConfigModule`, tsx's `tsImport`),
 * after the TypeScript compiler found no error in the folder (extend/typecheck.ts).
 */

/** An extension and where it came from: its hooks are named after `source` (extend/hooks.ts). */
export interface LoadedExtension {
  source: string;
  extension: RoostExtension;
}

/** Why Roost does not start: a hook file's type errors (file:line: message), or a file that is no extension. */
class ExtensionError extends Error {
  override readonly name = 'ExtensionError';
  constructor(readonly problems: string[]) {
    super(`The extensions cannot be loaded:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const HOOK_FILE = /^[^.].*(?<!\.d)\.(ts|mts|js|mjs)$/;

/** The extension files of `dir`, by name; none when there is no such folder. */
function hookFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && HOOK_FILE.test(entry.name))
    .map((entry) => join(dir, entry.name))
    .sort();
}

export interface LoadOptions {
  /** The working directory: its `hooks/` folder, its tsconfig.json, its TypeScript. */
  cwd: string;
  /** `createRoost`'s `extensions`. */
  program?: readonly RoostExtension[];
  /** Whether the hook files are type-checked first (`hooks.typecheck`). */
  typecheck: boolean;
  /** Told when no TypeScript compiler is found (the files then load unchecked). */
  warn(message: string): void;
}

export async function loadExtensions(config: Config, options: LoadOptions): Promise<LoadedExtension[]> {
  const files = hookFiles(resolve(options.cwd, 'hooks'));
  const typed = files.filter((f) => /\.m?ts$/.test(f));
  if (options.typecheck && typed.length > 0) {
    const compiler = await typescriptFor(options.cwd);
    if (!compiler) {
      options.warn(
        'hooks/: no TypeScript compiler found (install typescript in this project), so its files are not ' +
          'type-checked before they load',
      );
    } else {
      const problems = typeErrors(compiler, typed, options.cwd);
      if (problems.length > 0) throw new ExtensionError(problems);
    }
  }
  const loaded: LoadedExtension[] = [];
  for (const file of files) {
    const source = relative(options.cwd, file);
    let module: { default?: unknown };
    try {
      module = (await importConfigModule(pathToFileURL(file).href)) as { default?: unknown };
    } catch (err) {
      throw new ExtensionError([`${source}: ${(err as Error).message}`]);
    }
    if (typeof module.default !== 'function')
      throw new ExtensionError([
        `${source}: must export an extension as default (export default defineExtension(...))`,
      ]);
    loaded.push({ source, extension: module.default as RoostExtension });
  }
  const configured = config.extend === undefined ? [] : [config.extend].flat();
  // `extend` is typed loosely by the configuration (core/ knows no extension API); each is a function.
  for (const [i, extension] of configured.entries())
    loaded.push({
      source: `roost.config:extend${configured.length > 1 ? `.${i}` : ''}`,
      extension: extension as RoostExtension,
    });
  for (const [i, extension] of (options.program ?? []).entries())
    loaded.push({ source: extension.name ? `program:${extension.name}` : `program:${i}`, extension });
  return loaded;
}

/** Runs each extension with its API, in order; one that throws stops the start, naming it. */
export async function runExtensions(
  extensions: readonly LoadedExtension[],
  apiFor: (source: string) => ExtensionApi,
): Promise<void> {
  for (const { source, extension } of extensions) {
    try {
      await extension(apiFor(source));
    } catch (err) {
      throw new ExtensionError([`${source}: ${(err as Error).message}`]);
    }
  }
}

/**
 * The TypeScript compiler API of the project in `cwd`, else the one beside Roost, else null:
 * `typescript` is no dependency of Roost (an installed Roost runs its sources through tsx), so a
 * project that writes hooks in TypeScript brings its own. Resolved by path, so that a bundler
 * leaves it alone (scripts/cli-bundle.mjs).
 */
async function typescriptFor(cwd: string): Promise<typeof import('typescript') | null> {
  for (const base of [join(cwd, 'package.json'), import.meta.url]) {
    let path: string;
    try {
      path = createRequire(base).resolve('typescript');
    } catch {
      continue;
    }
    const module = (await import(pathToFileURL(path).href)) as { default: typeof import('typescript') };
    return module.default;
  }
  return null;
}
