#!/usr/bin/env node
// Typechecks every package (sources and tests alike) and the benchmarks (bench/ calls the services
// directly: a changed signature must fail here, not in a bench run) as one TypeScript program, the
// root tsconfig.json: the server's program holds the sources of @roost/client and @roost/forms, and
// bench's the server's, so checking each project on its own checked them again (110 s of CPU for
// the four; 45 s as one, CONTRIBUTING.md "Test time"). Each package keeps its own tsconfig.json for
// editors; all extend tsconfig.base.json, so the one program sees the same options.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error('typecheck failed');
  process.exit(1);
}
console.log('typecheck ok (packages/*/src, test, bin and bench/ as one program)');
