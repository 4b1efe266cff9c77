import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, useServer } from '../helpers/test-server.js';
import { postForm } from '../helpers/pages.js';

/**
 * Values that end up in response headers: a redirect after sign-in (`next`) and a file's stored
 * type. A header must be Latin-1 without CR or LF; such input once made Roost answer 500 with
 * Fastify's own body (after signing the user in) or made a file unreadable for everyone.
 */
describe('a sign-in redirect to a path outside Latin-1', () => {
  const s = useServer();
  before(async () => {
    await s.createUser('snow', { groups: ['admins'] });
  });

  for (const [page, next, expected] of [
    ['/users/signin', '/%E2%98%83', '/%E2%98%83'],
    ['/users/signin', '/caf%C3%A9?q=%E2%82%AC', '/caf%C3%A9?q=%E2%82%AC'],
    ['/admin/signin', '/admin/%E2%98%83', '/admin/%E2%98%83'],
    ['/users/signin', '/x%ED%A0%80', '/x%ED%A0%80'],
  ] as const) {
    test(`${page}?next=${next}: signed in and sent there, encoded`, async () => {
      const res = await postForm(
        s,
        `${page}?next=${next}`,
        { identity: 'snow', password: PASSWORD, signin$: 'signin$' },
        { headers: { origin: s.url } },
      );
      assert.equal(res.status, 303, res.html.slice(0, 300));
      assert.equal(res.location, expected);
      assert.match(res.headers.get('set-cookie') ?? '', /auth=/);
    });
  }

  test('the same path in the POSTed form field', async () => {
    const res = await postForm(
      s,
      '/users/signin',
      { identity: 'snow', password: PASSWORD, next: '/☃/é', signin$: 'signin$' },
      { headers: { origin: s.url } },
    );
    assert.equal(res.status, 303);
    assert.equal(res.location, '/%E2%98%83/%C3%A9');
  });

  test('a signed-in user opening the sign-in page with such a next is redirected, not failed', async () => {
    const signin = await s.request('/users/api/signin', { identity: 'snow', password: PASSWORD });
    const cookie = signin.headers.get('set-cookie')?.split(';')[0] ?? '';
    const res = await fetch(`${s.url}/users/signin?next=/%E2%98%83`, { redirect: 'manual', headers: { cookie } });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/%E2%98%83');
  });
});

describe('a file type outside printable ASCII', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('typer');
  });

  for (const mime of [
    'text/plain; x="☃"',
    'text/plain; x="a\r\nSet-Cookie: a=b"',
    'text/plain; x="\u0007"',
    'text/plain; x="é"',
  ]) {
    test(`${JSON.stringify(mime)} is refused with 422 on newItem, setItem and @write; nothing is stored`, async () => {
      const created = await s.request(
        '/files/api/@newItem',
        { name: 'typed.txt', type: 'f', contents: 'hi', mime },
        { token },
      );
      assert.equal(created.status, 422);
      assert.deepEqual(created.body.invalid, [['mime', 'invalid']]);
      assert.equal((await s.request('/files/api/typed.txt/@getItem', {}, { token })).status, 404);
      assert.equal(
        (await s.request('/files/api/@newItem', { name: 'plain.txt', type: 'f', contents: 'hi' }, { token })).status,
        200,
      );
      const set = await s.request('/files/api/plain.txt/@setItem', { mime }, { token });
      assert.equal(set.status, 422);
      const write = await s.request(`/files/api/plain.txt/@write?mime=${encodeURIComponent(mime)}`, undefined, {
        token,
        method: 'PUT',
        raw: 'new',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(write.status, 422);
      assert.equal((await s.request('/files/api/plain.txt/@getItem', {}, { token })).body.mime, 'text/plain');
      assert.equal((await s.request('/files/api/plain.txt/@removeItem', {}, { token })).status, 200);
    });
  }

  test('a type stored before the check is served as application/octet-stream, not a 500', async () => {
    assert.equal(
      (await s.request('/files/api/@newItem', { name: 'old.txt', type: 'f', contents: 'old contents' }, { token }))
        .status,
      200,
    );
    await s.roost.db
      .updateTable('file_entries')
      .set({ mime: 'text/plain; x="☃"\r\n' })
      .where('name', '=', 'old.txt')
      .execute();
    const read = await fetch(`${s.url}/files/old.txt`, { headers: { 'x-auth-token': token } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('content-type'), 'application/octet-stream');
    assert.equal(await read.text(), 'old contents');
    const api = await s.request('/files/api/old.txt/@read', {}, { token });
    assert.equal(api.status, 200);
  });
});
