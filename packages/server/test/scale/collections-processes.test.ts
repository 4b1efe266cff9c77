import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, onPostgres, useTwoProcesses } from './scale-helpers.js';

/**
 * Issue 39: a collection made, changed or removed by an administrator on one process is known
 * to the others on the same database at once (the `collection.changed` event over the change
 * feed, collections/collections-service.ts): its records are served there, by its new schema,
 * and not at all once it is gone. A write on another process right after a change is checked by
 * the new schema even before that process hears of it.
 */
describe('collections across two processes on PostgreSQL', {
  skip: onPostgres ? false : 'runs in the PostgreSQL pass (SQLite has one process)',
}, () => {
  const two = useTwoProcesses({});

  test('made on A, its records are served by B; changed on A, B checks by the new schema; removed, gone', async () => {
    const { a, b } = two;
    const admin = await a.adminToken();
    const onB = (path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${b.url}${path}`, {
        method: init.method ?? 'GET',
        headers: { 'content-type': 'application/json', 'x-auth-token': admin },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    const rules = { list: '', view: '', create: '', update: '', delete: '' };
    const schema = { type: 'object', properties: { text: { type: 'string' } } };
    assert.equal(
      (await a.request('/api/collections', { name: 'shared', schema, rules }, { token: admin })).status,
      201,
    );
    await eventually(
      async () =>
        (await onB('/api/collections/shared/records', { method: 'POST', body: { text: 'from B' } })).status === 201,
      'B serves the collection A made',
    );
    const stricter = { ...schema, required: ['text'] };
    const changed = await a.request(
      '/api/collections/shared',
      { schema: stricter, rules },
      { token: admin, method: 'PUT' },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    // At once, whether or not B has heard of the change: a write checked by the schema before is
    // not stored (collections/records-repo.ts `versionGuard`), B reads the new one and checks again.
    const first = await onB('/api/collections/shared/records', { method: 'POST', body: {} });
    assert.equal(first.status, 422, 'the first write on B after the change is checked by the new schema');
    assert.equal(
      (await a.request('/api/collections/shared', undefined, { token: admin, method: 'DELETE' })).status,
      204,
    );
    await eventually(
      async () => (await onB('/api/collections/shared/records')).status === 404,
      'B no longer serves it',
    );
  });
});
