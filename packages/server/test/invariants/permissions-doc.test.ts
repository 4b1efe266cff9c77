import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { USER_PERMISSION_DEFAULTS } from '../../src/users/user-permissions.js';
import { SIGNIN_METHODS } from '../../src/users/signin-methods/index.js';
import { repoRoot } from './source-files.js';

/**
 * docs/users.md says each permission's default twice: under each operation ("Permission `x`,
 * default: `g`.") and in the answer of `getPermissions`, which lists every entry. A sign-in method
 * adds its entries (users/user-service.ts merges them), so the example falls behind unless
 * scripts/doc-examples.ts is run again: it had listed 33 of 77.
 */
const doc = readFileSync(join(repoRoot, 'docs/users.md'), 'utf8');
const defaults: Record<string, readonly string[]> = {
  ...USER_PERMISSION_DEFAULTS,
  ...Object.assign({}, ...SIGNIN_METHODS.map((m) => m.permissions)),
};
const sorted = (entries: Record<string, readonly string[]>) =>
  Object.fromEntries(
    Object.entries(entries)
      .map(([permission, groups]) => [permission, [...groups].sort()])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );

test("users.md's getPermissions answer lists every default entry of the user service", () => {
  const section = doc.slice(doc.indexOf('### `getPermissions`'), doc.indexOf('### `setPermissions`'));
  const answer = /```http\nHTTP\/1\.1 200\n\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(answer, 'no answer under ### `getPermissions`');
  const listed = (JSON.parse(answer) as { permissions: { permission: string; groups: string[] }[] }).permissions;
  assert.deepEqual(sorted(Object.fromEntries(listed.map((e) => [e.permission, e.groups]))), sorted(defaults));
});

test('every "Permission `x`, default: ..." line of users.md names the default groups', () => {
  const lines = [...doc.matchAll(/^Permission `(\w+)`, default: (.*)\.$/gm)];
  assert.ok(lines.length > 60, `found only ${lines.length} lines`);
  const wrong = lines
    .map(([, permission = '', groups = '']) => ({
      permission,
      said: [...groups.matchAll(/`([^`]+)`/g)].map((g) => g[1] ?? '').sort(),
      is: [...(defaults[permission] ?? ['(no such permission)'])].sort(),
    }))
    .filter(({ said, is }) => said.join() !== is.join());
  assert.deepEqual(wrong, []);
});
