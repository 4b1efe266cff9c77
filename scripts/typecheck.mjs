#!/usr/bin/env node
// Typechecks every package that has a tsconfig.json (sources and tests alike), and the benchmarks
// (bench/ calls the services directly: a changed signature must fail here, not in a bench run).
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const projects = readdirSync(join(root, 'packages'))
  .map((p) => join(root, 'packages', p, 'tsconfig.json'))
  .concat(join(root, 'bench', 'tsconfig.json'))
  .filter(existsSync);
let failed = false;
for (const project of projects) {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
if (failed) {
  console.error('typecheck failed');
  process.exit(1);
}
console.log(`typecheck ok (${projects.length} projects)`);
