import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentActor, inActorFrame, REDACTED, redacted } from './audit.js';

test('secrets are redacted at any depth, by the last part of a setting path', () => {
  assert.deepEqual(
    redacted({
      'mail.smtpUrl': 'smtp://user:hunter2@mail.example:587',
      redis: 'redis://:pw@h',
      'mail.smtp.password': 'hunter2',
      webhook: { url: 'https://h', secret: 's3cret', kinds: ['a'] },
      list: [{ token: 't' }, { name: 'n' }],
      secretHash: 'abc',
      empty: { password: null },
    }),
    {
      'mail.smtpUrl': `smtp://user:${REDACTED}@mail.example:587`,
      redis: `redis://:${REDACTED}@h`,
      'mail.smtp.password': REDACTED,
      webhook: { url: 'https://h', secret: REDACTED, kinds: ['a'] },
      list: [{ token: REDACTED }, { name: 'n' }],
      secretHash: REDACTED,
      empty: { password: null },
    },
  );
  assert.equal(redacted('plain'), 'plain');
});

test("the actor is the frame's caller with its address; a key is key:<id>; outside a frame, the system", async () => {
  assert.deepEqual(currentActor(), { id: 'system', name: 'system', address: null });
  const ann = { userId: 'u1', name: 'ann', groups: [] };
  const key = { userId: null, name: 'key:ci', groups: [], key: { id: 'k1', scopes: [] } };
  // Two frames at once, each sees its own across awaits.
  await Promise.all([
    inActorFrame(ann, '10.0.0.1', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(currentActor(), { id: 'u1', name: 'ann', address: '10.0.0.1' });
    }),
    inActorFrame(key, '10.0.0.2', async () => {
      await Promise.resolve();
      assert.deepEqual(currentActor(), { id: 'key:k1', name: 'key:ci', address: '10.0.0.2' });
    }),
    inActorFrame(null, '10.0.0.3', async () => {
      assert.deepEqual(currentActor(), { id: 'system', name: 'system', address: '10.0.0.3' });
    }),
  ]);
  assert.equal(currentActor().id, 'system', 'closed frames are gone');
});
