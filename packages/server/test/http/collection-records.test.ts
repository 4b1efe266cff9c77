import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer } from '../helpers/test-server.js';

/**
 * Issue 39, items 1 and 2: a collection declared in the configuration, its records created,
 * read, changed and deleted over its JSON routes, every write checked against its JSON Schema
 * with each bad field named, unique values kept unique under parallel writers, batches all or
 * nothing, pages walked by cursor; and collections made and changed by an administrator, a
 * change that records would not fit refused with the list of them.
 */
const posts = {
  schema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 200 },
      status: { enum: ['open', 'closed'], default: 'open' },
      priority: { type: 'integer', minimum: 0, maximum: 5 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      slug: { type: 'string', pattern: '^[a-z0-9-]+$', 'x-unique': true },
      due: { type: 'string', format: 'date' },
      address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      meta: {},
    },
    required: ['title'],
  },
  rules: { list: '', view: '', create: '', update: null, delete: null },
};

describe('collections: records over HTTP', () => {
  const s = useServer({ collections: { posts } });
  const path = '/api/collections/posts/records';

  test('a record is created with an id, its times, its owner and its schema defaults, and read back', async () => {
    const token = await s.createUser('writer');
    const made = await s.request(path, { title: 'Road works', priority: 2, tags: ['a'], meta: { x: [1] } }, { token });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.match(made.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(made.body.status, 'open');
    assert.equal(made.body.created, made.body.updated);
    assert.equal(typeof made.body.owner, 'string');
    const read = await s.request(`${path}/${made.body.id}`, undefined, { method: 'GET' });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, made.body);
  });

  test('a write the schema refuses names every bad field and stores nothing', async () => {
    const token = await s.createUser('careless');
    const before = (await s.request(`${path}?total=1`, undefined, { method: 'GET' })).body.total;
    const bad = await s.request(
      path,
      { priority: 9, tags: 'x', slug: 'Not A Slug', due: 'tomorrow', address: {}, extra: 1 },
      { token },
    );
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'validation_failure');
    const fields = Object.fromEntries(bad.body.invalid);
    for (const field of ['title', 'priority', 'tags', 'slug', 'due', 'address.city', 'extra'])
      assert.ok(field in fields, `${field} is named: ${JSON.stringify(bad.body.invalid)}`);
    for (const body of [[1], 'text', null, { title: 'x\ud800' }, { title: 'x'.repeat(300) }, { title: 7 }]) {
      const refused = await s.request(path, body, { token });
      assert.equal(refused.status, 422, JSON.stringify(body));
    }
    const huge = await s.request(path, { title: 'big', meta: 'x'.repeat(300 * 1024) }, { token });
    assert.equal(huge.status, 422);
    assert.equal((await s.request(`${path}?total=1`, undefined, { method: 'GET' })).body.total, before);
  });

  test('hostile ids and unknown collections are refused without a query', async () => {
    for (const id of ["1' OR '1'='1", '../../etc', 'x'.repeat(100)]) {
      const r = await s.request(`${path}/${encodeURIComponent(id)}`, undefined, { method: 'GET' });
      assert.equal(r.status, 422, id);
    }
    const missing = await s.request(`${path}/0190c4a4-0000-7000-8000-000000000000`, undefined, { method: 'GET' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'record_not_found');
    const unknown = await s.request('/api/collections/nothing/records', undefined, { method: 'GET' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'unknown_collection');
  });

  test('changes follow the rules: administrators only here; merge and replace', async () => {
    const token = await s.createUser('editor');
    const admin = await s.adminToken();
    const made = (await s.request(path, { title: 'first', priority: 1 }, { token })).body;
    const refused = await s.request(`${path}/${made.id}`, { title: 'x' }, { token, method: 'PATCH' });
    assert.equal(refused.status, 403);
    const anonymous = await s.request(`${path}/${made.id}`, undefined, { method: 'DELETE' });
    assert.equal(anonymous.status, 401);
    const merged = await s.request(
      `${path}/${made.id}`,
      { title: 'second', priority: null },
      { token: admin, method: 'PATCH' },
    );
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.equal(merged.body.title, 'second');
    assert.equal(merged.body.priority, undefined);
    assert.equal(merged.body.status, 'open');
    const replaced = await s.request(`${path}/${made.id}`, { title: 'third' }, { token: admin, method: 'PUT' });
    assert.deepEqual(Object.keys(replaced.body).sort(), ['created', 'id', 'owner', 'status', 'title', 'updated']);
    const bad = await s.request(`${path}/${made.id}`, { title: '' }, { token: admin, method: 'PATCH' });
    assert.equal(bad.status, 422);
    assert.equal((await s.request(`${path}/${made.id}`, undefined, { token: admin, method: 'DELETE' })).status, 204);
    assert.equal((await s.request(`${path}/${made.id}`, undefined, { method: 'GET' })).status, 404);
  });

  test('parallel creates of one unique value make one record', async () => {
    const token = await s.createUser('racer');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s.request(path, { title: `race ${i}`, slug: 'the-one' }, { token })),
    );
    assert.deepEqual(answers.filter((a) => a.status === 201).length, 1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      assert.equal(a.status, 409);
      assert.equal(a.body.code, 'not_unique');
      assert.deepEqual(a.body.invalid, [['slug', 'another record holds this value']]);
    }
  });

  test('a batch is all or nothing', async () => {
    const admin = await s.adminToken();
    const before = (await s.request(`${path}?total=1`, undefined, { method: 'GET' })).body.total;
    const failed = await s.request(
      '/api/collections/batch',
      {
        operations: [
          { collection: 'posts', action: 'create', data: { title: 'batch one' } },
          { collection: 'posts', action: 'create', data: { title: 3 } },
        ],
      },
      { token: admin },
    );
    assert.equal(failed.status, 422);
    assert.deepEqual(failed.body.invalid, [['operations.1.title', 'must be string']]);
    assert.equal((await s.request(`${path}?total=1`, undefined, { method: 'GET' })).body.total, before);
    const done = await s.request(
      '/api/collections/batch',
      {
        operations: [
          { collection: 'posts', action: 'create', data: { title: 'batch one' } },
          { collection: 'posts', action: 'create', data: { title: 'batch two' } },
        ],
      },
      { token: admin },
    );
    assert.equal(done.status, 200);
    assert.equal(done.body.results.length, 2);
    assert.equal((await s.request(`${path}?total=1`, undefined, { method: 'GET' })).body.total, before + 2);
  });

  test('pages walked by cursor give every record once, newest first', async () => {
    const token = await s.createUser('pager');
    for (let i = 0; i < 7; i++) await s.request(path, { title: `page ${i}` }, { token });
    const first = await s.request(`${path}?total=true&perPage=3`, undefined, { method: 'GET' });
    const seen: string[] = [];
    let page = first.body;
    for (;;) {
      seen.push(...page.items.map((r: { id: string }) => r.id));
      if (!page.next) break;
      page = (await s.request(`${path}?perPage=3&cursor=${page.next}`, undefined, { method: 'GET' })).body;
    }
    assert.equal(seen.length, first.body.total);
    assert.equal(new Set(seen).size, seen.length);
    // A page past its last record still has its total (records-repo.ts counts it in the page's statement).
    const newest = encodeURIComponent('title = "page 6"');
    const past = await s.request(`${path}?perPage=3&total=1&filter=${newest}&cursor=${first.body.next}`, undefined, {
      method: 'GET',
    });
    assert.deepEqual([past.status, past.body.items, past.body.total], [200, [], 1]);
    assert.deepEqual(seen, [...seen].sort().reverse());
    // A page is sent as UTF-8 bytes (http/routes/collection-routes.ts): its type is JSON, its length the bytes'.
    const title = 'Straße — 道路 😀 "</script>"';
    await s.request(path, { title }, { token });
    const wide = await s.request(
      `${path}?filter=${encodeURIComponent(`title = ${JSON.stringify(title)}`)}`,
      undefined,
      {
        method: 'GET',
      },
    );
    assert.equal(wide.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(
      wide.body.items.map((r: { title: string }) => r.title),
      [title],
    );
    assert.equal(Number(wide.headers.get('content-length')), Buffer.byteLength(JSON.stringify(wide.body)));
    for (const bad of ['perPage=0', 'perPage=501', 'perPage=x', 'cursor=nonsense', 'unknown=1']) {
      const r = await s.request(`${path}?${bad}`, undefined, { method: 'GET' });
      assert.equal(r.status, 422, bad);
    }
  });

  test('administrators make and change collections; a change records would not fit is refused', async () => {
    const admin = await s.adminToken();
    const user = await s.createUser('nosy');
    const schema = { type: 'object', properties: { name: { type: 'string' } } };
    const rules = { list: '', view: '', create: '', update: '', delete: '' };
    assert.equal((await s.request('/api/collections', { name: 'notes', schema, rules }, { token: user })).status, 403);
    const made = await s.request('/api/collections', { name: 'notes', schema, rules }, { token: admin });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.version, 1);
    const again = await s.request('/api/collections', { name: 'notes', schema, rules }, { token: admin });
    assert.equal(again.status, 409);
    await s.request('/api/collections/notes/records', { name: 'kept' }, { token: user });
    await s.request('/api/collections/notes/records', {}, { token: user });
    const stricter = {
      ...schema,
      properties: { ...schema.properties, size: { type: 'integer' } },
      required: ['name', 'size'],
    };
    const refused = await s.request(
      '/api/collections/notes',
      { schema: stricter, rules },
      { token: admin, method: 'PUT' },
    );
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'schema_change_refused');
    assert.equal(refused.body.misfits, 2);
    const withDefault = {
      ...schema,
      properties: { ...schema.properties, size: { type: 'integer', default: 1 } },
      required: ['size'],
    };
    const changed = await s.request(
      '/api/collections/notes',
      { schema: withDefault, rules },
      { token: admin, method: 'PUT' },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.version, 2);
    // The API description has the collection's routes with its schema at once, its new field too.
    const doc = (await s.request('/openapi.json', undefined, { method: 'GET' })).body;
    const create = doc.paths['/api/collections/notes/records'].post;
    assert.deepEqual(Object.keys(create.requestBody.content['application/json'].schema.properties), ['name', 'size']);
    const listed = await s.request('/api/collections/notes/records', undefined, { method: 'GET' });
    assert.deepEqual(
      listed.body.items.map((r: { size: number }) => r.size),
      [1, 1],
    );
    const badSchema = await s.request(
      '/api/collections',
      {
        name: 'broken',
        schema: { type: 'object', properties: { id: { type: 'string' }, x: { type: 'date' } } },
        rules,
      },
      { token: admin },
    );
    assert.equal(badSchema.status, 422);
    assert.equal(badSchema.body.code, 'invalid_schema');
    assert.equal(
      (await s.request('/api/collections/notes', undefined, { token: admin, method: 'DELETE' })).status,
      204,
    );
    assert.equal((await s.request('/api/collections/notes/records', undefined, { method: 'GET' })).status, 404);
  });

  test('a read after a write sees it: changes, deletes, batches, migrations, a collection made again', async () => {
    // On SQLite records are kept in memory (collections/record-cache.ts): every write must drop them.
    const admin = await s.adminToken();
    const rules = { list: '', view: '', create: '', update: '', delete: '' };
    const define = (schema: unknown, method: 'PUT' | 'POST' = 'PUT') =>
      s.request(
        method === 'POST' ? '/api/collections' : '/api/collections/kept',
        {
          ...(method === 'POST' ? { name: 'kept' } : {}),
          schema,
          rules,
        },
        { token: admin, method },
      );
    const v1 = { type: 'object', properties: { n: { type: 'integer' } } };
    assert.equal((await define(v1, 'POST')).status, 201);
    const at = '/api/collections/kept/records';
    const read = async (id: string) => s.request(`${at}/${id}`, undefined, { method: 'GET' });
    // A page's rows are kept too, and a row of the text a kept record was read from is that record
    // (collections/records-repo.ts `readThrough`): each write must show in pages as in gets.
    const listed = async () => (await s.request(`${at}?perPage=10`, undefined, { method: 'GET' })).body.items;
    const made = (await s.request(at, { n: 1 }, {})).body;
    assert.equal((await listed())[0].n, 1);
    assert.equal((await read(made.id)).body.n, 1);
    assert.equal((await listed())[0].n, 1);
    await s.request(`${at}/${made.id}`, { n: 2 }, { method: 'PATCH' });
    assert.equal((await listed())[0].n, 2);
    assert.equal((await read(made.id)).body.n, 2);
    // A plain get's answer is kept as text beside the cached record (collections-service.ts `getText`):
    // sent as JSON, the same again, and a get with `fields` is still shaped.
    const whole = await read(made.id);
    assert.equal(whole.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(whole.body, {
      id: made.id,
      created: made.created,
      updated: whole.body.updated,
      owner: null,
      n: 2,
    });
    assert.deepEqual((await s.request(`${at}/${made.id}?fields=id`, undefined, { method: 'GET' })).body, {
      id: made.id,
    });
    assert.deepEqual((await read(made.id)).body, whole.body);
    await s.request('/api/collections/batch', {
      operations: [{ collection: 'kept', action: 'replace', id: made.id, data: { n: 3 } }],
    });
    assert.equal((await read(made.id)).body.n, 3);
    assert.equal((await listed())[0].n, 3);
    const refused = await s.request('/api/collections/batch', {
      operations: [
        { collection: 'kept', action: 'update', id: made.id, data: { n: 4 } },
        { collection: 'kept', action: 'update', id: made.id, data: { n: 'x' } },
      ],
    });
    assert.equal(refused.status, 422);
    assert.equal((await read(made.id)).body.n, 3, 'a batch undone leaves the record as it was');
    assert.equal((await listed())[0].n, 3, 'a batch undone leaves the listed record as it was');
    const v2 = { type: 'object', properties: { n: { type: 'integer' }, m: { type: 'string', default: 'filled' } } };
    assert.equal((await define(v2)).status, 200);
    assert.equal((await listed())[0].m, 'filled', 'the migration rewrote it');
    assert.equal((await read(made.id)).body.m, 'filled', 'the migration rewrote it');
    // Parallel changes and reads: the last read after all of them sees the last write.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 2
          ? listed()
          : i % 3
            ? read(made.id)
            : s.request(`${at}/${made.id}`, { n: 100 + i }, { method: 'PATCH' }),
      ),
    );
    const last = (await read(made.id)).body.n;
    assert.ok(last >= 100, String(last));
    assert.equal((await listed())[0].n, last);
    await s.request(`${at}/${made.id}`, { n: 999 }, { method: 'PATCH' });
    assert.equal((await listed())[0].n, 999);
    assert.equal((await read(made.id)).body.n, 999);
    await s.request(`${at}/${made.id}`, undefined, { method: 'DELETE' });
    assert.equal((await read(made.id)).status, 404);
    assert.deepEqual(await listed(), []);
    const again = (await s.request(at, { n: 5 }, {})).body;
    assert.equal((await read(again.id)).body.n, 5);
    assert.equal((await s.request('/api/collections/kept', undefined, { token: admin, method: 'DELETE' })).status, 204);
    assert.equal((await define(v1, 'POST')).status, 201);
    assert.equal((await read(again.id)).status, 404, 'a collection made again holds none of the old records');
  });

  test('a schema change under concurrent writes loses nothing and leaves no record that fails its schema', async () => {
    const admin = await s.adminToken();
    const rules = { list: '', view: '', create: '', update: '', delete: '' };
    const version = (required: string[]) => ({
      type: 'object',
      properties: Object.fromEntries([
        ['n', { type: 'integer' }],
        ...required.map((f) => [f, { type: 'string', default: f }]),
      ]),
      required: ['n', ...required],
    });
    const at = '/api/collections/flow/records';
    assert.equal(
      (await s.request('/api/collections', { name: 'flow', schema: version([]), rules }, { token: admin })).status,
      201,
    );
    // Enough records that each migration takes a while, writes arriving all through it.
    const ids: string[] = [];
    for (let b = 0; b < 10; b++) {
      const operations = Array.from({ length: 100 }, (_, n) => ({ collection: 'flow', action: 'create', data: { n } }));
      const r = await s.request('/api/collections/batch', { operations });
      ids.push(...r.body.results.map((x: { id: string }) => x.id));
    }
    const answers: number[] = [];
    let made = 0;
    // Writers go on until the last change has committed: a write checked against the version
    // before it and stored after it is what a later change would no longer mend.
    let changed = false;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0, after = 0; i < 300 && after < 5; i++, after += changed ? 1 : 0) {
        const r =
          i % 3 === 2
            ? await s.request(`${at}/${ids[(w * 300 + i) % ids.length]}`, { n: i }, { method: 'PATCH' })
            : await s.request(at, { n: 1000 * w + i });
        answers.push(r.status);
        if (r.status === 201) made++;
      }
    });
    const changes = (async () => {
      for (const required of [['a'], ['a', 'b'], ['a', 'b', 'c']]) {
        const r = await s.request(
          '/api/collections/flow',
          { schema: version(required), rules },
          { token: admin, method: 'PUT' },
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      changed = true;
    })();
    await Promise.all([...writers, changes]);
    // And creates sent while a change runs (checked against the version before it, stored after).
    const last = s.request(
      '/api/collections/flow',
      { schema: version(['a', 'b', 'c', 'd']), rules },
      {
        token: admin,
        method: 'PUT',
      },
    );
    const during = await Promise.all(
      [1, 3, 6, 10, 20, 40].map(
        (ms) =>
          new Promise<number>((done) =>
            setTimeout(() => void s.request(at, { n: ms }).then((r) => done(r.status)), ms),
          ),
      ),
    );
    assert.equal((await last).status, 200);
    answers.push(...during);
    made += during.filter((status) => status === 201).length;
    assert.deepEqual(new Set(answers), new Set([200, 201]), 'every write answered: none lost, none refused');
    let misfits = 0;
    let seen = 0;
    for (let cursor = ''; ; ) {
      const page = (await s.request(`${at}?perPage=500${cursor}`, undefined, { method: 'GET' })).body;
      seen += page.items.length;
      for (const r of page.items) if (r.a !== 'a' || r.b !== 'b' || r.c !== 'c' || r.d !== 'd') misfits++;
      if (!page.next) break;
      cursor = `&cursor=${page.next}`;
    }
    assert.equal(misfits, 0, `${misfits} of ${seen} records miss a field their schema requires`);
    const all = await s.request(`${at}?perPage=1&total=1`, undefined, { method: 'GET' });
    assert.equal(all.body.total, 1000 + made, 'every acknowledged create is there');
  });

  test('a change renames fields: their values move; a rename that cannot be is refused by name', async () => {
    const admin = await s.adminToken();
    const rules = { list: '', view: '', create: '', update: '', delete: '' };
    const schema = (fields: string[]) => ({
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f, { type: 'string' }])),
      'x-indexes': [[fields[0]]],
    });
    const put = (body: unknown) => s.request('/api/collections/named', body, { token: admin, method: 'PUT' });
    assert.equal(
      (
        await s.request(
          '/api/collections',
          { name: 'named', schema: schema(['title', 'note']), rules },
          { token: admin },
        )
      ).status,
      201,
    );
    const at = '/api/collections/named/records';
    const made = (await s.request(at, { title: 'Road', note: 'n' })).body;
    for (const [fields, renames, reason] of [
      [['headline', 'note'], { nope: 'headline' }, 'no field "nope"'],
      [['headline', 'note'], { title: 'missing' }, 'no field "missing"'],
      [['headline', 'note'], { title: 'note' }, 'a field "note" already'],
      [['headline', 'note'], { note: 'headline' }, 'still has "note"'],
      [['headline'], { title: 'headline', note: 'headline' }, 'renamed to "headline"'],
    ] as const) {
      const r = await put({ schema: schema([...fields]), rules, renames });
      assert.equal(r.status, 422, JSON.stringify(renames));
      assert.equal(r.body.code, 'invalid_schema');
      assert.ok(
        r.body.invalid.some(([, why]: [string, string]) => why.includes(reason)),
        JSON.stringify(r.body.invalid),
      );
    }
    assert.equal((await s.request(`${at}/${made.id}`, undefined, { method: 'GET' })).body.title, 'Road', 'unchanged');
    const renamed = await put({ schema: schema(['headline', 'note']), rules, renames: { title: 'headline' } });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const read = (await s.request(`${at}/${made.id}`, undefined, { method: 'GET' })).body;
    assert.deepEqual([read.headline, read.note, read.title], ['Road', 'n', undefined]);
    const found = await s.request(`${at}?filter=${encodeURIComponent('headline = "Road"')}`, undefined, {
      method: 'GET',
    });
    assert.equal(found.body.items.length, 1);
    // The same rename again (a configuration keeps it) changes nothing.
    const again = await put({ schema: schema(['headline', 'note']), rules, renames: { title: 'headline' } });
    assert.deepEqual([again.status, again.body.version], [200, renamed.body.version]);
  });
});
