import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, getPage } from '../helpers/pages.js';
import { PASSWORD, useServer } from '../helpers/test-server.js';

/**
 * The account pages read accounts through the user service's own operations, which check the
 * caller's permissions (core/grants.ts), never through a program's unchecked handle: an
 * administrator whose `list` or `getUser` entry is taken away sees the sign-ups no more than the
 * API would show them (issue 38, item 7).
 */
describe('the sign-up pages check the user service permissions of the administrator', () => {
  const s = useServer();

  test('without `list` the sign-ups page is refused; without `getUser` a sign-up is', async () => {
    await s.adminToken();
    await s.grant('signupReview', ['sys:everyone']);
    await s.users('signupReview', { name: 'carol', email: 'carol@example.com', password: PASSWORD });
    const admin = await authCookie(s, 'admin');
    const listed = await getPage(s, '/admin/signups', admin);
    assert.equal(listed.status, 200);
    const id = /\/admin\/signups\/([^"/]+)"/.exec(listed.html)?.[1] ?? '';
    assert.equal((await getPage(s, `/admin/signups/${id}`, admin)).status, 200);

    await s.grant('list', []);
    assert.equal((await getPage(s, '/admin/signups', admin)).status, 403);
    await s.grant('getUser', []);
    assert.equal((await getPage(s, `/admin/signups/${id}`, admin)).status, 403);
    assert.equal((await getPage(s, `/admin/signups/${id}/reject`, admin)).status, 403);
  });
});
