import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

/**
 * The file store requests of the original connectors, replayed as they send them
 * (shared/reference/original-services.md §1.2 and §4): every path under `/api/`, JSON without a
 * Content-Type (Python), `null` for unset options, the path repeated in the body (jQuery),
 * empty JSON bodies (AngularJS), raw PUT for `@write`, and answers that are always objects.
 */
describe('file store: the wire forms of the original connectors', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('carol');
  });

  /** Python: POST, JSON body, no Content-Type at all, token in `x-auth-token`. */
  const python = async (path: string, values: unknown) => {
    const res = await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: { 'x-auth-token': token },
      body: new Blob([JSON.stringify(values)]).stream(),
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  test('Python: newItem, write (PUT), getItem, list with nulls, read and download', async () => {
    assert.deepEqual(
      (
        await python('/files/api/@newItem', {
          name: 'site',
          type: 'directory',
          contents: null,
          mime: null,
          header: null,
          decode: null,
        })
      ).body,
      { result: 1, success: ['site'] },
    );
    const created = await python('/files/api/site/@newItem', {
      name: 'index.html',
      type: 'file',
      contents: Buffer.from('<h1>hi</h1>').toString('base64'),
      decode: true,
      mime: 'text/html',
      header: 'max-age=30',
    });
    assert.equal(created.body.result, 1);
    const put = await fetch(`${s.url}/files/api/site/index.html/@write`, {
      method: 'PUT',
      headers: { 'x-auth-token': token, 'content-type': 'text/html' },
      body: '<h1>hello</h1>',
    });
    assert.deepEqual(await put.json(), { result: true });
    const item = await python('/files/api/site/index.html/@getItem', { path: 'site/index.html' });
    assert.deepEqual(
      [item.body.name, item.body.size, item.body.mime, item.body.header],
      ['index.html', 14, 'text/html', 'max-age=30'],
    );
    const list = await python('/files/api/site/@list', { type: null, sort: 'path', order: '<', size: 50, start: 1 });
    assert.ok(Array.isArray(list.body.items));
    assert.equal((list.body.items as unknown[]).length, 1);
    const download = await fetch(`${s.url}/files/api/site/index.html`, { headers: { 'x-auth-token': token } });
    assert.deepEqual(
      [download.status, download.headers.get('cache-control'), await download.text()],
      [200, 'max-age=30', '<h1>hello</h1>'],
    );
    const empty = await python('/files/api/@list', { path: null, type: 'd' });
    assert.deepEqual(
      (empty.body.items as { name: string }[]).map((i) => i.name),
      ['site'],
    );
    const move = await python('/files/api/site/index.html/@move', { newpath: '/site/home.html' });
    assert.deepEqual(move.body, { result: true });
    const removed = await python('/files/api/site/@removeItem', { recursive: true });
    assert.deepEqual(removed.body, { result: 2 });
    assert.deepEqual((await python('/files/api/@ping', {})).body, { result: 1 });
  });

  test('jQuery: JSON POSTs with the path repeated in the body; failures carry a message', async () => {
    const post = (path: string, values: unknown) =>
      s.request(path, values, { token, headers: { 'content-type': 'application/json; charset=UTF-8' } });
    assert.equal((await post('/files/api/@newItem', { path: '', name: 'notes', type: 'd' })).status, 200);
    assert.equal(
      (await post('/files/api/notes/@newItem', { path: 'notes', name: 'a.txt', type: 'f', contents: 'a' })).body.result,
      1,
    );
    assert.deepEqual((await post('/files/api/notes/a.txt/@write', { path: 'notes/a.txt', contents: 'b' })).body, {
      result: true,
    });
    const missing = await post('/files/api/notes/x.txt/@move', { path: 'notes/x.txt', newpath: 'y.txt' });
    assert.deepEqual(
      [missing.status, missing.body.result, missing.body.code, typeof missing.body.message],
      [404, false, 'not_found', 'string'],
    );
    const notEmpty = await post('/files/api/notes/@removeItem', { path: 'notes' });
    assert.deepEqual([notEmpty.body.result, notEmpty.body.code], [0, 'not_empty']);
    const list = await s.request('/files/api/notes/@list', undefined, {
      token,
      method: 'GET',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(list.body.items.length, 1);
  });

  test('AngularJS: an empty body with a JSON content type', async () => {
    const res = await fetch(`${s.url}/files/api/@ping`, {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=utf-8' },
    });
    assert.deepEqual(await res.json(), { result: 1 });
    const owner = await fetch(`${s.url}/files/api/@getOwner`, {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=utf-8', 'x-auth-token': token },
    });
    assert.deepEqual(await owner.json(), { result: true, owner: '' });
  });
});
