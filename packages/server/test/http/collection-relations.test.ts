import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

/**
 * Issue 39, items 1 and 3: relation and file fields lead somewhere (a write naming a record,
 * account or file that does not exist is refused, naming the field), `expand` puts the related
 * records in an answer two relations deep, each under its own collection's view rule, and
 * `fields` keeps the parts asked for; hostile and wrong `expand` and `fields` are refused.
 */
const orgs = {
  schema: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'boolean', default: false } } },
  rules: { list: 'secret = false', view: 'secret = false', create: '' },
};
const authors = {
  schema: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      org: { type: 'string', 'x-relation': 'orgs' },
      account: { type: 'string', 'x-relation': 'users' },
      photo: { type: 'string', 'x-file': 'files' },
    },
  },
  rules: { list: '', view: '', create: '', update: '' },
};
const posts = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      author: { type: 'string', 'x-relation': 'authors' },
      coauthors: { type: 'array', items: { type: 'string', 'x-relation': 'authors' } },
      meta: { type: 'object', properties: { reviewer: { type: 'string', 'x-relation': 'users' } } },
    },
  },
  rules: { list: '', view: '', create: '', update: '' },
};

describe('collections: relations, files, expand and fields over HTTP', () => {
  const s = useServer({ fileStores: { files: {} }, collections: { orgs, authors, posts } });
  const records = (c: string) => `/api/collections/${c}/records`;
  const get = (url: string, token?: string) =>
    s.request(url, undefined, { method: 'GET', ...(token ? { token } : {}) });
  const MISSING = '0190c4a4-0000-7000-8000-000000000000';

  test('a relation, account or file that does not exist is refused by name; existing ones are kept', async () => {
    const token = await s.createUser('writer');
    const before = (await get(`${records('authors')}?total=1`)).body.total;
    const bad = await s.request(
      records('authors'),
      { name: 'x', org: MISSING, account: 'nobody-id', photo: 'no/such.png' },
      { token },
    );
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'validation_failure');
    assert.deepEqual(bad.body.invalid.map(([f]: [string]) => f).sort(), ['account', 'org', 'photo']);
    assert.equal((await get(`${records('authors')}?total=1`)).body.total, before, 'nothing stored');

    await s.request('/files/@newItem', { name: 'me.png', contents: 'png' }, { token });
    await s.request('/files/@newDirectory', { name: 'dir' }, { token });
    const org = await s.request(records('orgs'), { name: 'ACME' }, { token });
    const me = { id: org.body.owner as string };
    const made = await s.request(
      records('authors'),
      { name: 'Ada', org: org.body.id, account: me.id, photo: 'me.png' },
      { token },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const dir = await s.request(records('authors'), { name: 'D', photo: 'dir' }, { token });
    assert.equal(dir.status, 422, 'a directory is not a file');
    for (const photo of ['../etc/passwd', '/', '', 'a//b']) {
      const r = await s.request(records('authors'), { name: 'H', photo }, { token });
      assert.equal(r.status, 422, photo);
    }

    // Nested and array references, and a batch that makes a record and names it later.
    const nested = await s.request(records('posts'), { title: 't', meta: { reviewer: MISSING } }, { token });
    assert.deepEqual(
      nested.body.invalid.map(([f]: [string]) => f),
      ['meta.reviewer'],
    );
    const list = await s.request(records('posts'), { title: 't', coauthors: [made.body.id, MISSING] }, { token });
    assert.equal(list.status, 422);
    assert.match(list.body.invalid[0][1], new RegExp(MISSING));

    // A record whose related record is gone can still be edited (its old reference is not looked up again).
    const doomed = await s.request(records('orgs'), { name: 'Gone' }, { token: await s.adminToken() });
    const a2 = await s.request(records('authors'), { name: 'Bo', org: doomed.body.id }, { token });
    await s.request(`${records('orgs')}/${doomed.body.id}`, undefined, {
      method: 'DELETE',
      token: await s.adminToken(),
    });
    const edit = await s.request(`${records('authors')}/${a2.body.id}`, { name: 'Bo 2' }, { method: 'PATCH', token });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
  });

  test('a batch may name a record made earlier in it; a dangling reference undoes the whole batch', async () => {
    const token = await s.createUser('batcher');
    const org = await s.request(records('orgs'), { name: 'B' }, { token });
    const bad = await s.request(
      '/api/collections/batch',
      {
        operations: [
          { collection: 'authors', action: 'create', data: { name: 'ok', org: org.body.id } },
          { collection: 'authors', action: 'create', data: { name: 'bad', org: MISSING } },
        ],
      },
      { token },
    );
    assert.equal(bad.status, 422);
    assert.equal(bad.body.invalid[0][0], 'operations.1.org');
    const names = (await get(`${records('authors')}?filter=${encodeURIComponent('name = "ok"')}`)).body.items;
    assert.equal(names.length, 0, 'the first write was undone');
  });

  test('expand brings related records two levels deep, each under its own view rule', async () => {
    const token = await s.createUser('expander');
    const open = await s.request(records('orgs'), { name: 'Open Org' }, { token });
    const me = { id: open.body.owner as string };
    const hidden = await s.request(records('orgs'), { name: 'Hidden Org', secret: true }, { token });
    const ada = await s.request(records('authors'), { name: 'Ada', org: open.body.id, account: me.id }, { token });
    const bo = await s.request(records('authors'), { name: 'Bo', org: hidden.body.id }, { token });
    const post = await s.request(
      records('posts'),
      { title: 'Expanded', author: ada.body.id, coauthors: [bo.body.id, ada.body.id], meta: { reviewer: me.id } },
      { token },
    );
    const expand = encodeURIComponent('author.org,author.account,coauthors.org');
    const url = `${records('posts')}/${post.body.id}?expand=${expand}`;
    const read = await get(url, token);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    const author = read.body.expand.author;
    assert.equal(author.name, 'Ada');
    assert.equal(author.expand.org.name, 'Open Org');
    assert.deepEqual(author.expand.account, { id: me.id, name: 'expander' });
    assert.deepEqual(
      read.body.expand.coauthors.map((a: { name: string }) => a.name),
      ['Bo', 'Ada'],
    );
    assert.equal(read.body.expand.coauthors[0].expand, undefined, 'the secret org is left out: its view rule');
    assert.equal(read.body.author, ada.body.id, 'the field keeps its id');

    // The same in a page, with fields choosing parts (a `*` and a path into the expansion).
    const query = new URLSearchParams({
      filter: 'title = "Expanded"',
      expand: 'author.org',
      fields: 'id,title,expand.author.name,expand.author.expand.org.name',
    });
    const page = await get(`${records('posts')}?${query}`, token);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual(page.body.items, [
      {
        id: post.body.id,
        title: 'Expanded',
        expand: { author: { name: 'Ada', expand: { org: { name: 'Open Org' } } } },
      },
    ]);
    // Expanded records are read through the record cache on SQLite (records-repo.ts `getMany`): a change shows at once.
    const renamed = await s.request(
      `${records('authors')}/${ada.body.id}`,
      { name: 'Ada L.' },
      { token, method: 'PATCH' },
    );
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await get(url, token)).body.expand.author.name, 'Ada L.');
    assert.equal((await get(`${records('posts')}?${query}`, token)).body.items[0].expand.author.name, 'Ada L.');
    const star = await get(`${records('posts')}/${post.body.id}?fields=${encodeURIComponent('*,meta.reviewer')}`);
    assert.deepEqual(Object.keys(star.body).sort(), [
      'author',
      'coauthors',
      'created',
      'id',
      'meta',
      'owner',
      'title',
      'updated',
    ]);
  });

  test('a bad or hostile expand or fields is refused with its code, never run', async () => {
    const cases: Array<[string, string]> = [
      ['expand=title', 'invalid_expand'],
      ['expand=author.org.name', 'invalid_expand'],
      ['expand=author.account.x', 'invalid_expand'],
      ['expand=nothing', 'invalid_expand'],
      [`expand=${Array.from({ length: 9 }, () => 'author').join(',')}`, 'invalid_expand'],
      [`expand=${encodeURIComponent("author'; DROP TABLE records_posts;--")}`, 'invalid_expand'],
      ['fields=nope', 'invalid_fields'],
      ['fields=id,,title', 'invalid_fields'],
      [`fields=${encodeURIComponent('__proto__.x')}`, 'invalid_fields'],
      [`fields=${Array.from({ length: 33 }, () => 'id').join(',')}`, 'invalid_fields'],
      [`fields=${'a'.repeat(2000)}`, 'validation_failure'],
      ['expand[]=author', 'validation_failure'],
    ];
    for (const [query, code] of cases) {
      for (const url of [`${records('posts')}?${query}`, `${records('posts')}/${MISSING}?${query}`]) {
        const r = await get(url);
        assert.equal(r.status, 422, `${url}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, code, url);
      }
    }
    const schema = await s.request(
      '/api/collections',
      { name: 'clash', schema: { type: 'object', properties: { expand: { type: 'string' } } }, rules: {} },
      { token: await s.adminToken() },
    );
    assert.equal(schema.status, 422, 'expand is a reserved name');
    for (const name of ['files', 'data']) {
      const taken = await s.request(
        '/api/collections',
        { name, schema: { type: 'object', properties: {} }, rules: {} },
        { token: await s.adminToken() },
      );
      assert.deepEqual([taken.status, taken.body.code], [409, 'collection_exists'], `${name}: a store's name`);
    }
  });

  test('parallel writers naming one record all pass, anonymous ones too when the create rule is open', async () => {
    const token = await s.createUser('parallel');
    const org = await s.request(records('orgs'), { name: 'Shared' }, { token });
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.request(records('authors'), { name: `p${i}`, org: org.body.id }, { token }),
      ),
    );
    assert.deepEqual(new Set(made.map((r) => r.status)), new Set([201]));
    const anonymous = await s.request(records('authors'), { name: 'anon', org: org.body.id });
    assert.equal(anonymous.status, 201, 'the create rule is open; references need no account');
  });
});
