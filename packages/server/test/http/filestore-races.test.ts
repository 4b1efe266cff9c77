import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer, type TestServer } from '../helpers/test-server.js';
import { snapshot } from '../security/support/snapshot.js';

/**
 * The file store under parallel callers and restricted creation (filestore-service.ts): a move
 * is a creation in its target directory, `@write` is create-or-replace whatever the
 * concurrency, and no entry outlives its parent.
 */

/** Blobs stored (local files or S3 objects) and blobs the entries name: equal when nothing is orphaned. */
async function blobAccounting(s: TestServer): Promise<{ stored: number; named: number }> {
  const snap = await snapshot(s.roost);
  const stored = snap.files.filter((f) => f.startsWith('blobs') || f.startsWith('s3:')).length;
  const named = (snap.tables.file_entries ?? []).filter((row) => row.blob_id !== null).length;
  return { stored, named };
}

describe('file store: a move needs what creating in its target needs', () => {
  let admin: string;
  let alice: string;
  const s = useServer();
  before(async () => {
    admin = await s.adminToken();
    alice = await s.createUser('alice');
    const as = (token: string) => (path: string, body: unknown) => s.request(`/files/api/${path}`, body, { token });
    assert.equal((await as(admin)('@newItem', { name: 'restricted', type: 'd' })).status, 200);
    assert.equal((await as(alice)('@newItem', { name: 'own', type: 'd' })).status, 200);
    for (const name of ['a.txt', 'b.txt', 'c.txt'])
      assert.equal((await as(alice)('own/@newItem', { name, type: 'f', contents: name })).status, 200);
    const restrict = await s.request(
      '/files/@setPermissions',
      { permissions: [{ permission: 'newItem', groups: ['sys:owner', 'admins'], action: 'replace' }] },
      { token: admin },
    );
    assert.equal(restrict.body.result, true);
  });

  test("creating in another user's directory and in the root is refused", async () => {
    assert.equal(
      (await s.request('/files/api/restricted/@newItem', { name: 'x.txt', type: 'f', contents: 'x' }, { token: alice }))
        .status,
      403,
    );
    assert.equal(
      (await s.request('/files/api/@newItem', { name: 'x.txt', type: 'f', contents: 'x' }, { token: alice })).status,
      403,
    );
  });

  test('so is moving an own file into that directory or into the root; the file stays where it was', async () => {
    for (const newpath of ['restricted/a.txt', 'a.txt']) {
      const res = await s.request('/files/api/own/a.txt/@move', { newpath }, { token: alice });
      assert.equal(res.status, 403, newpath);
      assert.equal(res.body.result, false);
      assert.equal((await s.request(`/files/api/${newpath}/@getItem`, {}, { token: admin })).status, 404);
      assert.equal((await s.request('/files/api/own/a.txt/@getItem', {}, { token: alice })).status, 200);
    }
    const dir = await s.request('/files/api/own/@move', { newpath: 'restricted/own' }, { token: alice });
    assert.equal(dir.status, 403, 'a whole directory neither');
  });

  test('a move inside the own directory still works, and administrators move anywhere', async () => {
    assert.equal(
      (await s.request('/files/api/own/b.txt/@move', { newpath: 'own/b2.txt' }, { token: alice })).status,
      200,
    );
    assert.equal(
      (await s.request('/files/api/own/c.txt/@move', { newpath: 'restricted/c.txt' }, { token: admin })).status,
      200,
    );
  });
});

describe('file store: parallel @write to a new path', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('writer');
  });

  test('50 writes at once to a new file in an existing directory', async () => {
    assert.equal((await s.request('/files/api/@newItem', { name: 'race', type: 'd' }, { token })).status, 200);
    const contents = Array.from({ length: 50 }, (_, i) => `contents of write ${i} `.repeat(i + 1));
    const answers = await Promise.all(
      contents.map((body) =>
        s.request('/files/race/new.txt/@write', undefined, {
          token,
          method: 'PUT',
          raw: body,
          headers: { 'content-type': 'text/plain' },
        }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      contents.map(() => 200),
      JSON.stringify(answers.find((a) => a.status !== 200)?.body),
    );
    const read = await fetch(`${s.url}/files/race/new.txt`, { headers: { 'x-auth-token': token } });
    assert.ok(contents.includes(await read.text()), "one write's contents, whole");
    const listed = await s.request('/files/api/race/@list', {}, { token });
    assert.equal(listed.body.total, 1);
    // Replaced blobs are deleted after the answer; give the deletes a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { stored, named } = await blobAccounting(s);
    assert.equal(named, 1);
    assert.equal(stored, named, 'no orphaned blob');
  });
});

describe('file store: a recursive remove racing creates in the same directory', () => {
  let token: string;
  const s = useServer();
  before(async () => {
    token = await s.createUser('racer');
  });

  /** Entries whose directory does not exist (none may). */
  async function orphans(): Promise<string[]> {
    const rows = await s.roost.db.selectFrom('file_entries').select(['path', 'parent', 'type']).execute();
    const dirs = new Set(rows.filter((r) => r.type === 'd').map((r) => r.path));
    return rows.filter((r) => r.parent !== '' && !dirs.has(r.parent)).map((r) => r.path);
  }

  for (const round of [1, 2, 3]) {
    test(`round ${round}: 48 creates and moves in against a remove: no entry outlives its directory`, async () => {
      const op = (path: string, body: unknown) => s.request(`/files/api/${path}`, body, { token });
      assert.equal((await op('@newItem', { name: 'box', type: 'd' })).status, 200);
      assert.equal((await op('box/@newItem', { name: 'sub', type: 'd' })).status, 200);
      for (let i = 0; i < 4; i++)
        assert.equal((await op('@newItem', { name: `loose-${round}-${i}.txt`, type: 'f', contents: 'x' })).status, 200);
      const creates = Array.from({ length: 48 }, (_, i) => {
        switch (i % 4) {
          case 0:
            return op('box/@newItem', { name: `f${i}.txt`, type: 'f', contents: `file ${i}` });
          case 1:
            return op('box/@newItem', { name: `d${i}`, type: 'd' });
          case 2:
            return op('box/sub/@newItem', { name: `g${i}.txt`, type: 'f', contents: `deep ${i}` });
          default:
            return i < 16
              ? op(`loose-${round}-${i >> 2}.txt/@move`, { newpath: `box/sub/m${i}.txt` })
              : s.request(`/files/box/w${i}.txt/@write`, undefined, {
                  token,
                  method: 'PUT',
                  raw: `w ${i}`,
                  headers: { 'content-type': 'text/plain' },
                });
        }
      });
      const removal = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 5 * round));
        return op('box/@removeItem', { recursive: true });
      })();
      const answers = await Promise.all([...creates, removal]);
      for (const a of answers) assert.ok(a.status < 500, JSON.stringify(a.body));
      assert.equal(answers.at(-1)!.status, 200, 'the removal succeeded');
      assert.deepEqual(await orphans(), []);
      assert.equal((await op('box/@getItem', {})).status, 404);
      // A new directory of the same name starts empty.
      assert.equal((await op('@newItem', { name: 'box', type: 'd' })).status, 200);
      assert.equal((await op('box/@list', {})).body.total, 0);
      assert.equal((await op('box/@removeItem', { recursive: true })).status, 200);
      for (let i = 0; i < 4; i++) await op(`loose-${round}-${i}.txt/@removeItem`, {});
    });
  }
});
