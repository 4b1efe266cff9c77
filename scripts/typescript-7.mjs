// TypeScript 7's command (`typescript-7`, an alias of `typescript@7`) for the checkout at `root`:
// the typecheck (scripts/typecheck.mjs) and the packages' build (scripts/build.mjs) run it
// (docs/decisions.md, "TypeScript 7 for the typecheck, the build and the consumers' check").
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Its exports leave out bin/: the command is found beside its package.json. */
export function typescript7Command(root) {
  return join(dirname(createRequire(join(root, 'package.json')).resolve('typescript-7/package.json')), 'bin/tsc');
}
