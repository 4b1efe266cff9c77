import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

/**
 * Issue 39, items 3 and 4: rules in the filter language decide per record, inside the query, so
 * that a page, its total and its cursor never count or show what the caller may not read; the
 * caller's own filter and sort over HTTP; a rule that is no expression of the language is refused
 * when the collection is defined; hostile filters are refused, never run.
 */
const tasks = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      status: { enum: ['open', 'done'], default: 'open' },
      priority: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
      public: { type: 'boolean', default: false },
    },
    required: ['title'],
    'x-indexes': [['status']],
  },
  rules: {
    list: 'owner = @request.auth.id || public = true',
    view: 'owner = @request.auth.id || public = true',
    create: '@request.auth.id != null && @request.body.priority <= 3',
    update: 'owner = @request.auth.id',
    delete: 'owner = @request.auth.id && status = "done"',
  },
};

const notes = {
  schema: { type: 'object', properties: { text: { type: 'string' } } },
  rules: { list: 'owner = @request.auth.id', view: 'owner = @request.auth.id', create: '' },
};

/** Rules kept per caller (collection-access.ts `ruleCompiler`): one by group, one by the time. */
const memos = {
  schema: { type: 'object', properties: { text: { type: 'string' }, due: { type: 'string' } } },
  rules: { list: '@request.auth.groups ?= "team"', view: '@request.auth.groups ?= "team"', create: '' },
};
/** A rule that reads no record (collection-access.ts): decided once per caller, no condition in the query. */
const members = {
  schema: { type: 'object', properties: { text: { type: 'string' } } },
  rules: { list: '@request.auth.id != null', view: '@request.auth.id != null', create: '', update: '' },
};
const soon = {
  schema: memos.schema,
  rules: { list: 'due >= @now', view: 'due >= @now', create: '' },
};

describe('collections: rules and queries over HTTP', () => {
  const s = useServer({ collections: { tasks, notes, memos, soon, members } });
  const path = '/api/collections/tasks/records';
  const get = (url: string, token?: string) =>
    s.request(url, undefined, { method: 'GET', ...(token ? { token } : {}) });

  test('users see only their own (and public) records, in pages, totals and by id', async () => {
    const ann = await s.createUser('ann');
    const bob = await s.createUser('bob');
    for (let i = 0; i < 5; i++) {
      const made = await s.request(path, { title: `ann ${i}`, priority: i % 3, tags: [`t${i}`] }, { token: ann });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    const bobs = await s.request(path, { title: 'bob private', priority: 1 }, { token: bob });
    await s.request(path, { title: 'bob public', priority: 1, public: true }, { token: bob });
    const annPage = await get(`${path}?total=true&perPage=2`, ann);
    assert.equal(annPage.body.total, 6, 'her five and the public one');
    const seen: string[] = [];
    let page = annPage.body;
    for (;;) {
      seen.push(...page.items.map((r: { title: string }) => r.title));
      if (!page.next) break;
      page = (await get(`${path}?perPage=2&cursor=${page.next}`, ann)).body;
    }
    assert.equal(seen.length, 6);
    assert.ok(!seen.includes('bob private'));
    assert.equal((await get(`${path}/${bobs.body.id}`, ann)).status, 404);
    assert.equal((await get(`${path}/${bobs.body.id}`, bob)).status, 200);
    const anonymous = await get(`${path}?total=true`);
    assert.equal(anonymous.body.total, 1, 'only the public one');
  });

  test('`owner = @request.auth.id` shows an anonymous caller nothing, not the records nobody owns', async () => {
    const made = await s.request('/api/collections/notes/records', { text: 'left by nobody' });
    assert.equal(made.status, 201);
    assert.equal(made.body.owner, null);
    const anonymous = await get('/api/collections/notes/records?total=true');
    assert.equal(anonymous.body.total, 0);
    assert.equal((await get(`/api/collections/notes/records/${made.body.id}`)).status, 404);
    const admin = await s.adminToken();
    assert.equal((await get('/api/collections/notes/records?filter=owner%20%3D%20null&total=1', admin)).body.total, 1);
  });

  test('a rule of the caller alone: all for whom it holds, nothing for others, writes seen at once', async () => {
    const at = '/api/collections/members/records';
    const fay = await s.createUser('fay');
    const made = await s.request(at, { text: 'for members' }, { token: fay });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const anonymous = await get(`${at}?total=true`);
    assert.deepEqual([anonymous.status, anonymous.body.items, anonymous.body.total], [200, [], 0]);
    assert.equal((await get(`${at}/${made.body.id}`)).status, 404);
    const page = await get(`${at}?total=true`, fay);
    assert.deepEqual([page.body.total, page.body.items[0]?.text], [1, 'for members']);
    // Read twice (the second from the record cache on SQLite), then changed: the next read has the change.
    for (const text of ['for members', 'for members'])
      assert.equal((await get(`${at}/${made.body.id}`, fay)).body.text, text);
    const changed = await s.request(`${at}/${made.body.id}`, { text: 'changed' }, { token: fay, method: 'PATCH' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal((await get(`${at}/${made.body.id}`, fay)).body.text, 'changed');
  });

  test('create, update and delete rules: the body, the owner, the record', async () => {
    const cat = await s.createUser('cat');
    const dan = await s.createUser('dan');
    assert.equal((await s.request(path, { title: 'x', priority: 1 })).status, 401);
    assert.equal((await s.request(path, { title: 'too high', priority: 4 }, { token: cat })).status, 403);
    const made = (await s.request(path, { title: 'mine', priority: 1 }, { token: cat })).body;
    const other = await s.request(`${path}/${made.id}`, { title: 'taken' }, { token: dan, method: 'PATCH' });
    assert.equal(other.status, 404);
    assert.equal((await s.request(`${path}/${made.id}`, undefined, { token: cat, method: 'DELETE' })).status, 404);
    const done = await s.request(`${path}/${made.id}`, { status: 'done' }, { token: cat, method: 'PATCH' });
    assert.equal(done.status, 200);
    assert.equal((await s.request(`${path}/${made.id}`, undefined, { token: cat, method: 'DELETE' })).status, 204);
  });

  test('filters and sorts of the caller, on the fields of the schema', async () => {
    const eve = await s.createUser('eve');
    for (const [title, priority, status] of [
      ['road works', 3, 'open'],
      ['Road closed', 1, 'done'],
      ['bridge', 2, 'open'],
    ] as const)
      await s.request(path, { title, priority, status, tags: [title.split(' ')[0] ?? ''] }, { token: eve });
    const query = (q: Record<string, string>) => get(`${path}?${new URLSearchParams(q)}`, eve);
    const titles = (r: { body: { items: { title: string }[] } }) => {
      assert.ok(r.body.items, JSON.stringify(r.body));
      return r.body.items.map((i) => i.title);
    };
    assert.deepEqual(titles(await query({ filter: 'title ~ "road"', sort: 'priority' })), [
      'Road closed',
      'road works',
    ]);
    assert.deepEqual(titles(await query({ filter: 'status = "open" && priority >= 2', sort: '-priority' })), [
      'road works',
      'bridge',
    ]);
    assert.deepEqual(titles(await query({ filter: 'tags ?= "bridge"' })), ['bridge']);
    const bads: Record<string, string>[] = [
      { filter: 'nothing = 1' },
      { filter: 'priority = "high"' },
      { filter: 'title = "x" ||' },
      { filter: "title = ''; DROP TABLE records_tasks; --" },
      { sort: '-nothing' },
      { filter: `${'('.repeat(100)}title = "x"${')'.repeat(100)}` },
      { filter: `${'title = "x" || '.repeat(200)}title = "x"` },
    ];
    for (const bad of bads) {
      const r = await query(bad);
      assert.equal(r.status, 422, `${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.code);
    }
    assert.equal((await get(`${path}?total=true`, eve)).status, 200, 'the table is still there');
  });

  test('rules decided anew when the groups change or time passes, filters when the schema changes', async () => {
    const admin = await s.adminToken();
    const caller = await s.createUser('rulecaller');
    const memosPath = '/api/collections/memos/records';
    await s.request(memosPath, { text: 'for the team' });
    const total = async (url: string) => {
      const r = await get(url, caller);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.total;
    };
    assert.equal(await total(`${memosPath}?total=true`), 0, 'not of the team');
    await s.users('setUser', { identity: 'rulecaller', values: { groups: ['team'] } }, { token: admin });
    assert.equal(await total(`${memosPath}?total=true`), 1, 'of the team now, with the same token');
    await s.users('setUser', { identity: 'rulecaller', values: { groups: [] } }, { token: admin });
    assert.equal(await total(`${memosPath}?total=true`), 0, 'out of it again');

    // `@now` is read on every page: a record due in three seconds is listed, then no more (three,
    // not one: a loaded machine took more than a second for the write and the page).
    const soonPath = '/api/collections/soon/records';
    const due = Date.now() + 3000;
    await s.request(soonPath, { text: 'soon', due: new Date(due).toISOString() });
    assert.equal(await total(`${soonPath}?total=true`), 1);
    await new Promise((resolve) => setTimeout(resolve, due + 100 - Date.now()));
    assert.equal(await total(`${soonPath}?total=true`), 0, 'due has passed');

    // A filter asked again is checked against the collection's new version.
    const filtered = `${soonPath}?total=true&filter=${encodeURIComponent('text = "soon"')}`;
    assert.equal(await total(filtered), 0);
    const changed = await s.request(
      '/api/collections/soon',
      { schema: { type: 'object', properties: { due: { type: 'string' } } }, rules: soon.rules },
      { token: admin, method: 'PUT' },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const refused = await get(filtered, caller);
    assert.equal(refused.status, 422, 'text is no field of the new version');
    assert.equal(refused.body.code, 'invalid_filter');
  });

  test('a rule outside the language is refused when the collection is defined', async () => {
    const admin = await s.adminToken();
    const schema = { type: 'object', properties: { name: { type: 'string' } } };
    const bad = await s.request(
      '/api/collections',
      { name: 'badrules', schema, rules: { list: 'nosuch = 1', view: 'name ~', create: '' } },
      { token: admin },
    );
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'invalid_rule');
    assert.deepEqual(
      bad.body.invalid.map(([field]: [string]) => field),
      ['rules.list', 'rules.view'],
    );
  });
});
