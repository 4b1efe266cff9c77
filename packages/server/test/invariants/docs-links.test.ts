import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from './source-files.js';

/**
 * A newcomer follows the links between README.md and docs/ (and the packages' READMEs): each
 * relative link must name a file of the checkout, and a `#fragment` into a markdown file one of
 * its headings, by the anchor GitHub makes of it (a heading renamed leaves links to its old
 * anchor pointing nowhere, which no other test notices).
 */
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  'python/README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(repoRoot, 'packages'))
    .map((p) => `packages/${p}/README.md`)
    .filter((f) => existsSync(join(repoRoot, f))),
];

/** The lines of a markdown file outside its code fences (a `# HELP` of a sample is no heading). */
function proseLines(text: string): { line: string; number: number }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, i) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, number: i + 1 }];
  });
}

/**
 * GitHub's anchors: the heading's text in lower case, backticks and punctuation dropped (letters,
 * digits, `_`, `-` and spaces stay), each space a `-`; a repeated anchor gets `-1`, `-2`, ….
 */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(text)) {
    for (const m of line.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(m[1] ?? '');
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
const anchorsOfFile = (path: string) => {
  let anchors = anchorCache.get(path);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(path, 'utf8'));
    anchorCache.set(path, anchors);
  }
  return anchors;
};

test('every link between the docs names a file of the checkout and, into a page, one of its headings', () => {
  const problems: string[] = [];
  let links = 0;
  for (const page of pages) {
    const path = join(repoRoot, page);
    for (const { line, number } of proseLines(readFileSync(path, 'utf8')))
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/i.test(target) || target.startsWith('<')) continue; // https:, mailto:, <url>
        links++;
        const [file = '', fragment] = target.split('#');
        const to = file === '' ? path : join(dirname(path), decodeURIComponent(file));
        if (!existsSync(to)) problems.push(`${page}:${number}: ${target}: no file ${relative(repoRoot, to)}`);
        else if (fragment && to.endsWith('.md') && !anchorsOfFile(to).has(fragment))
          problems.push(`${page}:${number}: ${target}: no heading of ${relative(repoRoot, to)} has that anchor`);
      }
  }
  assert.ok(links > 200, `found only ${links} links: does the pattern still read them?`);
  assert.deepEqual(problems, []);
});
