// The `roost` command for the tests that start it as a process (packages/server/test/helpers/roost-command.ts):
// src/cli/cli.ts bundled once per test run by esbuild into one JavaScript file. bin/roost.js loads the
// sources through tsx, whose loader hooks see every import (~4 s of CPU per start, measured in
// CONTRIBUTING.md, "Test time"); the cli tests start about 20 processes per file. Dependencies stay
// external (resolved from the package's node_modules, so native addons are the ones of the Node that
// runs them), but kysely and zod, plain JavaScript of many small modules, which are bundled as the
// test tree bundles them (scripts/test-tree.mjs); @roost/* are bundled from their sources, like the
// tests see them (condition roost-source).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Builds the bundle for the checkout at `root` with the esbuild of `esbuildFrom` (a checkout whose
 * node_modules has it) and answers the file to run in place of bin/roost.js.
 */
export async function buildCliBundle(root, esbuildFrom = root) {
  const server = join(root, 'packages/server');
  const pkg = JSON.parse(readFileSync(join(server, 'package.json'), 'utf8'));
  const external = Object.keys(pkg.dependencies).filter(
    (name) => !name.startsWith('@roost/') && !['kysely', 'zod'].includes(name),
  );
  // Under node_modules: ignored by git, and the bundle's imports resolve from there as from src/.
  const dir = join(server, 'node_modules/.cache/roost-cli');
  mkdirSync(dir, { recursive: true });
  const esbuild = await import(createRequire(join(esbuildFrom, 'package.json')).resolve('esbuild'));
  await esbuild.build({
    entryPoints: [join(server, 'src/cli/cli.ts')],
    outfile: join(dir, 'cli.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['roost-source'],
    external,
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  const bin = join(dir, 'roost.mjs');
  // bin/roost.js without tsx (a configuration file in TypeScript is read through tsx by core/config.ts).
  writeFileSync(
    bin,
    `const { main } = await import('./cli.mjs');
process.exitCode = await main(process.argv.slice(2));
`,
  );
  return bin;
}
