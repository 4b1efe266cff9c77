import { request as httpRequest } from 'node:http';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ds } from '../helpers/datastore.js';
import { authCookie, csrfOf, getPage, postForm, textOf, type PageResult } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * Bad input on every form of the store pages — missing, wrong, oversized, hostile — answers
 * with a clear message on the page and stores nothing. Paths that try to leave the store are
 * refused; hostile keys and names are escaped in the HTML and encoded in links.
 */
describe('admin store pages: bad input is said on the page and changes nothing', () => {
  let token: string;
  let cookie: string;
  let csrf: string;
  let itemId: number;

  const post = (path: string, fields: Record<string, string | Blob | { name: string; blob: Blob }>) =>
    postForm(s, path, { ...fields, csrf }, { cookie });
  /** A refused submission: 422 (or the given status), the words on the page. */
  function refused(res: PageResult, words: RegExp, status = 422): void {
    assert.equal(res.status, status, textOf(res.html).slice(0, 300));
    assert.match(textOf(res.html), words);
  }
  const keys = async () => (await ds(s, 'keys', {}, { token })).body.keys as string[];
  const names = async (dir = '') =>
    ((await s.request(`/files/${dir}@list`, undefined, { token })).body.items as Array<{ name: string }>).map(
      (e) => e.name,
    );

  const s = useServer({
    bodyLimit: 16 * 1024,
    dataStores: { data: { maxKeyLength: 40, maxValueBytes: 1000 } },
    fileStores: { files: { maxFileBytes: 4096 } },
  });
  before(async () => {
    token = await s.adminToken();
    await s.createUser('alice');
    itemId = (await ds(s, 'newItem', { key: 'existing', value: 'original' }, { token })).body.success[0][1];
    await s.request('/files/@newItem', { name: 'docs', type: 'd' }, { token });
    await s.request('/files/docs/a.txt/@write', undefined, { token, method: 'PUT', raw: 'original file' });
    cookie = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin/data/data/new', cookie)).html);
  });

  test('new item: missing, too long, control characters, not a number, unknown owner, taken, oversized', async () => {
    const create = (fields: Record<string, string>) =>
      post('/admin/data/data/new', { type: 'text', value: 'v', create$: 'create$', ...fields });
    refused(await create({ key: '' }), /Key: Required/);
    refused(await create({ key: '   ' }), /Key: Required/);
    refused(await create({ key: 'k'.repeat(41) }), /Too long: at most 40 characters/);
    refused(await create({ key: 'bad\u0001key' }), /control characters/);
    refused(await create({ key: 'n', value: 'abc', type: 'number' }), /Not a number/);
    refused(await create({ key: 'n', value: 'v'.repeat(1001) }), /Too long: at most 1000 bytes/);
    refused(await create({ key: 'n', type: 'float' }), /Stored as/);
    refused(await create({ key: 'n', owner: 'nobody-here' }), /There is no such user/);
    refused(await create({ key: 'existing' }), /An item with this key exists already/);
    refused(await create({ key: 'nul\u0000key' }), /NUL character/, 400);
    refused(await create({ key: 'big', value: 'v'.repeat(20 * 1024) }), /A field is longer than 16384 bytes/, 413);
    refused(
      await post('/admin/data/data/new', {
        key: 'file',
        value: 'v',
        type: 'text',
        create$: 'create$',
        attached: new Blob(['x']),
      }),
      /This form takes no file/,
      400,
    );
    assert.deepEqual(await keys(), ['existing']);
  });

  test('item page: value and owner refused as the store says; wrong ids and stores are 404 pages', async () => {
    const page = `/admin/data/data/items/${itemId}`;
    refused(
      await post(page, { value: 'x'.repeat(1001), type: 'text', save$: 'save$' }),
      /Too long: at most 1000 bytes/,
    );
    refused(await post(page, { value: '1e999', type: 'number', save$: 'save$' }), /Not a number/);
    refused(await post(page, { owner: '', give$: 'give$' }), /New owner: Required/);
    refused(await post(page, { owner: '<script>x</script>', give$: 'give$' }), /There is no such user/);
    const item = await ds(s, 'getItem', { key: 'existing' }, { token });
    assert.deepEqual([item.body.value, item.body.owner], ['original', 'admin']);
    for (const path of [
      '/admin/data/data/items/abc',
      '/admin/data/data/items/99999',
      '/admin/data/data/items/1e3/delete',
      '/admin/data/nostore',
      '/admin/data/nostore/new',
      '/admin/data/__proto__',
    ]) {
      refused(await getPage(s, path, cookie), /no such item|no data store of that name/, 404);
    }
  });

  test('item list: a refused filter is a message; nonsense paging falls back, a nonsense sort is refused', async () => {
    const res = await getPage(s, `/admin/data/data?prefix=${'p'.repeat(50)}`, cookie);
    assert.equal(res.status, 200);
    assert.match(textOf(res.html), /The filter is not valid: prefix too long/);
    const odd = await getPage(s, '/admin/data/data?start=-4&size=abc', cookie);
    assert.equal(odd.status, 200);
    assert.match(textOf(odd.html), /Items 1–1 of 1/);
    refused(
      await getPage(s, '/admin/data/data?sort=%3Cscript%3E', cookie),
      /Sort by one of key, timestamp, value \(a "-" in front for descending\)/,
    );
  });

  test('directory and upload forms: bad names, taken names, missing and oversized files', async () => {
    const mkdir = (name: string) => post('/admin/files/files/docs/', { dirname: name, mkdir$: 'mkdir$' });
    refused(await mkdir(''), /Name: Required/);
    refused(await mkdir('..'), /may not be "\." or "\.\."/);
    refused(await mkdir('a/b'), /may not contain "\/"/);
    refused(await mkdir('%2e%2e'), /percent-encoded/);
    refused(await mkdir('@list'), /may not start with "@"/);
    refused(await mkdir('a.txt'), /Already taken/);
    refused(await mkdir('n'.repeat(300)), /at most 255 bytes/);
    const upload = (fields: Record<string, string | Blob | { name: string; blob: Blob }>) =>
      post('/admin/files/files/docs/', { upload$: 'upload$', ...fields });
    refused(await upload({}), /File: Required/);
    refused(await upload({ file: { name: 'ok.txt', blob: new Blob(['x']) }, name: '..' }), /may not be "\." or "\.\."/);
    refused(await upload({ file: { name: 'a.txt', blob: new Blob(['x']) } }), /tick “Replace” to overwrite/);
    refused(
      await upload({ file: { name: 'big.bin', blob: new Blob([new Uint8Array(5000)]) } }),
      /larger than this store allows \(4096 bytes\)/,
      413,
    );
    // By ajax (the upload form's script), a refusal is the form or a message for the page to show.
    const ajax = await postForm(
      s,
      '/admin/files/files/docs/',
      { upload$: 'upload$', csrf, name: 'x/y', file: { name: 'x', blob: new Blob(['x']) } },
      { cookie, headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    assert.equal(ajax.headers.get('x-result'), 'false');
    assert.doesNotMatch(ajax.html, /<html/);
    assert.match(textOf(ajax.html), /may not contain "\/"/);
    assert.deepEqual(await names('docs/'), ['a.txt']);
    assert.deepEqual(await names(), ['docs']);
    // A file name with a path: the parser keeps its last segment, so it lands here, nowhere else.
    const traversal = await upload({ file: { name: '../../etc/passwd', blob: new Blob(['x']) } });
    assert.equal(traversal.status, 302);
    assert.deepEqual(await names('docs/'), ['a.txt', 'passwd']);
    assert.deepEqual(await names(), ['docs']);
    await s.request('/files/docs/passwd/@removeItem', {}, { token });
  });

  test('move and owner forms: paths outside the store, into itself, to nowhere; unknown owners', async () => {
    const move = (from: string, newpath: string) => post(from, { newpath, move$: 'move$' });
    refused(await move('/admin/files/files/docs/a.txt', '/../../etc/passwd'), /may not be "\." or "\.\."/);
    refused(await move('/admin/files/files/docs/a.txt', ''), /New path: Required/);
    refused(await move('/admin/files/files/docs/a.txt', '/nowhere/a.txt'), /The directory of newpath does not exist/);
    refused(await move('/admin/files/files/docs/', '/docs/inner'), /cannot move onto the root or into itself/);
    refused(await move('/admin/files/files/docs/', '/'), /cannot move onto the root or into itself/);
    refused(
      await post('/admin/files/files/docs/a.txt', { owner: 'nobody-here', give$: 'give$' }),
      /There is no such user/,
    );
    assert.deepEqual(await names('docs/'), ['a.txt']);
    assert.equal((await s.request('/files/docs/a.txt', undefined, { token })).body, 'original file');
  });

  test('paths that try to leave the store are refused before anything is looked up', async () => {
    // Sent as they are: fetch would resolve the dot segments before sending, a hostile client does not.
    const raw = (path: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const url = new URL(s.url);
        const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { cookie } }, (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (text += c))
            .on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of [
      '/admin/files/files/docs/../../../etc/passwd',
      '/admin/files/files/..%2F..%2Fetc%2Fpasswd',
      '/admin/files/files/%2e%2e/x',
      '/admin/files/files/docs/%2E%2E/%2E%2E/x',
      '/admin/files/files/./docs',
      '/admin/files/files/a%2Fb',
      '/admin/files/files/docs//a.txt',
      '/admin/files/files/api/x',
      '/admin/files/files/docs/a%5C..%5Cb',
    ]) {
      const res = await raw(path);
      assert.equal(res.status, 422, path);
      assert.match(textOf(res.text), /not valid|may not|prefix/, path);
    }
    // Text that is no UTF-8 at all is refused by the router already.
    assert.equal((await raw('/admin/files/files/%ff')).status, 400);
    for (const path of ['/admin/files/nostore/', '/admin/files/files/missing/', '/admin/files/files/docs/missing.txt'])
      assert.equal((await getPage(s, path, cookie)).status, 404, path);
  });

  test('hostile keys and names are escaped in the page and encoded in its links', async () => {
    const key = `<script>alert(1)</script>"'&`;
    await ds(s, 'newItem', { key, value: '<img src=x onerror=alert(2)>' }, { token });
    const list = await getPage(s, '/admin/data/data', cookie);
    assert.doesNotMatch(list.html, /<script>alert|<img src=x/);
    assert.match(list.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&#39;&amp;/);
    const name = `q"><svg onload=alert(3)> ü #?%.txt`;
    await s.request(`/files/docs/${encodeURIComponent(name)}/@write`, undefined, { token, method: 'PUT', raw: 'x' });
    const dir = await getPage(s, '/admin/files/files/docs/', cookie);
    assert.doesNotMatch(dir.html, /<svg/);
    const href = `/admin/files/files/docs/${encodeURIComponent(name)}`;
    assert.ok(dir.html.includes(`href="${href}"`), 'the link encodes the name');
    const file = await getPage(s, href, cookie);
    assert.equal(file.status, 200);
    assert.ok(file.html.includes('q&quot;&gt;&lt;svg onload=alert(3)&gt; ü #?%.txt'));
  });
});
