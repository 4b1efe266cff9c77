#!/usr/bin/env node
// Typechecks every package (sources and tests alike) and the benchmarks (bench/ calls the services
// directly: a changed signature must fail here, not in a bench run) as one TypeScript program, the
// root tsconfig.json: the server's program holds the sources of @roost/client and @roost/forms, and
// bench's the server's, so checking each project on its own checked them again (110 s of CPU for
// the four; 45 s as one, CONTRIBUTING.md "Test time"). Each package keeps its own tsconfig.json for
// editors; all extend tsconfig.base.json, so the one program sees the same options.
// The compiler is TypeScript 7 (`typescript-7`, the compiler ported to Go: 17 s of CPU for this
// program against 68 s with TypeScript 5.9; docs/decisions.md, "TypeScript 7 for the typecheck, the
// build and the consumers' check"). TypeScript 5.9 stays the `typescript` of the repository for what
// uses its JavaScript API, which 7 does not have: the invariant tests that read the sources' syntax
// trees, and openapi-typescript.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { typescript7Command } from './typescript-7.mjs';

const root = new URL('..', import.meta.url).pathname;
const tsc = typescript7Command(root);
const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error('typecheck failed');
  process.exit(1);
}
console.log('typecheck ok (TypeScript 7: packages/*/src, test, bin and bench/ as one program)');
