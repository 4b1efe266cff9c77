import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Told } from '../../src/core/events.js';
import { ds } from '../helpers/datastore.js';
import { authCookie, csrfOf, getPage, postForm, textOf, type PageResult } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * The admin lists of issue 42, item 6 (page-kit/list-table.ts, page-kit/bulk-delete.ts) over
 * HTTP: sort by a column's header, hostile sorts refused with the keys named, the bulk delete's
 * counting question and its per-row report, through the services (their events), refused
 * without the CSRF token or to a signed-in user who is no administrator, and two administrators
 * deleting overlapping rows at once.
 */
describe('admin lists: sort, filter, bulk delete', () => {
  let token: string;
  let cookie: string;
  let csrf: string;
  const s = useServer({ dataStores: { data: { maxBatch: 10 } } });

  /** The messages a redirect flashed (page-kit/page-reply.ts: base64url JSON, then its signature). */
  function flashed(res: PageResult): string[] {
    const raw = /roost_flash=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
    return JSON.parse(Buffer.from(raw.split('.')[0] ?? '', 'base64url').toString('utf8')) as string[];
  }
  const keys = async () => (await ds(s, 'keys', {}, { token })).body.keys as string[];
  const idsOf = async (wanted: readonly string[]) => {
    const items = (await ds(s, 'list', { key: [...wanted] }, { token })).body.items as Array<{
      id: number;
      key: string;
    }>;
    return items.map((it) => String(it.id));
  };
  /**
   * POST ids to a bulk delete page, as the list's form (or with `confirm$`, as the question's
   * button) does: the page, its text, and the messages a redirect flashed.
   */
  async function bulk(path: string, ids: readonly string[], confirm = false) {
    const body = new URLSearchParams([
      ['csrf', csrf],
      ...(confirm ? [['confirm$', '1']] : []),
      ...ids.map((id) => ['id', id]),
    ]);
    const res = await fetch(`${s.url}${path}`, { method: 'POST', body, headers: { cookie }, redirect: 'manual' });
    const page = {
      status: res.status,
      html: await res.text(),
      headers: res.headers,
      location: res.headers.get('location'),
    };
    return { ...page, text: textOf(page.html), messages: page.status === 303 ? flashed(page) : [] };
  }
  /** The text of a column's cells, in the table's order. */
  const column = (html: string, label: string) =>
    [...html.matchAll(new RegExp(`<td data-label="${label}"[^>]*>(.*?)</td>`, 'g'))].map((m) =>
      textOf(m[1] ?? '').trim(),
    );

  before(async () => {
    token = await s.adminToken();
    for (const [name, email] of [
      ['carol', 'z@example.com'],
      ['bob', 'y@example.com'],
      ['alice', 'x@example.com'],
    ] as const)
      await s.createUser(name, { email });
    for (const [i, key] of ['pear', 'apple', 'fig', 'kiwi', 'lime', 'plum'].entries())
      await ds(s, 'setItem', { key, value: `v${5 - i}` }, { token });
    cookie = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin/data/data', cookie)).html);
  });

  test('users sort by any sortable column, both ways; the sort rides along the pager and the search', async () => {
    const byEmail = await getPage(s, '/admin/users?sort=email', cookie);
    assert.equal(byEmail.status, 200);
    assert.deepEqual(column(byEmail.html, 'Name'), ['admin', 'alice', 'bob', 'carol']);
    assert.match(byEmail.html, /aria-sort="ascending"><a href="\/admin\/users\?sort=-email"/);
    const descending = await getPage(s, '/admin/users?sort=-email&search=example', cookie);
    assert.deepEqual(column(descending.html, 'Name'), ['carol', 'bob', 'alice', 'admin']);
    assert.match(descending.html, /name="sort" value="-email"/, 'the search form keeps the sort');
    const byCreated = await getPage(s, '/admin/users?sort=-created', cookie);
    assert.deepEqual(column(byCreated.html, 'Name'), ['alice', 'bob', 'carol', 'admin']);
  });

  test('data store items sort by key, value and change time; the filter narrows', async () => {
    assert.deepEqual(column((await getPage(s, '/admin/data/data?sort=-key', cookie)).html, 'Key'), [
      'plum',
      'pear',
      'lime',
      'kiwi',
      'fig',
      'apple',
    ]);
    assert.deepEqual(column((await getPage(s, '/admin/data/data?sort=value', cookie)).html, 'Key'), [
      'plum',
      'lime',
      'kiwi',
      'fig',
      'apple',
      'pear',
    ]);
    assert.deepEqual(column((await getPage(s, '/admin/data/data?sort=-timestamp&prefix=p', cookie)).html, 'Key'), [
      'plum',
      'pear',
    ]);
  });

  test('a hostile sort is refused with the keys named and runs no query; the table stays whole', async () => {
    for (const sort of ['password_hash', 'name; DROP TABLE users', '__proto__', '--name', 'name"', '-']) {
      const users = await getPage(s, `/admin/users?sort=${encodeURIComponent(sort)}`, cookie);
      assert.equal(users.status, 422, sort);
      assert.match(textOf(users.html), /Sort by one of name, realname, email, created, activity/);
      assert.doesNotMatch(users.html, /DROP TABLE/, 'the value is not echoed');
      const items = await getPage(s, `/admin/data/data?sort=${encodeURIComponent(sort)}`, cookie);
      assert.equal(items.status, 422, sort);
      assert.match(textOf(items.html), /Sort by one of key, timestamp, value/);
    }
    assert.equal((await keys()).length, 6);
    assert.equal(column((await getPage(s, '/admin/users', cookie)).html, 'Name').length, 4);
  });

  test('bulk delete of items: the question counts and names them; the answer deletes through the service', async () => {
    const ids = await idsOf(['fig', 'kiwi']);
    const seen: Told[] = [];
    const stop = s.roost.events.onAny((event) => seen.push(event));
    try {
      const ask = await postForm(s, '/admin/data/data/delete', { csrf, id: ids[0] ?? '', id2: '' }, { cookie });
      assert.equal(ask.status, 200);
      assert.match(textOf(ask.html), /Delete 1 item\?.*Deleted for good, this cannot be undone: 1 item\./);
      const question = await bulk('/admin/data/data/delete', [...ids, ids[0] ?? '']);
      assert.match(question.text, /Delete 2 items\?/, 'a repeated id counts once');
      assert.match(question.text, /fig.*kiwi/);
      assert.deepEqual((await keys()).length, 6, 'the question deletes nothing');
      const done = await bulk('/admin/data/data/delete', ids, true);
      assert.equal(done.status, 303);
      assert.equal(done.location, '/admin/data/data');
      assert.deepEqual(done.messages, ['2 items deleted.']);
      assert.deepEqual((await keys()).sort(), ['apple', 'lime', 'pear', 'plum']);
      assert.deepEqual(seen.filter((e) => e.kind === 'item.removed').length, 2, 'one event per item, as any delete');
    } finally {
      stop();
    }
  });

  test('hostile and unknown ids are reported per row; the others still go', async () => {
    const [lime] = await idsOf(['lime']);
    const res = await postForm(
      s,
      '/admin/data/data/delete',
      { csrf, id: '1 OR 1=1', confirm$: '1' },
      { cookie, urlencoded: true },
    );
    assert.equal(res.status, 303);
    assert.deepEqual(flashed(res), ['0 items deleted.', '1 OR 1=1: This is no item id.']);
    const mixed = await bulk('/admin/data/data/delete', ['999999', lime ?? ''], true);
    assert.deepEqual(mixed.messages, ['1 item deleted.', '999999: already gone.']);
    assert.deepEqual((await keys()).sort(), ['apple', 'pear', 'plum']);
  });

  test('without the CSRF token, from another site, or by a non-administrator: nothing is deleted', async () => {
    const [apple] = await idsOf(['apple']);
    const fields = { id: apple ?? '', confirm$: '1' };
    assert.equal((await postForm(s, '/admin/data/data/delete', fields, { cookie })).status, 403);
    assert.equal((await postForm(s, '/admin/data/data/delete', { ...fields, csrf: 'x' }, { cookie })).status, 403);
    const cross = await postForm(
      s,
      '/admin/data/data/delete',
      { ...fields, csrf },
      {
        cookie,
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      },
    );
    assert.equal(cross.status, 403);
    const alice = await authCookie(s, 'alice');
    const aliceCsrf = csrfOf((await getPage(s, '/users/account', alice)).html);
    const refused = await postForm(s, '/admin/data/data/delete', { ...fields, csrf: aliceCsrf }, { cookie: alice });
    assert.equal(refused.status, 403);
    const users = await postForm(
      s,
      '/admin/users/delete',
      { id: 'x', csrf: aliceCsrf, confirm$: '1' },
      { cookie: alice },
    );
    assert.equal(users.status, 403);
    assert.deepEqual((await keys()).sort(), ['apple', 'pear', 'plum']);
    // Without JavaScript a GET of the question has nothing to ask: back to the list.
    const get = await getPage(s, '/admin/data/data/delete', cookie);
    assert.equal(get.status, 303);
    assert.equal(get.location, '/admin/data/data');
  });

  test('two administrators deleting overlapping items at once: each item deleted once, the rest reported', async () => {
    for (let i = 0; i < 20; i++)
      await ds(s, 'setItem', { key: `race-${String(i).padStart(2, '0')}`, value: 'r' }, { token });
    const race = (await ds(s, 'list', { prefix: 'race-', size: 50 }, { token })).body.items as Array<{ id: number }>;
    const ids = race.map((it) => String(it.id));
    const send = (chosen: readonly string[]) => bulk('/admin/data/data/delete', chosen, true);
    const answers = await Promise.all([send(ids.slice(0, 15)), send(ids.slice(5)), send(ids.slice(5, 15))]);
    let deleted = 0;
    let gone = 0;
    for (const res of answers) {
      assert.equal(res.status, 303);
      const [first = '', ...rest] = res.messages;
      deleted += Number(/^(\d+) items? deleted\.$/.exec(first)?.[1]);
      gone += rest.length;
    }
    assert.equal(deleted, 20, 'each of the 20 deleted by exactly one of the three');
    assert.ok(gone <= 15, `${gone} reported gone`);
    assert.deepEqual((await keys()).sort(), ['apple', 'pear', 'plum']);
  });

  test('file entries: sort, filter by kind, bulk delete of files and a directory with its contents', async () => {
    const put = (path: string, raw: string) =>
      s.request(`/files/${path}/@write`, undefined, { token, method: 'PUT', raw });
    await s.request('/files/@newItem', { name: 'docs', type: 'd' }, { token });
    await put('docs/inner.txt', 'inside');
    await put('a.txt', 'aaaa');
    await put('b.txt', 'b');
    const dir = '/admin/files/files/';
    assert.deepEqual(column((await getPage(s, dir, cookie)).html, 'Name'), ['dir docs', 'a.txt', 'b.txt']);
    assert.deepEqual(column((await getPage(s, `${dir}?sort=-name`, cookie)).html, 'Name'), [
      'dir docs',
      'b.txt',
      'a.txt',
    ]);
    assert.deepEqual(column((await getPage(s, `${dir}?sort=size&type=f`, cookie)).html, 'Name'), ['b.txt', 'a.txt']);
    assert.deepEqual(column((await getPage(s, `${dir}?type=d`, cookie)).html, 'Name'), ['dir docs']);
    for (const query of ['sort=owner', 'sort=name%3B', 'type=x', 'type=F', 'sort=-']) {
      const res = await getPage(s, `${dir}?${query}`, cookie);
      assert.equal(res.status, 422, query);
      assert.match(
        textOf(res.html),
        /Sort by one of name, size, mime, mtime|Show all entries, files \(f\) or directories/,
      );
    }
    const question = await bulk(`${dir}?delete-selected`, ['a.txt', 'docs']);
    assert.match(question.text, /Delete 2 entries\?.*A directory goes with everything in it\./);
    const done = await bulk(`${dir}?delete-selected`, ['a.txt', 'docs', '../b.txt', 'nothing-here'], true);
    assert.equal(done.status, 303);
    assert.equal(done.location, '/admin/files/files');
    const [count, ...rows] = done.messages;
    assert.equal(count, '2 entries deleted.');
    assert.equal(rows.length, 2);
    assert.match(rows[0] ?? '', /^\.\.\/b\.txt: /);
    assert.match(rows[1] ?? '', /^nothing-here: /);
    // Three administrators deleting the same two files at once: each deleted, and told, once.
    await put('x.txt', 'x');
    await put('y.txt', 'y');
    const seen: Told[] = [];
    const stop = s.roost.events.onAny((event) => seen.push(event));
    try {
      const answers = await Promise.all([0, 1, 2].map(() => bulk(`${dir}?delete-selected`, ['x.txt', 'y.txt'], true)));
      const deleted = answers.map((a) => Number(/^(\d+) entr/.exec(a.messages[0] ?? '')?.[1]));
      assert.equal(
        deleted.reduce((a, b) => a + b, 0),
        2,
        `deleted ${deleted.join(', ')}`,
      );
      assert.equal(seen.filter((e) => e.kind === 'file.removed').length, 2, 'one event per file');
    } finally {
      stop();
    }
    const left = await s.request('/files/@list', undefined, { token });
    assert.deepEqual(
      (left.body.items as Array<{ name: string }>).map((e) => e.name),
      ['b.txt'],
    );
  });

  test('bulk removal of accounts: counted and named; the own account is refused for its row', async () => {
    const list = await getPage(s, '/admin/users', cookie);
    const idOf = (name: string) =>
      new RegExp(`value="([0-9a-f-]{36})" aria-label="Select ${name}"`).exec(list.html)?.[1] ?? '';
    const chosen = [idOf('bob'), idOf('carol'), idOf('admin')];
    const question = await bulk('/admin/users/delete', chosen);
    assert.match(question.text, /Delete 3 accounts\?/);
    assert.match(question.text, /bob carol admin/);
    const done = await bulk('/admin/users/delete', chosen, true);
    assert.equal(done.status, 303);
    assert.deepEqual(done.messages, [
      '2 accounts deleted.',
      `${idOf('admin')}: You cannot remove your own account here.`,
    ]);
    assert.deepEqual(column((await getPage(s, '/admin/users', cookie)).html, 'Name'), ['admin', 'alice']);
  });
});
