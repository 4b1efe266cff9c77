import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { authCookie, CROSS_SITE, csrfOf, getPage, postForm, textOf, type PageResult } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * Issue 39, item 7: the collection pages over HTTP with hostile and wrong input. A filter,
 * sort or cursor the service refuses is said on the table's page (never a 500); schema text
 * that is not JSON, or not a schema, is said at its field with each problem's path; a change
 * that records would not fit names them; the CSV export keeps cells from running as formulas;
 * an import over its limit is refused whole; every POST without the session's CSRF token, or
 * from another site, is refused before anything changes; only administrators get the pages.
 */
const posts = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 200 },
      priority: { type: 'integer', minimum: 0, maximum: 5 },
      tags: { type: 'array', items: { type: 'string' } },
      address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      ref: { type: 'string', format: 'uuid' },
      contact: { type: 'string', format: 'email' },
    },
    required: ['title'],
  },
  // Nobody but administrators may do anything: the pages still show and change every record.
  rules: { list: null, view: null, create: null, update: null, delete: null },
};
/** Notes point at posts: the record form offers the posts by their title. */
const notes = {
  schema: { type: 'object', properties: { post: { type: 'string', 'x-relation': 'posts' } } },
  rules: { list: null, view: null, create: null, update: null, delete: null },
};
const RULES = {
  list_who: 'admins',
  view_who: 'admins',
  create_who: 'admins',
  update_who: 'admins',
  delete_who: 'admins',
};
const HOSTILE = ['=HYPERLINK("https://evil.example","x")', '+1+2', '-3', '@SUM(A1)', '\tTAB', 'plain, "quoted"'];

describe('collection pages: bad input is said on the page and changes nothing', () => {
  const s = useServer({ collections: { posts, notes } });
  const records = '/api/collections/posts/records';
  let token: string;
  let cookie: string;
  let csrf: string;

  const post = (path: string, fields: Record<string, string | { name: string; blob: Blob }>) =>
    postForm(s, path, { ...fields, csrf }, { cookie });
  function said(res: PageResult, words: RegExp, status = 422): void {
    assert.equal(res.status, status, textOf(res.html).slice(0, 400));
    assert.match(textOf(res.html), words);
  }
  const total = async () => (await s.request(`${records}?total=1`, undefined, { token })).body.total as number;

  before(async () => {
    token = await s.adminToken();
    for (const title of HOSTILE) await s.request(records, { title, priority: 1 }, { token });
    cookie = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin/collections/posts/new', cookie)).html);
  });

  test('a bad filter, sort or cursor is said above the table, with its place', async () => {
    const cases: Array<[string, RegExp]> = [
      ['filter=title%20~%201', /does not apply to 1 \(number\) at character 1/],
      ['filter=nothing%20%3D%201', /nothing/],
      [`filter=${encodeURIComponent('('.repeat(40))}`, /filter/i],
      [`filter=${'x'.repeat(5000)}`, /filter/i],
      ['sort=-tags', /sort/i],
      ['sort=zzz', /sort/i],
      ['cursor=not-a-cursor', /cursor/i],
    ];
    for (const [query, words] of cases) {
      const page = await getPage(s, `/admin/collections/posts?${query}`, cookie);
      assert.equal(page.status, 200, query);
      assert.match(page.html, /class="messages error" role="alert"/, query);
      assert.match(textOf(page.html), words, query);
    }
    const hostile = await getPage(
      s,
      `/admin/collections/posts?filter=${encodeURIComponent('title = "<script>"')}`,
      cookie,
    );
    assert.doesNotMatch(hostile.html, /<script>"/);
  });

  test('the table escapes what records hold, and sorts and pages', async () => {
    await s.request(records, { title: '<img src=x onerror=alert(1)>' }, { token });
    const found = await getPage(
      s,
      `/admin/collections/posts?filter=${encodeURIComponent('title ~ "onerror"')}`,
      cookie,
    );
    assert.equal(found.status, 200);
    assert.ok(!found.html.includes('<img src=x'), 'the title is escaped');
    assert.ok(found.html.includes('&lt;img src=x onerror=alert(1)&gt;'), 'the title is shown');
    const page = await getPage(s, '/admin/collections/posts?sort=title&perPage=2', cookie);
    assert.equal(page.status, 200);
    assert.match(page.html, /aria-sort="ascending"/);
    assert.match(page.html, /rel="next"/);
    const unknown = await getPage(s, '/admin/collections/nothing', cookie);
    assert.equal(unknown.status, 404);
    const badId = await getPage(s, `/admin/collections/posts/records/${encodeURIComponent("1' OR '1'='1")}`, cookie);
    assert.equal(badId.status, 422);
  });

  test('a relation offers the records of its collection by their label, escaped', async () => {
    const form = await getPage(s, '/admin/collections/notes/new', cookie);
    assert.equal(form.status, 200);
    const { items } = (await s.request(`${records}?perPage=100`, undefined, { token })).body;
    const hostile = items.find((r: { title: string }) => r.title === 'plain, "quoted"');
    assert.ok(
      form.html.includes(`<option value="${hostile.id}">plain, &quot;quoted&quot;</option>`),
      'the post is offered by its title',
    );
    assert.match(form.html, /<input [^>]*name="post"[^>]*list="record-form-post-choices"/);
  });

  test('a text format the form library does not check is a text input still, the validator checking it', async () => {
    const form = await getPage(s, '/admin/collections/posts/new', cookie);
    assert.match(form.html, /<input [^>]*name="ref"/, 'a uuid is typed as text, not as JSON');
    assert.match(form.html, /<input [^>]*type="email"[^>]*name="contact"|<input [^>]*name="contact"[^>]*type="email"/);
    const res = await post('/admin/collections/posts/new', { save$: 'save$', title: 'with a ref', ref: 'not-a-uuid' });
    said(res, /ref/);
  });

  test('schema text that is not JSON, or not a schema, is said at its field by path', async () => {
    const save = (schema: string, more: Record<string, string> = {}) =>
      post('/admin/collections/posts/schema', { save$: 'save$', schema, ...RULES, ...more });
    said(await save('{"type": "object", '), /JSON Schema: not JSON/);
    said(await save('[1, 2]'), /JSON Schema: schema/);
    const twoProblems = JSON.stringify({
      type: 'object',
      properties: { id: { type: 'string' }, title: { type: 'string' } },
      'x-indexes': [['missing']],
    });
    const res = await save(twoProblems);
    said(res, /schema\.properties\.id — this name is a system field/);
    said(res, /schema\.x-indexes\.0 — no field "missing"/);
    said(
      await save(JSON.stringify(posts.schema), { list_who: 'rule', list_rule: 'title ~' }),
      /Rule of list: .*character/,
    );
    said(await save(JSON.stringify(posts.schema), { list_who: 'rule', list_rule: '' }), /Write the rule/);
    said(await save(JSON.stringify(posts.schema), { list_who: 'everyone' }), /Who may list/);
    said(
      await post('/admin/collections/new-collection', {
        save$: 'save$',
        name: 'Bad Name!',
        schema: '{"type":"object","properties":{}}',
        ...RULES,
      }),
      /1–41 characters of a-z/,
    );
    const described = await s.request('/api/collections/posts', undefined, { token });
    assert.equal(described.body.version, 1);
  });

  test('a change the records would not fit is refused, naming them', async () => {
    const needsSize = structuredClone(posts.schema) as typeof posts.schema & { required: string[] };
    (needsSize.properties as Record<string, unknown>).size = { type: 'integer' };
    needsSize.required.push('size');
    const res = await post('/admin/collections/posts/schema', {
      save$: 'save$',
      schema: JSON.stringify(needsSize),
      ...RULES,
    });
    said(res, /records would not fit the new schema; nothing was changed/, 422);
    const ids = (await s.request(`${records}?perPage=100`, undefined, { token })).body.items.map(
      (r: { id: string }) => r.id,
    );
    for (const id of ids) assert.ok(res.html.includes(`/admin/collections/posts/records/${id}`), id);
    assert.match(textOf(res.html), /size: required/);
    assert.equal((await s.request('/api/collections/posts', undefined, { token })).body.version, 1);
  });

  test('the CSV export keeps cells from running as formulas, and quotes as RFC 4180 says', async () => {
    const res = await fetch(`${s.url}/admin/collections/posts/export?format=csv&sort=created`, { headers: { cookie } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="posts-\d{4}-\d\d-\d\d\.csv"$/);
    const rows = parse(await res.text(), { columns: true }) as Array<Record<string, string>>;
    const titles = rows.map((r) => r.title);
    for (const hostile of HOSTILE) {
      const expected = /^[=+\-@\t]/.test(hostile) ? `'${hostile}` : hostile;
      assert.ok(titles.includes(expected), `${JSON.stringify(expected)} in ${JSON.stringify(titles)}`);
    }
    for (const row of rows) assert.doesNotMatch(row.title ?? '', /^[=+\-@\t\r]/);
    const json = await fetch(`${s.url}/admin/collections/posts/export?format=json`, { headers: { cookie } });
    assert.equal((JSON.parse(await json.text()) as unknown[]).length, await total());
    const bad = await getPage(s, '/admin/collections/posts/export?format=xlsx', cookie);
    said(bad, /Export as csv, json or ndjson/);
    const badFilter = await getPage(s, '/admin/collections/posts/export?filter=title%20~%201', cookie);
    said(badFilter, /does not apply/);
  });

  test('an import over its limit is refused whole; unreadable files are reported', async () => {
    const before = await total();
    const big = new Blob([`[${'{"title":"x"},'.repeat(800_000)}{"title":"x"}]`]);
    const res = await post('/admin/collections/posts/import', {
      import$: 'import$',
      format: 'auto',
      file: { name: 'big.json', blob: big },
    });
    said(res, /An import takes a file of at most 10\.0 MB/, 413);
    const notArray = await post('/admin/collections/posts/import', {
      import$: 'import$',
      format: 'json',
      file: { name: 'x.json', blob: new Blob(['{"title":"one"}']) },
    });
    said(notArray, /not a JSON array/, 200);
    const ndjson = await post('/admin/collections/posts/import', {
      import$: 'import$',
      format: 'auto',
      file: { name: 'x.ndjson', blob: new Blob(['{"title":"ok"}\n{broken\n\n{"title":""}\n']) },
    });
    said(ndjson, /Rows read 3 Records created 1 Rows rejected 2/, 200);
    said(ndjson, /2 not JSON/, 200);
    said(ndjson, /3 title: must NOT have fewer than 1 characters/, 200);
    assert.equal(await total(), before + 1);
  });

  test('a POST without the CSRF token, or from another site, changes nothing', async () => {
    const before = await total();
    const id = (await s.request(`${records}?perPage=1`, undefined, { token })).body.items[0].id as string;
    const forms: Array<[string, Record<string, string | { name: string; blob: Blob }>]> = [
      ['/admin/collections/posts/new', { save$: 'save$', title: 'forged' }],
      ['/admin/collections/posts/delete', { id, confirm$: '1' }],
      [`/admin/collections/posts/records/${id}/delete`, { remove$: 'remove$', confirm: 'yes' }],
      ['/admin/collections/posts/schema', { save$: 'save$', schema: '{"type":"object","properties":{}}', ...RULES }],
      ['/admin/collections/posts/remove', { remove$: 'remove$', confirm: 'yes' }],
      [
        '/admin/collections/posts/import',
        { import$: 'import$', format: 'json', file: { name: 'a.json', blob: new Blob(['[{"title":"forged"}]']) } },
      ],
    ];
    for (const [path, fields] of forms) {
      const missing = await postForm(s, path, fields, { cookie });
      assert.equal(missing.status, 403, path);
      assert.match(textOf(missing.html), /The form is out of date or was sent from another site/);
      const wrong = await postForm(s, path, { ...fields, csrf: `${csrf.slice(0, -2)}xx` }, { cookie });
      assert.equal(wrong.status, 403, path);
      const crossSite = await postForm(s, path, { ...fields, csrf }, { cookie, headers: CROSS_SITE });
      assert.equal(crossSite.status, 403, path);
    }
    assert.equal(await total(), before);
    assert.equal((await s.request('/api/collections/posts', undefined, { token })).body.version, 1);
  });

  test('only administrators get the pages', async () => {
    await s.createUser('mallory');
    const user = await authCookie(s, 'mallory');
    for (const path of ['/admin/collections', '/admin/collections/posts', '/admin/collections/posts/export']) {
      assert.equal((await getPage(s, path, user)).status, 403, path);
      const anonymous = await getPage(s, path);
      assert.equal(anonymous.status, 303, path);
      assert.match(anonymous.location ?? '', /^\/admin\/signin\?next=/);
    }
  });
});
