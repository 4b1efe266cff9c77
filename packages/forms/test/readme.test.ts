// The README's example stays complete and short (issue 2: "a complete example in under 30 lines").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

test('README example: one ts block under 30 lines that imports the public surface', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const lines = block.trimEnd().split('\n');
  assert.ok(lines.length > 10 && lines.length < 30, `${lines.length} lines`);
  assert.match(block, /from '@roost\/forms'/);
  assert.match(block, /form\.process\(/);
});
