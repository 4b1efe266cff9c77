import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Secrets are never compared with `===`, whose time depends on how many leading characters
 * match. Tokens (sign-in, activation, reset, email verification) are found by the SHA-256 of
 * the presented token: a database lookup by hash, whose timing can only tell an attacker about
 * hashes of guesses, never about a stored token. Where a secret is compared directly (the
 * pages' CSRF token, the flash cookie's signature), `timingSafeEqual` does it. This reads every
 * source file and fails on a comparison of something named like a secret.
 */
const src = new URL('../../src/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const SECRET = /(token|secret|csrf|password|passwordHash|tokenHash|apiKey)$/i;
/** What a secret may be compared with: absence, a length, a type, a fixed text (a mask such as `'****'`). */
const HARMLESS = /^(undefined|null|\d+|'[^']*'|"[^"]*"|true|false)$|\.length$|^typeof\b/;
const OPERAND = String.raw`('[^']*'|"[^"]*"|[\w$.?[\]]+)`;
const COMPARISON = new RegExp(String.raw`${OPERAND}\s*(===|!==|==|!=)\s*${OPERAND}`, 'g');

function secretComparisons(text: string): string[] {
  const found: string[] = [];
  for (const [line, content] of text.split('\n').entries()) {
    for (const m of content.matchAll(COMPARISON)) {
      const [left = '', right = ''] = [m[1], m[3]];
      const secret = [left, right].some((side) => SECRET.test(side.replace(/[?!]/g, '')) && !HARMLESS.test(side));
      const harmless =
        [left, right].some((side) => HARMLESS.test(side)) || /typeof\s+$/.test(content.slice(0, m.index));
      if (secret && !harmless) found.push(`${line + 1}: ${content.trim()}`);
    }
  }
  return found;
}

test('the scanner finds a secret compared with ===, and lets lengths and absence pass', () => {
  assert.equal(secretComparisons('if (given === expectedToken) ok();').length, 1);
  assert.equal(secretComparisons('return row.token_hash !== presented.tokenHash;').length, 1);
  assert.equal(secretComparisons('if (password != stored.password) fail();').length, 1);
  assert.deepEqual(
    secretComparisons(
      'if (token.length === 0 || changes.passwordHash !== undefined || typeof token === "string" || s.password !== ' +
        "'****') x();",
    ),
    [],
  );
});

test('no source file compares a secret with ===; the direct comparisons use timingSafeEqual', () => {
  const problems = files(src).flatMap((file) =>
    secretComparisons(readFileSync(file, 'utf8')).map((p) => `${relative(src, file)}:${p}`),
  );
  assert.deepEqual(problems, []);
  // The pages' CSRF token and the signature of their flash cookie are compared directly.
  assert.match(readFileSync(join(src, 'admin/csrf.ts'), 'utf8'), /timingSafeEqual\(given, expected\)/);
  assert.match(
    readFileSync(join(src, 'admin/page-kit/page-reply.ts'), 'utf8'),
    /timingSafeEqual\(Buffer\.from\(given\), Buffer\.from\(expected\)\)/,
  );
});
