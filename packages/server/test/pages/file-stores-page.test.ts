import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, getPage, textOf } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * `/admin/files` (src/admin/store-pages/file-store-pages.ts) lists each store's limit of one
 * file, `maxFileBytes`. It was headed "Largest file", which reads as the largest file stored.
 */
describe('admin: the file stores page', () => {
  let admin: string;
  const s = useServer({ fileStores: { files: {}, photos: { maxFileBytes: 5 * 1024 * 1024 } } });
  before(async () => {
    await s.createUser('boss', { groups: ['admins'] });
    admin = await authCookie(s, 'boss');
    const token = await s.adminToken();
    const put = await s.request('/files/api/@newItem', { name: 'small.txt', type: 'f', contents: 'tiny' }, { token });
    assert.equal(put.status, 200);
  });

  test('names the column a limit, and shows each store its own', async () => {
    const page = await getPage(s, '/admin/files', admin);
    assert.equal(page.status, 200);
    const text = textOf(page.html).replace(/\s+/g, ' ');
    assert.match(text, /File size limit/);
    assert.doesNotMatch(text, /Largest file/);
    assert.match(text, /photos \d+ sys:authenticated 5\.0 MB/);
    assert.match(text, /files \d+ sys:authenticated 1024\.0 MB/);
  });
});
