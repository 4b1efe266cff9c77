import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

// Group names may hold LIKE wildcards (`_`, `%`); the search matches them literally.
const s = useServer();
before(async () => {
  await s.createUser('under', { groups: ['my_group'] });
  await s.createUser('lookalike', { groups: ['myxgroup'] });
  await s.createUser('percent', { groups: ['100%'] });
});

test('list by a group with an underscore finds its members only', async () => {
  const res = await s.users('list', { group: 'my_group' }, { token: await s.adminToken() });
  assert.deepEqual(
    res.body.users.map((u: { name: string }) => u.name),
    ['under'],
  );
  assert.equal(res.body.total, 1);
});

test('list by a group with a percent sign finds its members only', async () => {
  const res = await s.users('identities', { group: '100%' }, { token: await s.adminToken() });
  assert.deepEqual(
    res.body.users.map((u: { name: string }) => u.name),
    ['percent'],
  );
});
