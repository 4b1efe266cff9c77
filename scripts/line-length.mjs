#!/usr/bin/env node
// Lines of at most 120 characters in every source file, Python included (docs/decisions.md,
// "Biome and knip"). Biome's formatter keeps code within the width but cannot break a long
// string, comment or test name, and does not read Python: this check covers what it leaves.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const root = new URL('..', import.meta.url).pathname;
const files = execFileSync(
  'git',
  ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx', '*.js', '*.mjs', '*.cjs', '*.vue', '*.py'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter(Boolean);

const long = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(new URL(file, `file://${root}`), 'utf8');
  } catch {
    continue; // listed by git but deleted in the work tree
  }
  text.split('\n').forEach((line, i) => {
    // Characters as a reader counts them: code points, not UTF-16 units.
    const width = [...line].length;
    if (width > MAX) long.push(`${file}:${i + 1}: ${width} characters`);
  });
}
if (long.length > 0) {
  console.error(`${long.length} lines longer than ${MAX} characters:\n${long.join('\n')}`);
  process.exit(1);
}
console.log(`line length ok (${files.length} files, at most ${MAX} characters)`);
