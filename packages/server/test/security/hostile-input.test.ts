import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';
import { send } from './support/calls.js';
import { PROTOTYPE_WORDS } from './support/hostile.js';
import { snapshot, snapshotDiff } from './support/snapshot.js';

/**
 * The cases the property tests found, pinned down one by one so they stay fixed whatever seed
 * the properties run with.
 */
describe('hostile input: cases the property tests found', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('alice');
  });

  test('a permission named like a member of every object (constructor, __proto__) is unknown, not a 500', async () => {
    for (const path of ['/users/api/allowed', '/data/api/allowed', '/files/api/allowed', '/files/docs/@allowed']) {
      for (const name of PROTOTYPE_WORDS) {
        for (const caller of [{ token }, {}]) {
          const res = await s.request(path, { permission: [name, 'ping'] }, caller);
          assert.equal(res.status, 200, `${path} ${name}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.result, false, `${path} ${name}`);
          assert.equal(res.body.ping, true);
        }
      }
    }
  });

  test('JSON nested deeper than 64 levels: 400 too_deep, nothing stored, whatever the operation', async () => {
    const before = await snapshot(s.roost);
    const nest = (depth: number, open: string, close: string) => `${open.repeat(depth)}1${close.repeat(depth)}`;
    const cases: Array<[string, string]> = [
      ['/users/api/update', `{"data":${nest(100_000, '{"a":', '}')}}`],
      ['/users/api/update', `{"realname":"x","data":${nest(65, '[', ']')}}`],
      ['/users/api/setUser', `{"identity":"alice","values":${nest(5000, '{"data":', '}')}}`],
      ['/data/api/setItem', `{"key":"k","value":${nest(400_000, '[', ']')}}`],
      ['/data/api/setItem', `{"items":${nest(2000, '[', ']')}}`],
      ['/files/@newItem', `{"name":"deep.txt","contents":${nest(3000, '{"a":', '}')}}`],
    ];
    for (const [path, body] of cases) {
      const res = await send(s.url, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'x-auth-token': token },
        body,
      });
      assert.equal(res.status, 400, `${path}: ${res.text.slice(0, 200)}`);
      assert.equal((res.json as { code: string }).code, 'too_deep');
    }
    assert.deepEqual(snapshotDiff(before, await snapshot(s.roost)), []);
  });

  test('64 levels are still fine (a profile `data` object, say)', async () => {
    let data: unknown = 'leaf';
    for (let i = 0; i < 63; i++) data = { a: data };
    const res = await s.users('update', { data }, { token });
    assert.deepEqual(res.body, { result: true });
  });

  test('lone surrogates in user text are refused, not stored as replacement characters', async () => {
    const before = (await s.users('profile', {}, { token })).body;
    for (const field of ['realname', 'data']) {
      const res = await s.users('update', { [field]: 'a\ud800b' }, { token });
      assert.equal(res.body.result, false, field);
      assert.deepEqual(res.body.invalid, [[field, 'invalid']]);
    }
    assert.deepEqual((await s.users('profile', {}, { token })).body, before);
    // Paired surrogates (an emoji) are text like any other.
    assert.deepEqual((await s.users('update', { realname: 'A 😀' }, { token })).body, { result: true });
    assert.equal((await s.users('profile', {}, { token })).body.realname, 'A 😀');
  });

  test('lone surrogates in file names and new paths: 422 invalid_path, nothing stored', async () => {
    const before = await snapshot(s.roost);
    const created = await s.request('/files/@newItem', { name: 'a\ud800b.txt', contents: 'x' }, { token });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    assert.equal(created.body.code, 'invalid_path');
    assert.deepEqual(snapshotDiff(before, await snapshot(s.roost)), []);
    assert.equal((await s.request('/files/@newItem', { name: 'ok.txt', contents: 'x' }, { token })).status, 200);
    const moved = await s.request('/files/ok.txt/@move', { newpath: '/\udc00.txt' }, { token });
    assert.equal(moved.status, 422);
    assert.equal(moved.body.code, 'invalid_path');
    assert.equal((await s.request('/files/ok.txt/@getItem', {}, { token })).status, 200);
  });

  test('a broken multipart body (no boundary, not multipart, cut short): 400, nothing stored', async () => {
    assert.equal((await s.request('/files/@newItem', { name: 'up', type: 'd' }, { token })).status, 200);
    assert.equal(
      (await s.request('/files/up/@newItem', { name: 'kept.txt', contents: 'kept' }, { token })).status,
      200,
    );
    const before = await snapshot(s.roost);
    const part = (name: string, body: string, filename?: string) =>
      `--b\r\nContent-Disposition: form-data; ` +
      `name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${body}`;
    const cases: Array<[string, string, string]> = [
      ['/files/up/@newItem', 'multipart/form-data', '{"name":"x.txt"}'],
      ['/files/up/@newItem', 'multipart/form-data; boundary=b', '{"name":"x.txt"}'],
      [
        '/files/up/@newItem',
        'multipart/form-data; boundary=b',
        `${part('name', 'x.txt')}\r\n${part('file', 'half a file', 'x.txt')}`,
      ],
      ['/files/up/kept.txt/@setItem', 'multipart/form-data; boundary=b', part('file', 'y'.repeat(100_000), 'kept.txt')],
      ['/files/up/kept.txt/@write', 'multipart/form-data; boundary=b', part('file', 'z', 'kept.txt')],
      ['/files/up/kept.txt/@write', 'multipart/form-data; boundary=', '--\r\n\r\n'],
    ];
    for (const [path, type, body] of cases) {
      const res = await send(s.url, {
        method: 'POST',
        path,
        headers: { 'content-type': type, 'x-auth-token': token },
        body,
      });
      assert.equal(res.status, 400, `${path} ${type}: ${res.text.slice(0, 200)}`);
      assert.equal((res.json as { code: string }).code, 'malformed_multipart');
    }
    assert.deepEqual(snapshotDiff(before, await snapshot(s.roost)), []);
    const kept = await fetch(`${s.url}/files/up/kept.txt`, { headers: { 'x-auth-token': token } });
    assert.equal(await kept.text(), 'kept');
  });
});
