import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer, PASSWORD } from '../helpers/test-server.js';

describe('users: the README walk-through', () => {
  const s = useServer();

  test('admin enables signupDirect, a user signs up, gets a token and reads the profile', async () => {
    const denied = await s.users('signupDirect', { name: 'alice', email: 'alice@example.com', password: PASSWORD });
    assert.equal(denied.status, 403);
    await s.grant('signupDirect', ['sys:everyone']);
    const signup = await s.users('signupDirect', { name: 'alice', email: 'alice@example.com', password: PASSWORD });
    assert.deepEqual(signup.body, { result: true });
    const token = await s.users('token', { identity: 'alice', password: PASSWORD });
    assert.equal(typeof token.body.token, 'string');
    const profile = await s.request('/users/api/profile', undefined, { token: token.body.token });
    assert.equal(profile.status, 200);
    assert.equal(profile.body.name, 'alice');
    assert.equal(profile.body.active, true);
    assert.match(profile.body.activity, /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
  });
});
