import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentActor, inActorFrame, REDACTED, redacted, setFrameActor } from './audit.js';

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
  await inActorFrame('10.0.0.1', async () => {
    assert.deepEqual(currentActor(), { id: 'system', name: 'system', address: '10.0.0.1' });
    setFrameActor({ userId: 'u1', name: 'ann', groups: [] });
    await Promise.resolve();
    assert.deepEqual(currentActor(), { id: 'u1', name: 'ann', address: '10.0.0.1' });
    setFrameActor({ userId: null, name: 'key:ci', groups: [], key: { id: 'k1', scopes: [] } });
    assert.deepEqual(currentActor(), { id: 'key:k1', name: 'key:ci', address: '10.0.0.1' });
  });
  assert.equal(currentActor().id, 'system');
});
