import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commentsOf, repoRoot, repositoryFiles, sourceFiles } from './source-files.js';

/**
 * Comments say why and cite the files they depend on (CONTRIBUTING.md); a cited file that is
 * not in the repository sends the reader nowhere. Every path in a comment of packages/server/src
 * (`docs/errors.md`, `http/auth.ts` as seen from src/, `test/helpers/test-server.ts` from the
 * package, or a bare `datastore-repo.ts`) must name a file git knows: the whole path, or its end.
 */
const EXTENSIONS = 'ts|mts|mjs|cjs|md|json|jsonc|py|sh|yml|yaml';
/** A path: folders, a name, a known extension; not an URL, a glob or a template (`<service>-repo.ts`). */
const PATH = new RegExp(
  `(?<![\\w/:.@*<>{}$-])((?:\\.{1,2}/)*(?:[\\w@.-]+/)*[\\w.-]+\\.(?:${EXTENSIONS}))(?![\\w/-])`,
  'g',
);

/** Names of files Roost reads or writes where it runs, not of the repository: what a comment may name. */
const RUNTIME_FILES = new Set([
  'roost.config.json', // core/config.ts reads it from the working directory
  'roost.config.ts',
  'manifest.json', // backups/backup-archive.ts writes it into each backup
]);

const known = repositoryFiles();
const names = new Set(known.map((f) => f.split('/').at(-1)));

function exists(cited: string): boolean {
  if (RUNTIME_FILES.has(cited)) return true;
  if (cited.startsWith('../')) return false; // outside the repository (../shared/…, a sibling checkout)
  const path = cited.replace(/^\.\//, '');
  if (!path.includes('/')) return names.has(path);
  return known.some((f) => f === path || f.endsWith(`/${path}`));
}

test('every file a comment of src/ cites is in the repository', () => {
  assert.ok(known.length > 300 && names.has('architecture.md'), `git listed only ${known.length} files`);
  const problems: string[] = [];
  let cited = 0;
  for (const file of sourceFiles())
    for (const { text, line } of commentsOf(file))
      for (const m of text.matchAll(PATH)) {
        const path = m[1] ?? '';
        cited++;
        if (!exists(path)) problems.push(`src/${file}:${line} cites ${path}, which is not in the repository`);
      }
  assert.ok(cited > 200, `found only ${cited} cited paths: does the pattern still read the comments?`);
  assert.deepEqual(problems, []);
});

test('every file docs/architecture.md cites is in the repository', () => {
  const problems: string[] = [];
  readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(PATH))
        if (!exists(m[1] ?? '')) problems.push(`docs/architecture.md:${i + 1} cites ${m[1]}, not in the repository`);
    });
  assert.deepEqual(problems, []);
});
