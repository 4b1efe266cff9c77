// The tree the test files run from in scripts/test.mjs: the packages with each TypeScript file
// compiled once by esbuild to JavaScript beside it, so that the test processes run on Node alone.
// Loaded through tsx, a server test file spent about 3.3 s of CPU before its first test, 2.2 s of it
// in the loader hooks, which see every import of Roost and of its dependencies; from this tree, about
// 1.1 s (CONTRIBUTING.md, "Test time"). The tree is a faithful image: every file of the packages is
// there (hard links, so a test that reads a source, a fixture or a page sees the same bytes), with
// the compiled `.js` beside each `.ts`; the sources already import `./x.js` (tsconfig.base.json,
// NodeNext), so nothing is rewritten. The rest of the checkout (docs/, python/, ...) is linked.
// The test files themselves are then bundled with the sources they import (bundleTestFiles).
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Under node_modules: ignored by git, Biome and knip, and dependencies resolve upwards from there.
 * One tree per run (named by its process id), so that two runs in one checkout leave each other's alone.
 */
const TREES = 'node_modules/.cache/roost-tests';

/** The folders of the checkout that hold TypeScript the tests import; the rest is linked. */
const COMPILED = ['packages', 'bench'];

/** Folders of a package that are not copied but linked whole (installed or built, not sources). */
const LINKED = new Set(['node_modules', 'dist']);

/**
 * Builds the tree for the checkout at `root` with the esbuild of `esbuildFrom` and answers its folder.
 * A test file `packages/p/test/x.test.ts` runs as `<tree>/packages/p/test/x.test.js`.
 */
export async function buildTestTree(root, esbuildFrom = root) {
  removeLeftTrees(join(root, TREES));
  const tree = join(root, TREES, String(process.pid));
  mkdirSync(tree, { recursive: true });
  for (const name of readdirSync(root)) {
    if (COMPILED.includes(name) || name === '.git' || name === 'node_modules') continue;
    symlinkSync(join(root, name), join(tree, name));
  }
  const sources = [];
  const packagesDir = join(root, 'packages');
  for (const name of readdirSync(packagesDir)) {
    if (existsSync(join(packagesDir, name, 'package.json')))
      mirror(join(packagesDir, name), join(tree, 'packages', name), sources);
  }
  // bench/ holds the load of the soak test (security/soak-accounting.test.ts).
  mirror(join(root, 'bench'), join(tree, 'bench'), sources);
  const esbuild = await import(createRequire(join(esbuildFrom, 'package.json')).resolve('esbuild'));
  await esbuild.build({
    entryPoints: sources,
    outdir: tree,
    outbase: root,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Stack traces name the .ts lines (the runs add --enable-source-maps), as under tsx.
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  linkPackages(root, tree);
  await linkDependencies(root, tree, esbuild);
  await bundleTestFiles(
    root,
    tree,
    esbuild,
    sources.filter((f) => f.endsWith('.test.ts')),
  );
  return tree;
}

/**
 * Each test file of the tree as one module of its own code plus chunks it shares with the others
 * (under packages/chunks/): the sources it imports, Roost's included, bundled by esbuild. Loading
 * some 300 modules of Roost one by one cost about 0.35 s of CPU in every test process (1.15 → 0.8 s
 * to import the test server). Installed packages stay imports, pinned to the file Node would load
 * from the source's own place in the tree (packages/server has nested node_modules of its own),
 * and `import.meta.url` in a source is the URL of its own compiled file in the tree, so what a
 * source finds beside itself is found as before. Every other file of the tree stays as it was,
 * for what is run or imported by its path (a child process's script, bin/roost.js).
 */
async function bundleTestFiles(root, tree, esbuild, entryPoints) {
  const inTreeDir = (dir) => join(tree, relative(root, dir));
  const pinned = {
    name: 'installed-packages-pinned',
    setup(build) {
      // An absolute path that is no file here is a page's own (an import a browser test runs in chromium).
      build.onResolve({ filter: /^\// }, (args) =>
        existsSync(args.path) ? undefined : { path: args.path, external: true },
      );
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'pinning' || args.path.startsWith('@roost/')) return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const found = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: inTreeDir(args.resolveDir),
          pluginData: 'pinning',
        });
        if (found.errors.length > 0) return { errors: found.errors };
        return { path: found.path, external: true };
      });
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const url = JSON.stringify(pathToFileURL(inTree(tree, relative(root, args.path))).href);
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
  await esbuild.build({
    entryPoints,
    outdir: tree,
    outbase: root,
    bundle: true,
    splitting: true,
    chunkNames: 'packages/chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['roost-source'],
    // Names as written: a class's or a function's `name` may be asserted or shown.
    keepNames: true,
    sourcemap: 'inline',
    plugins: [pinned],
    logLevel: 'warning',
  });
}

/**
 * Dependencies bundled into one module each for the tree: as published, kysely is 262 ES modules
 * and zod 95, and loading them cost about 0.35 s of CPU in every process that starts Roost (each
 * test file, each `roost` a test starts: scripts/cli-bundle.mjs bundles them likewise); as one
 * file each, 0.07 s. Both are plain JavaScript; only their main entry is imported (`'kysely'`,
 * `'zod'`), and another subpath would fail to resolve here, loudly.
 */
const BUNDLED = ['kysely', 'zod'];

/**
 * The tree's node_modules: a link to each of the checkout's packages, but BUNDLED as packages of
 * one module. Every file of the tree (packages/, bench/) resolves them here, so one copy is loaded.
 */
async function linkDependencies(root, tree, esbuild) {
  const from = join(root, 'node_modules');
  const to = join(tree, 'node_modules');
  mkdirSync(to);
  for (const name of readdirSync(from))
    if (!BUNDLED.includes(name) && name !== '.cache') symlinkSync(join(from, name), join(to, name));
  for (const name of BUNDLED) {
    const pkg = JSON.parse(readFileSync(join(from, name, 'package.json'), 'utf8'));
    const entry = pkg.exports['.'].import;
    mkdirSync(join(to, name));
    writeFileSync(
      join(to, name, 'package.json'),
      JSON.stringify({ name, version: pkg.version, type: 'module', exports: { '.': './index.js' } }),
    );
    await esbuild.build({
      entryPoints: [join(from, name, entry)],
      outfile: join(to, name, 'index.js'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
    });
  }
}

/** The trees of runs that ended without removing theirs (removeTestTree): their process is gone. */
function removeLeftTrees(trees) {
  if (!existsSync(trees)) return;
  for (const name of readdirSync(trees)) {
    if (/^\d+$/.test(name) && name !== String(process.pid) && alive(Number(name))) continue;
    rmSync(join(trees, name), { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** A tree of buildTestTree removed once its run is over. */
export function removeTestTree(tree) {
  rmSync(tree, { recursive: true, force: true });
}

/** `from` copied to `to` as folders and hard links; each TypeScript source is added to `sources`. */
function mirror(from, to, sources) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    if (LINKED.has(name)) {
      symlinkSync(source, target);
      continue;
    }
    if (statSync(source).isDirectory()) {
      mirror(source, target, sources);
      continue;
    }
    try {
      linkSync(source, target);
    } catch {
      copyFileSync(source, target);
    }
    if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(source);
  }
}

/**
 * `@roost/client`, `@roost/forms` and `@roost/server` as the tree's own packages. The tests import
 * them under the condition `roost-source`, which names `./src/*.ts` (packages/client/package.json);
 * here it names the compiled `./src/*.js`, in a package folder of `packages/node_modules` that links
 * to the tree's src/. Node looks there before the checkout's node_modules (linked at the tree's
 * root), whose links lead to the sources.
 */
function linkPackages(root, tree) {
  for (const name of readdirSync(join(root, 'packages'))) {
    const packageJson = join(root, 'packages', name, 'package.json');
    if (!existsSync(packageJson)) continue;
    const pkg = JSON.parse(readFileSync(packageJson, 'utf8'));
    const folder = join(tree, 'packages', 'node_modules', pkg.name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ ...pkg, exports: compiled(pkg.exports) }));
    for (const entry of ['src', 'bin', 'dist', 'node_modules']) {
      const target = join(tree, 'packages', name, entry);
      if (existsSync(target)) symlinkSync(target, join(folder, entry));
    }
  }
}

/** A package's exports with each `roost-source` target's `.ts` made `.js`. */
function compiled(exports) {
  if (typeof exports === 'string' || exports === null || typeof exports !== 'object') return exports;
  return Object.fromEntries(
    Object.entries(exports).map(([key, value]) => [
      key,
      key === 'roost-source' && typeof value === 'string' ? value.replace(/\.tsx?$/, '.js') : compiled(value),
    ]),
  );
}

/** Where a test file of the checkout (relative to its root) runs in the tree. */
export function inTree(tree, file) {
  return join(tree, file.replace(/\.tsx?$/, '.js'));
}

/** The checkout's name of a file of the tree (for reports), or `file` itself when it is not in one. */
export function outOfTree(root, file) {
  const rel = relative(root, file);
  const match = /^(?:.*\/)?node_modules\/\.cache\/roost-tests\/\d+\/(.*)\.js$/.exec(rel);
  return match ? `${match[1]}.ts` : rel;
}
