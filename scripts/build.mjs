#!/usr/bin/env node
// Builds the packages other projects install: @roost/client and @roost/forms to ESM JavaScript
// with declarations in their dist/ (docs/decisions.md, "Packages"). Runs on `npm install` (the
// root's `prepare`) and before `npm pack`. Inside this repository nothing needs dist/: the
// packages' exports name src/ under the condition `roost-source`, which the tests, `npm start`
// and the typecheck use, so an edit is seen without a build.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { typescript7Command } from './typescript-7.mjs';

const root = new URL('..', import.meta.url).pathname;
// TypeScript 7, as the typecheck (scripts/typecheck.mjs): 0.6 and 0.9 s of wall time for the two
// packages against 4 and 6 s with 5.9, the same JavaScript, declarations alike but for the order of
// members and the quotes (docs/decisions.md, "TypeScript 7 for the typecheck, the build and the
// consumers' check").
const tsc = typescript7Command(root);
const wanted = process.argv.slice(2);
const packages = wanted.length ? wanted : ['client', 'forms'];
for (const name of packages) {
  const dir = join(root, 'packages', name);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build of @roost/${name} failed`);
    process.exit(result.status ?? 1);
  }
}
console.log(`built ${packages.map((p) => `@roost/${p}`).join(', ')}`);
