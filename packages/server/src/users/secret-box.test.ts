import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSecretBox } from './secret-box.js';

const KEY = randomBytes(32).toString('base64');
const SEED = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

test('with a key a seed is sealed (a new IV each time) and opens again; without one it stays as it is', () => {
  const box = createSecretBox(KEY);
  const a = box.seal(SEED);
  const b = box.seal(SEED);
  assert.match(a, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.notEqual(a, b);
  assert.ok(!a.includes(SEED));
  assert.equal(box.open(a), SEED);
  assert.equal(box.open(b), SEED);
  // A seed stored before the key was set still opens.
  assert.equal(box.open(SEED), SEED);
  assert.equal(createSecretBox(undefined).seal(SEED), SEED);
});

test('a sealed seed does not open without the key, with another key, or changed', () => {
  const sealed = createSecretBox(KEY).seal(SEED);
  assert.throws(() => createSecretBox(undefined).open(sealed), /users\.secretsKey is not set/);
  assert.throws(() => createSecretBox(randomBytes(32).toString('base64')).open(sealed), /another key/);
  const parts = sealed.split('.');
  const flipped = `${parts[0]}.${parts[1]}.${parts[2]}.${Buffer.from('tampered!').toString('base64url')}`;
  assert.throws(() => createSecretBox(KEY).open(flipped), /does not open/);
  assert.throws(() => createSecretBox(KEY).open('v1.only'), /damaged/);
});
