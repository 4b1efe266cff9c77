import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANONYMOUS } from '../../src/core/permissions.js';
import { programCaller } from '../../src/users/index.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { useServer } from '../helpers/test-server.js';

const ADMIN = programCaller('test').principal;

/**
 * Issue 38, item 7: no back door beside the grants object. A store's `usage` and `peek` and the
 * webhooks' `list`, `add`, `remove` and `deliveries` take a caller and check the backend
 * permission (core/grants.ts `backendGrants`): an anonymous caller is refused with 401, an
 * account that is not an administrator with 403, whatever program or page calls them.
 */
describe('administrator-only calls check their caller', () => {
  const s = useServer({ fileStores: { files: {} } });

  const refusals = async (call: (caller: typeof ADMIN) => Promise<unknown>) => {
    const token = await s.createUser(`someone${Math.random().toString(36).slice(2, 8)}`);
    const user = await s.roost.users.authenticate(token);
    assert.ok(user);
    const codes: string[] = [];
    for (const caller of [ANONYMOUS, user.principal])
      await call(caller).then(
        () => codes.push('answered'),
        (err: { code?: string }) => codes.push(String(err.code)),
      );
    return codes;
  };

  test("a store's usage and peek answer administrators only", async () => {
    const data = s.roost.dataStores.get('data');
    const files = s.roost.fileStores.get('files');
    assert.ok(data && files);
    await s.request('/data/api/newItem', { key: 'secret', value: 'kept' }, { token: await s.adminToken() });
    assert.deepEqual(await refusals((c) => data.usage(c)), ['not_signed_in', 'not_allowed']);
    assert.deepEqual(await refusals((c) => data.peek(c, 'secret')), ['not_signed_in', 'not_allowed']);
    assert.deepEqual(await refusals((c) => files.usage(c)), ['not_signed_in', 'not_allowed']);
    assert.deepEqual(await refusals((c) => files.peek(c, 'x')), ['not_signed_in', 'not_allowed']);
    assert.equal((await data.usage(ADMIN)).items, 1);
    assert.equal((await data.peek(ADMIN, 'secret'))?.value, 'kept');
  });

  test('webhooks are listed, added and removed by administrators only', async () => {
    const hook = await receiver();
    try {
      const input = { url: hook.url, service: 'data', kinds: [] };
      assert.deepEqual(await refusals((c) => s.roost.webhooks.add(c, input)), ['not_signed_in', 'not_allowed']);
      assert.deepEqual(await s.roost.webhooks.list(ADMIN), [], 'nothing was added');
      const added = await s.roost.webhooks.add(ADMIN, input);
      assert.deepEqual(await refusals((c) => s.roost.webhooks.list(c)), ['not_signed_in', 'not_allowed']);
      assert.deepEqual(await refusals((c) => s.roost.webhooks.deliveries(c, added.id, 10)), [
        'not_signed_in',
        'not_allowed',
      ]);
      assert.deepEqual(await refusals((c) => s.roost.webhooks.remove(c, added.id)), ['not_signed_in', 'not_allowed']);
      assert.deepEqual(
        (await s.roost.webhooks.list(ADMIN)).map((h) => h.id),
        [added.id],
      );
      assert.equal(await s.roost.webhooks.remove(ADMIN, added.id), true);
    } finally {
      await hook.close();
    }
  });
});
