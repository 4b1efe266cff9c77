import { createHash } from 'node:crypto';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ds } from '../helpers/datastore.js';
import { authCookie, CROSS_SITE, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * Nobody but an administrator gets an admin store page or runs an admin store action: not
 * anonymous, not a signed-in ordinary user, with or without a CSRF token, and no form sent
 * from another site. Each refused post is checked to have changed nothing.
 */
describe('admin store pages: only administrators, only from this site, only with the CSRF token', () => {
  let adminToken: string;
  let aliceToken: string;
  let admin: string;
  let alice: string;
  let adminCsrf: string;
  let itemId: number;

  const PAGES = [
    '/admin/data',
    '/admin/data/data',
    '/admin/data/data/new',
    '/admin/data/data/items/ITEM',
    '/admin/data/data/items/ITEM/delete',
    '/admin/files',
    '/admin/files/files/',
    '/admin/files/files/docs/',
    '/admin/files/files/docs/a.txt',
    '/admin/files/files/docs/a.txt?delete',
  ];
  /** Every action of the store pages, as its form posts it. */
  const ACTIONS: Array<[string, string, Record<string, string | Blob>]> = [
    ['create item', '/admin/data/data/new', { key: 'intruder', value: 'x', type: 'text', create$: 'create$' }],
    ['edit value', '/admin/data/data/items/ITEM', { value: 'hacked', type: 'text', save$: 'save$' }],
    ['change owner', '/admin/data/data/items/ITEM', { owner: 'alice', give$: 'give$' }],
    ['delete item', '/admin/data/data/items/ITEM/delete', { confirm: 'yes', remove$: 'remove$' }],
    ['make directory', '/admin/files/files/', { dirname: 'intruder', mkdir$: 'mkdir$' }],
    ['upload', '/admin/files/files/docs/', { file: new Blob(['intruder']), name: 'intruder.txt', upload$: 'upload$' }],
    ['move', '/admin/files/files/docs/a.txt', { newpath: '/moved.txt', move$: 'move$' }],
    ['change file owner', '/admin/files/files/docs/a.txt', { owner: 'alice', give$: 'give$' }],
    ['delete file', '/admin/files/files/docs/a.txt?delete', { confirm: 'yes', remove$: 'remove$' }],
    ['delete directory', '/admin/files/files/docs/?delete', { confirm: 'yes', remove$: 'remove$' }],
  ];
  const at = (path: string) => path.replace('ITEM', String(itemId));

  /** The state every refused action must leave as it was. */
  async function state() {
    const item = await ds(s, 'getItem', { id: itemId }, { token: adminToken });
    const keys = await ds(s, 'keys', {}, { token: adminToken });
    const top = await s.request('/files/@list', undefined, { token: adminToken });
    const docs = await s.request('/files/docs/@list', undefined, { token: adminToken });
    const owner = await s.request('/files/docs/a.txt/@getOwner', undefined, { token: adminToken });
    const contents = await s.request('/files/docs/a.txt', undefined, { token: adminToken });
    return {
      item: [item.body.key, item.body.value, item.body.owner],
      keys: keys.body.keys,
      files: [
        top.body.items.map((e: { name: string }) => e.name),
        docs.body.items.map((e: { name: string }) => e.name),
      ],
      fileOwner: owner.body.owner,
      contents: contents.body,
    };
  }

  const s = useServer();
  before(async () => {
    adminToken = await s.adminToken();
    aliceToken = await s.createUser('alice');
    itemId = (await ds(s, 'newItem', { key: 'kept', value: 'original' }, { token: adminToken })).body.success[0][1];
    await s.request('/files/@newItem', { name: 'docs', type: 'd' }, { token: adminToken });
    await s.request('/files/docs/a.txt/@write', undefined, { token: adminToken, method: 'PUT', raw: 'original file' });
    admin = await authCookie(s, 'admin');
    alice = await authCookie(s, 'alice');
    adminCsrf = csrfOf((await getPage(s, '/admin/data/data/new', admin)).html);
  });

  test('an administrator gets every page (the control)', async () => {
    for (const path of PAGES) assert.equal((await getPage(s, at(path), admin)).status, 200, path);
  });

  test('anonymous: every page redirects to the sign-in page and shows nothing', async () => {
    for (const path of PAGES) {
      const res = await getPage(s, at(path));
      assert.equal(res.status, 303, path);
      assert.equal(res.location, `/admin/signin?next=${encodeURIComponent(at(path))}`);
      assert.doesNotMatch(res.html, /kept|original|a\.txt/);
    }
  });

  test('a signed-in ordinary user: 403 on every page, nothing shown', async () => {
    for (const path of PAGES) {
      const res = await getPage(s, at(path), alice);
      assert.equal(res.status, 403, path);
      assert.doesNotMatch(res.html, /kept|original|a\.txt|csrf/);
    }
  });

  test('every action posted directly is refused, and nothing changes', async () => {
    const before = await state();
    // Alice's own CSRF token is what she could derive from her own session.
    const aliceCsrf = createHash('sha256').update(`roost-csrf\0${aliceToken}`).digest('base64url');
    for (const [name, path, fields] of ACTIONS) {
      const url = at(path);
      const tries: Array<[string, Awaited<ReturnType<typeof postForm>>, number]> = [
        ['anonymous', await postForm(s, url, fields), 303],
        ['anonymous with a token', await postForm(s, url, { ...fields, csrf: adminCsrf }), 303],
        ['ordinary user', await postForm(s, url, fields, { cookie: alice }), 403],
        [
          "ordinary user with the admin's token",
          await postForm(s, url, { ...fields, csrf: adminCsrf }, { cookie: alice }),
          403,
        ],
        [
          'ordinary user with her own token',
          await postForm(s, url, { ...fields, csrf: aliceCsrf }, { cookie: alice }),
          403,
        ],
        ['administrator without a token', await postForm(s, url, fields, { cookie: admin }), 403],
        [
          'administrator with a wrong token',
          await postForm(s, url, { ...fields, csrf: 'x'.repeat(43) }, { cookie: admin }),
          403,
        ],
        [
          'administrator with the token of another session',
          await postForm(s, url, { ...fields, csrf: aliceCsrf }, { cookie: admin }),
          403,
        ],
        [
          'administrator, from another site',
          await postForm(s, url, { ...fields, csrf: adminCsrf }, { cookie: admin, headers: CROSS_SITE }),
          403,
        ],
        [
          'administrator, from another origin',
          await postForm(
            s,
            url,
            { ...fields, csrf: adminCsrf },
            { cookie: admin, headers: { origin: 'https://evil.example' } },
          ),
          403,
        ],
        [
          'administrator, urlencoded without a token',
          await postForm(s, url, fields, { cookie: admin, urlencoded: true }),
          403,
        ],
      ];
      for (const [who, res, status] of tries)
        assert.equal(res.status, status, `${name}: ${who} got ${res.status} ${textOf(res.html).slice(0, 200)}`);
      const refusal = tries[5]?.[1] as Awaited<ReturnType<typeof postForm>>;
      assert.match(textOf(refusal.html), /The form is out of date or was sent from another site/);
      assert.match(textOf((tries[8]![1] as typeof refusal).html), /Cross-site requests/);
    }
    assert.deepEqual(await state(), before);
  });

  test('the same post with the token, from this site, works (the refusals above are not an accident)', async () => {
    const res = await postForm(
      s,
      '/admin/data/data/new',
      { key: 'made-by-admin', value: 'ok', type: 'text', create$: 'create$', csrf: adminCsrf },
      { cookie: admin, headers: { 'sec-fetch-site': 'same-origin' } },
    );
    assert.equal(res.status, 302);
    assert.match(res.location ?? '', /^\/admin\/data\/data\/items\/\d+$/);
    assert.equal((await ds(s, 'getItem', { key: 'made-by-admin' }, { token: adminToken })).body.value, 'ok');
  });

  test('the API refuses the ordinary user the same actions (the pages add no way around it)', async () => {
    assert.equal((await ds(s, 'setOwner', { key: 'kept', newOwner: 'alice' }, { token: aliceToken })).status, 403);
    assert.equal((await ds(s, 'setItem', { key: 'kept', value: 'x' }, { token: aliceToken })).status, 403);
  });
});
