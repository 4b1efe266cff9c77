import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

const TIME = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/;

describe('file store: every operation', () => {
  let alice: string;
  const s = useServer();
  before(async () => {
    alice = await s.createUser('alice');
  });

  const op = (path: string, body: unknown = {}, token = alice) => s.request(`/files/api/${path}`, body, { token });

  test('ping and allowed at the seed paths and under any path', async () => {
    for (const path of ['/files/api/ping', '/files/@ping', '/files/api/@ping', '/files/any/dir/@ping']) {
      const res = await s.request(path, {});
      assert.deepEqual([res.status, res.body.result], [200, 1], path);
    }
    const get = await s.request('/files/api/ping');
    assert.equal(get.body.result, 1);
    const allowed = await s.request('/files/api/allowed', { permission: ['getItem', 'newItem'] }, { token: alice });
    assert.deepEqual(allowed.body, { result: true, getItem: true, newItem: true });
    const anonymous = await s.request('/files/api/allowed', { permission: ['getItem', 'ping'] });
    assert.deepEqual(anonymous.body, { result: false, getItem: false, ping: true });
  });

  test('newItem makes directories and files; getItem shows the entry', async () => {
    assert.deepEqual((await op('@newItem', { name: 'docs', type: 'd' })).body, { result: 1, success: ['docs'] });
    assert.equal((await op('docs/@newItem', { name: 'deep', type: 'directory' })).body.result, 1);
    const created = await op('docs/deep/@newItem', {
      name: 'note.txt',
      type: 'f',
      contents: 'hello',
      mime: 'text/markdown',
      cache: 'max-age=60',
    });
    assert.deepEqual(created.body, { result: 1, success: ['note.txt'] });
    const item = await op('docs/deep/note.txt/@getItem');
    assert.equal(item.status, 200);
    assert.equal(item.body.name, 'note.txt');
    assert.equal(item.body.type, 'f');
    assert.equal(item.body.size, 5);
    assert.equal(item.body.mime, 'text/markdown');
    assert.equal(item.body.cache, 'max-age=60');
    assert.equal(item.body.header, 'max-age=60');
    assert.match(item.body.mtime, TIME);
    assert.match(item.body.ctime, TIME);
    const dir = await s.request('/files/docs/@getItem', undefined, { token: alice });
    assert.deepEqual([dir.body.type, dir.body.size, dir.body.mime], ['d', 0, '']);
    const root = await op('@getItem');
    assert.deepEqual([root.body.type, root.body.name], ['d', '']);
  });

  test('newItem: base64 contents with decode, the header alias, file type words, an empty file', async () => {
    await op('@newItem', { name: 'bin', type: 'd' });
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    assert.equal(
      (
        await op('bin/@newItem', {
          name: 'b.dat',
          type: 'file',
          contents: bytes.toString('base64'),
          decode: true,
          header: 'no-store',
        })
      ).status,
      200,
    );
    const read = await fetch(`${s.url}/files/bin/b.dat`, { headers: { 'x-auth-token': alice } });
    assert.deepEqual(Buffer.from(await read.arrayBuffer()), bytes);
    assert.equal(read.headers.get('cache-control'), 'no-store');
    assert.equal((await op('bin/b.dat/@getItem')).body.cache, 'no-store');
    assert.equal((await op('bin/@newItem', { name: 'empty.txt' })).status, 200);
    const empty = await op('bin/empty.txt/@getItem');
    assert.deepEqual([empty.body.size, empty.body.type, empty.body.mime], [0, 'f', 'text/plain']);
    const bad = await op('bin/@newItem', { name: 'c.dat', contents: '!!!', decode: true });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.invalid, [['contents', 'invalid']]);
  });

  test('newItem refuses an existing name, a file as parent, a missing parent and a missing name', async () => {
    await op('@newItem', { name: 'once.txt', contents: 'x' });
    const again = await op('@newItem', { name: 'once.txt', contents: 'y' });
    assert.equal(again.status, 422);
    assert.equal(again.body.result, 0);
    assert.deepEqual(again.body.invalid, [['name', 'exists']]);
    const inFile = await op('once.txt/@newItem', { name: 'x' });
    assert.deepEqual([inFile.status, inFile.body.code], [422, 'not_a_directory']);
    const missing = await op('nowhere/@newItem', { name: 'x' });
    assert.deepEqual([missing.status, missing.body.code], [404, 'not_found']);
    const noName = await op('@newItem', { type: 'f' });
    assert.deepEqual([noName.status, noName.body.invalid], [422, [['name', 'required']]]);
    const badType = await op('@newItem', { name: 'x', type: 'q' });
    assert.deepEqual([badType.status, badType.body.invalid], [422, [['type', 'invalid']]]);
  });

  test('setItem changes contents or meta information', async () => {
    await op('@newItem', { name: 'page.html', contents: '<p>a</p>' });
    assert.equal((await op('page.html/@getItem')).body.mime, 'text/html');
    assert.deepEqual((await op('page.html/@setItem', { contents: '<p>longer</p>' })).body, { result: 1 });
    const item = await op('page.html/@getItem');
    assert.equal(item.body.size, 13);
    await op('page.html/@setItem', { mime: 'text/plain', cache: 'public, max-age=3600' });
    const meta = await op('page.html/@getItem');
    assert.deepEqual([meta.body.mime, meta.body.cache, meta.body.size], ['text/plain', 'public, max-age=3600', 13]);
    const badMime = await op('page.html/@setItem', { mime: 'not a type' });
    assert.deepEqual([badMime.status, badMime.body.invalid], [422, [['mime', 'invalid']]]);
    await op('@newItem', { name: 'folder', type: 'd' });
    assert.equal((await op('folder/@setItem', { cache: 'no-cache' })).status, 200);
    const dirContents = await op('folder/@setItem', { contents: 'x' });
    assert.deepEqual([dirContents.status, dirContents.body.code], [422, 'not_a_file']);
  });

  test('write: PUT with the raw body, POST as JSON, form fields, and creating a new file', async () => {
    const put = await s.request('/files/api/w.json/@write', undefined, {
      token: alice,
      method: 'PUT',
      raw: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([put.status, put.body], [200, { result: true }]);
    const item = await op('w.json/@getItem');
    assert.deepEqual([item.body.size, item.body.mime], [7, 'application/json']);
    const read = await s.request('/files/api/w.json/@read', {}, { token: alice });
    assert.deepEqual(read.body, { a: 1 });
    await s.request('/files/w.json/@write', { contents: '[1,2]' }, { token: alice });
    assert.deepEqual((await s.request('/files/w.json', undefined, { token: alice })).body, [1, 2]);
    const form = await s.request('/files/w.json/@write', undefined, {
      token: alice,
      raw: 'contents=%5B3%5D',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 200);
    assert.deepEqual((await s.request('/files/w.json', undefined, { token: alice })).body, [3]);
    const none = await s.request('/files/w.json/@write', {}, { token: alice });
    assert.deepEqual([none.status, none.body.invalid], [422, [['contents', 'required']]]);
    const octet = await s.request('/files/raw.bin/@write', undefined, {
      token: alice,
      method: 'POST',
      raw: 'abc',
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(octet.status, 200);
    // Neither the declared octet-stream nor `.bin` says more than the contents: text.
    assert.equal((await op('raw.bin/@getItem')).body.mime, 'text/plain');
    // A declared type that is not a media type (or too long to keep) is passed over.
    await s.request('/files/odd.txt/@write', undefined, {
      token: alice,
      method: 'PUT',
      raw: 'x',
      headers: { 'content-type': `text/${'x'.repeat(300)}` },
    });
    assert.equal((await op('odd.txt/@getItem')).body.mime, 'text/plain');
    const dir = await s.request('/files/bin/@write', undefined, { token: alice, method: 'PUT', raw: 'x' });
    assert.deepEqual([dir.status, dir.body.code], [422, 'not_a_file']);
  });

  test('multipart uploads: newItem with fields before the file, setItem and write', async () => {
    const form = new FormData();
    form.append('name', 'photo.gif');
    form.append('cache', 'max-age=10');
    form.append('file', new Blob([Buffer.from('GIF89a...')]), 'ignored-name');
    const res = await fetch(`${s.url}/files/@newItem`, {
      method: 'POST',
      body: form,
      headers: { 'x-auth-token': alice },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const item = await op('photo.gif/@getItem');
    assert.deepEqual([item.body.size, item.body.mime, item.body.cache], [9, 'image/gif', 'max-age=10']);
    const replace = new FormData();
    replace.append('file', new Blob([Buffer.from('GIF87a')], { type: 'image/gif' }), 'x.gif');
    assert.equal(
      (
        await fetch(`${s.url}/files/photo.gif/@write`, {
          method: 'POST',
          body: replace,
          headers: { 'x-auth-token': alice },
        })
      ).status,
      200,
    );
    assert.equal((await op('photo.gif/@getItem')).body.size, 6);
    const dirWithFile = new FormData();
    dirWithFile.append('name', 'gallery');
    dirWithFile.append('type', 'd');
    dirWithFile.append('file', new Blob([Buffer.alloc(200_000, 7)]), 'ignored.bin');
    dirWithFile.append('cache', 'after the file');
    const dir = await fetch(`${s.url}/files/@newItem`, {
      method: 'POST',
      body: dirWithFile,
      headers: { 'x-auth-token': alice },
    });
    assert.equal(dir.status, 200);
    assert.equal((await op('gallery/@getItem')).body.type, 'd');
    const fieldsOnly = new FormData();
    fieldsOnly.append('contents', 'from a form');
    assert.equal(
      (
        await fetch(`${s.url}/files/photo.gif/@setItem`, {
          method: 'POST',
          body: fieldsOnly,
          headers: { 'x-auth-token': alice },
        })
      ).status,
      200,
    );
    assert.equal(
      await (await fetch(`${s.url}/files/photo.gif`, { headers: { 'x-auth-token': alice } })).text(),
      'from a form',
    );
  });

  test('mime from the name, else from the contents', async () => {
    const cases: [string, Buffer, string][] = [
      ['img', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'image/png'],
      ['jpg-data', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0]), 'image/jpeg'],
      ['webp-data', Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 ')]), 'image/webp'],
      ['doc', Buffer.from('%PDF-1.7\n'), 'application/pdf'],
      ['archive', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0]), 'application/zip'],
      ['text', Buffer.from('plain text, ünïcode ✓\n'), 'text/plain'],
      ['binary', Buffer.from([0, 1, 2, 3]), 'application/octet-stream'],
      ['named.css', Buffer.from([0, 1]), 'text/css'],
    ];
    await op('@newItem', { name: 'sniff', type: 'd' });
    for (const [name, bytes, mime] of cases) {
      await s.request(`/files/sniff/${name}/@write`, undefined, {
        token: alice,
        method: 'PUT',
        raw: bytes as unknown as string,
      });
      assert.equal((await op(`sniff/${name}/@getItem`)).body.mime, mime, name);
    }
  });

  test('list: types, sort, order, paging, and the items key', async () => {
    await op('@newItem', { name: 'many', type: 'd' });
    for (const n of ['c.txt', 'a.txt', 'b.txt'])
      await op('many/@newItem', { name: n, contents: n.repeat(n.charCodeAt(0) - 96) });
    await op('many/@newItem', { name: 'sub', type: 'd' });
    const all = await op('many/@list', { type: null, order: null, sort: null, start: null, size: null });
    assert.deepEqual(
      all.body.items.map((i: { name: string }) => i.name),
      ['a.txt', 'b.txt', 'c.txt', 'sub'],
    );
    assert.deepEqual([all.body.start, all.body.size, all.body.total], [1, 50, 4]);
    assert.deepEqual(Object.keys(all.body.items[0]).sort(), [
      'cache',
      'ctime',
      'header',
      'mime',
      'mtime',
      'name',
      'size',
      'type',
    ]);
    const dirs = await op('many/@list', { type: 'd' });
    assert.deepEqual(
      dirs.body.items.map((i: { name: string }) => i.name),
      ['sub'],
    );
    const files = await s.request('/files/many/@list?type=f&sort=size&order=%3E', undefined, { token: alice });
    assert.deepEqual(
      files.body.items.map((i: { name: string }) => i.name),
      ['c.txt', 'b.txt', 'a.txt'],
    );
    const page = await op('many/@list', { type: 'all', start: 2, size: 2 });
    assert.deepEqual([page.body.items.map((i: { name: string }) => i.name), page.body.total], [['b.txt', 'c.txt'], 4]);
    const capped = await op('many/@list', { size: 100_000 });
    assert.equal(capped.body.size, 1000);
    const bad = await op('many/@list', { start: 0, sort: 'owner' });
    assert.deepEqual([bad.status, bad.body.invalid.map((p: string[]) => p[0]).sort()], [422, ['sort', 'start']]);
    const ofFile = await op('many/a.txt/@list');
    assert.deepEqual([ofFile.status, ofFile.body.code], [422, 'not_a_directory']);
  });

  test('move renames files and moves a directory with its contents', async () => {
    await op('@newItem', { name: 'src', type: 'd' });
    await op('src/@newItem', { name: 'inner', type: 'd' });
    await op('src/inner/@newItem', { name: 'x.txt', contents: 'x' });
    await op('src/@newItem', { name: 'y.txt', contents: 'yy' });
    await op('@newItem', { name: 'dest', type: 'd' });
    assert.deepEqual((await op('src/@move', { newpath: '/dest/moved' })).body, { result: true });
    assert.equal((await op('src/@getItem')).status, 404);
    assert.equal((await op('dest/moved/inner/x.txt/@getItem')).body.size, 1);
    assert.equal(
      await (await fetch(`${s.url}/files/dest/moved/y.txt`, { headers: { 'x-auth-token': alice } })).text(),
      'yy',
    );
    assert.deepEqual(
      (await op('dest/moved/@list')).body.items.map((i: { name: string }) => i.name),
      ['inner', 'y.txt'],
    );
    assert.equal((await op('dest/moved/y.txt/@move', { newpath: 'dest/moved/z.txt' })).status, 200);
    assert.equal((await op('dest/moved/z.txt/@getItem')).status, 200);
    const exists = await op('dest/moved/z.txt/@move', { newpath: 'dest/moved/inner' });
    assert.deepEqual([exists.status, exists.body.invalid, exists.body.result], [422, [['newpath', 'exists']], false]);
    const intoItself = await op('dest/@move', { newpath: 'dest/moved/inside' });
    assert.deepEqual([intoItself.status, intoItself.body.invalid], [422, [['newpath', 'invalid']]]);
    const missing = await op('nothing/@move', { newpath: 'x' });
    assert.deepEqual([missing.status, missing.body.code], [404, 'not_found']);
    const noParent = await op('dest/moved/z.txt/@move', { newpath: 'no/such/dir.txt' });
    assert.equal(noParent.status, 404);
    const bad = await op('dest/moved/z.txt/@move', { newpath: '../escape' });
    assert.deepEqual([bad.status, bad.body.code], [422, 'invalid_path']);
  });

  test('removeItem: files, empty and non-empty directories', async () => {
    await op('@newItem', { name: 'trash', type: 'd' });
    await op('trash/@newItem', { name: 'sub', type: 'd' });
    await op('trash/sub/@newItem', { name: 'f.txt', contents: 'f' });
    await op('trash/@newItem', { name: 'g.txt', contents: 'g' });
    const refused = await op('trash/@removeItem');
    assert.deepEqual([refused.status, refused.body.result, refused.body.code], [422, 0, 'not_empty']);
    assert.equal((await op('trash/g.txt/@getItem')).status, 200);
    assert.deepEqual((await op('trash/g.txt/@removeItem')).body, { result: 1 });
    assert.deepEqual((await op('trash/@removeItem', { recursive: 'true' })).body, { result: 3 });
    assert.equal((await op('trash/sub/f.txt/@getItem')).status, 404);
    await op('@newItem', { name: 'hollow', type: 'd' });
    assert.deepEqual((await op('hollow/@removeItem')).body, { result: 1 });
    assert.equal((await op('hollow/@removeItem')).status, 404);
    const root = await op('@removeItem', { recursive: true });
    assert.deepEqual([root.status, root.body.code], [422, 'invalid_path']);
  });

  test('getOwner, setOwner; the creator owns', async () => {
    await s.createUser('bob');
    await op('@newItem', { name: 'owned.txt', contents: 'o' });
    assert.deepEqual((await op('owned.txt/@getOwner')).body, { result: true, owner: 'alice' });
    const admin = await s.adminToken();
    const notAdmin = await op('owned.txt/@setOwner', { owner: 'bob' });
    assert.equal(notAdmin.status, 403);
    assert.deepEqual((await op('owned.txt/@setOwner', { owner: 'bob' }, admin)).body, { result: true });
    assert.equal((await op('owned.txt/@getOwner')).body.owner, 'bob');
    assert.equal((await op('owned.txt/@setOwner', { newOwner: 'ALICE' }, admin)).status, 200);
    assert.equal((await op('owned.txt/@getOwner')).body.owner, 'alice');
    const unknown = await op('owned.txt/@setOwner', { owner: 'nobody' }, admin);
    assert.deepEqual([unknown.status, unknown.body.invalid], [422, [['owner', 'unknown_user']]]);
    const missing = await op('owned.txt/@setOwner', {}, admin);
    assert.deepEqual([missing.status, missing.body.invalid], [422, [['owner', 'required']]]);
  });

  test('getPermissions and setPermissions, per store', async () => {
    const admin = await s.adminToken();
    const got = await op('@getPermissions', {}, admin);
    assert.equal(got.status, 200);
    const map = Object.fromEntries(
      got.body.permissions.map((p: { permission: string; groups: string[] }) => [p.permission, p.groups]),
    );
    assert.deepEqual(map.getItem, ['sys:authenticated', 'admins']);
    assert.deepEqual(map.write, ['sys:owner', 'admins']);
    assert.deepEqual(map.newItem, ['sys:authenticated']);
    assert.equal((await op('@getPermissions')).status, 403);
    const set = await op(
      '@setPermissions',
      { permissions: [{ permission: 'getItem', group: 'sys:everyone', action: 'replace' }] },
      admin,
    );
    assert.equal(set.status, 200);
    assert.equal((await s.request('/files/docs/@getItem', {})).status, 200);
    await op(
      '@setPermissions',
      { permissions: [{ permission: 'getItem', groups: ['sys:authenticated', 'admins'], action: 'replace' }] },
      admin,
    );
    assert.equal((await s.request('/files/docs/@getItem', {})).status, 401);
    const unknown = await op('@setPermissions', { permissions: [{ permission: 'fly', groups: ['admins'] }] }, admin);
    assert.deepEqual([unknown.status, unknown.body.code], [422, 'unknown_permission']);
    // The user service's entries are not the store's.
    const users = await s.users('getPermissions', {}, { token: admin });
    assert.equal(
      users.body.permissions.some((p: { permission: string }) => p.permission === 'newItem'),
      false,
    );
  });

  test("allowed under a path counts sys:owner for the caller's own entry", async () => {
    await op('@newItem', { name: 'mine.txt', contents: 'm' });
    const bob = await s.createUser('bob2');
    const own = await op('mine.txt/@allowed', { permissions: ['write', 'removeItem'] });
    assert.deepEqual(own.body, { result: true, write: true, removeItem: true });
    const other = await op('mine.txt/@allowed', { permission: 'write' }, bob);
    assert.deepEqual(other.body, { result: false, write: false });
    const missing = await op('@allowed', {});
    assert.deepEqual([missing.status, missing.body.invalid], [422, [['permission', 'required']]]);
  });

  test('GET with the query, and the path repeated in the body as jQuery sends it', async () => {
    const get = await s.request('/files/docs/deep/@list?size=1', undefined, { token: alice });
    assert.deepEqual([get.status, get.body.size, get.body.items.length], [200, 1, 1]);
    const viaBody = await s.request('/files/api/@getItem', { path: 'docs/deep/note.txt' }, { token: alice });
    assert.equal(viaBody.body.name, 'note.txt');
    const unknownOp = await s.request('/files/docs/@fly', {}, { token: alice });
    assert.deepEqual([unknownOp.status, unknownOp.body.code], [404, 'not_found']);
  });
});
