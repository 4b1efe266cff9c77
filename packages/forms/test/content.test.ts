// The content model on a real table: SQLite always, PostgreSQL when ROOST_TEST_DATABASE_URL is
// set (a fresh database for this file). The same assertions run on both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import {
  ContentError,
  contentUrls,
  createContentView,
  createKyselyContent,
  type ContentObject,
  type KyselyContent,
} from '../src/index.js';
import { contentOptions } from './helpers/fixtures.js';
import { dialects, openContent, openDatabase, postgresSkip, testRootId } from './helpers/content-db.js';

const user = { id: 'u1', name: 'ada' };

for (const dialect of dialects) {
  describe(`${dialect}: content model`, { skip: dialect === 'postgres' && postgresSkip }, () => {
    let content: KyselyContent;
    let close: () => Promise<void>;
    let root: ContentObject;

    before(async () => {
      ({ content, close } = await openContent(dialect, contentOptions));
    });
    after(() => close?.());

    const freshRoot = async (): Promise<ContentObject> => (root = await content.root(testRootId()));

    test('ensureSchema is repeatable; roots are created once; unknown ids are undefined', async () => {
      await content.ensureSchema();
      const id = testRootId();
      const a = await content.root(id);
      const b = await content.root(id);
      assert.equal(a.id, id);
      assert.equal(b.type, 'root');
      assert.equal(a.parent, undefined);
      assert.equal(await content.get('nope'), undefined);
      const child = await a.create('type2', {}, user);
      await assert.rejects(content.root(child.id), (e) => e instanceof ContentError && e.code === 'not_found');
      const rows = await content.db.selectFrom('form_objects').select('id').where('id', '=', id).execute();
      assert.equal(rows.length, 1);
    });

    test('create: values split into data and meta, system ids and uploads ignored, audit columns set', async () => {
      await freshRoot();
      const folder = await root.create('folder', { title: 'Docs', comment: 'c' }, user);
      const obj = await folder.create(
        'type1',
        {
          title: 'First',
          ftext: 'Some text',
          fnumber: 12,
          fjson: { a: [1, 2], ü: 'ß' },
          pool_type: 'type2',
          pool_create: 'x',
          upload: { filename: 'a.txt', size: 1 },
        },
        user,
      );
      assert.equal(obj.type, 'type1');
      assert.deepEqual(obj.data, { ftext: 'Some text', fnumber: 12, fjson: { a: [1, 2], ü: 'ß' } });
      const loaded = await content.get(obj.id);
      assert.ok(loaded);
      assert.deepEqual(loaded.data, obj.data);
      assert.equal(loaded.meta.title, 'First');
      assert.equal(loaded.meta.pool_type, 'type1');
      assert.equal(loaded.meta.pool_createdby, 'u1');
      assert.equal(loaded.meta.pool_wfa, 'draft', 'the workflow starts in its initial state');
      assert.match(String(loaded.meta.pool_create), /^\d{4}-\d\d-\d\dT/);
      assert.equal(loaded.parent?.id, folder.id, 'parents are loaded');
      assert.equal(loaded.parent?.parent?.id, root.id);
      assert.equal(loaded.configuration?.id, 'type1');
      const children = await root.children();
      assert.deepEqual(
        children.map((c) => c.id),
        [folder.id],
      );
    });

    test('create refuses unknown types and types the parent does not allow', async () => {
      await freshRoot();
      await assert.rejects(
        root.create('nope', {}, user),
        (e) => e instanceof ContentError && e.code === 'unknown_type',
      );
      const obj = await root.create('type1', { fnumber: 1 }, user);
      await assert.rejects(
        obj.create('folder', {}, user),
        (e) => e instanceof ContentError && e.code === 'type_not_allowed',
      );
      const child = await obj.create('type2', { fstr: 'ok' }, user);
      assert.equal(child.parent?.id, obj.id);
    });

    test('update merges, keeps other data, stores hostile strings as they are; false once gone', async () => {
      await freshRoot();
      const obj = await root.create('type1', { ftext: 'a', fnumber: 1 }, user);
      const hostile = `<script>alert("x")</script>'; drop table form_objects; --`;
      assert.equal(await obj.update({ fnumber: 2, title: hostile }, 'editor'), true);
      const loaded = await content.get(obj.id);
      assert.deepEqual(loaded?.data, { ftext: 'a', fnumber: 2 });
      assert.equal(loaded?.meta.title, hostile);
      assert.equal(loaded?.meta.pool_changedby, 'editor');
      await content.db.deleteFrom('form_objects').where('id', '=', obj.id).execute();
      assert.equal(await obj.update({ fnumber: 3 }, user), false);
    });

    test('insertAtPosition: first, last, after a sibling; refuses strangers and unknown siblings', async () => {
      await freshRoot();
      const [a, b, c] = [
        await root.create('type2', { fstr: 'a' }, user),
        await root.create('type2', { fstr: 'b' }, user),
        await root.create('type2', { fstr: 'c' }, user),
      ];
      const order = async (): Promise<string[]> => (await root.children()).map((x) => String(x.data.fstr));
      assert.deepEqual(await order(), ['a', 'b', 'c']);
      await root.insertAtPosition?.(c, 'first', user);
      assert.deepEqual(await order(), ['c', 'a', 'b']);
      await root.insertAtPosition?.(c.id, 'last', user);
      assert.deepEqual(await order(), ['a', 'b', 'c']);
      await root.insertAtPosition?.(a, b.id, user);
      assert.deepEqual(await order(), ['b', 'a', 'c']);
      const other = await content.root(testRootId());
      await assert.rejects(
        other.insertAtPosition!(a, 'first', user),
        (e) => e instanceof ContentError && e.code === 'not_found',
      );
      await assert.rejects(
        root.insertAtPosition!(a, 'nope', user),
        (e) => e instanceof ContentError && e.code === 'invalid_position',
      );
    });

    test('wfAction: by action from the current state, by transition id, refused otherwise', async () => {
      await freshRoot();
      const obj = await root.create('type1', { fnumber: 1 }, user);
      assert.equal(await obj.wfAction('unpublish', user), false, 'not allowed from draft');
      assert.equal(await obj.wfAction('publish', user), true);
      assert.equal((await content.get(obj.id))?.meta.pool_wfa, 'published');
      assert.equal(await obj.wfAction('', user, 'retract'), true);
      assert.equal((await content.get(obj.id))?.meta.pool_wfa, 'draft');
      assert.equal(await obj.wfAction('', user, 'nope'), false);
      assert.equal(await obj.wfAction('archive', user), true, 'from * is allowed from any state');
      const folder = await root.create('folder', {}, user);
      assert.equal(await folder.wfAction('publish', user), false, 'no workflow');
    });

    test('tools run with their target; unknown tools are undefined', async () => {
      await freshRoot();
      await root.create('type2', { fstr: 'x' }, user);
      const tool = content.tool('count', root);
      assert.ok(tool);
      assert.deepEqual(await tool.run({ parameter1: 'n' }, { user, view: undefined, request: undefined }), {
        ok: true,
        output: 'n: 1 children',
      });
      assert.equal(content.tool('nope'), undefined);
      assert.equal(content.getToolConf('count')?.id, 'count');
    });

    test('urls: obj_url, obj_folder_url, parent_url, page_url, page_url_anchor', async () => {
      await freshRoot();
      const folder = await root.create('folder', {}, user);
      const obj = await folder.create('type1', { fnumber: 1 }, user);
      const loaded = (await content.get(obj.id))!;
      const urls = contentUrls('/c');
      assert.equal(urls.obj_url!(loaded), `/c/${obj.id}`);
      assert.equal(urls.obj_folder_url!(loaded), `/c/${obj.id}/`);
      assert.equal(urls.parent_url!(loaded), `/c/${folder.id}`);
      assert.equal(urls.page_url!(loaded), `/c/${folder.id}`, 'the folder is the page');
      assert.equal(urls.page_url_anchor!(loaded), `/c/${folder.id}#roost-element-${obj.id}`);
      assert.equal(urls.page_url_anchor!(folder), `/c/${folder.id}`, 'a page has no anchor');
      assert.equal(urls.page_url!(root), `/c/${root.id}`, 'without a page ancestor: the root');
      assert.equal(urls.obj_url!({ not: 'an object' }), '/c/');
      const view = createContentView({ request: {}, baseUrl: '/c' });
      view.flash(['a', 'b']);
      assert.deepEqual(view.messages(), ['a', 'b']);
      assert.deepEqual(view.messages(), []);
    });
  });
}

test('createKyselyContent accepts the host database typed with its own tables', async () => {
  interface HostDb {
    users: { id: string };
  }
  const database = await openDatabase('sqlite');
  try {
    const hostDb = database.db as unknown as Kysely<HostDb>;
    await sql`create table users (id text)`.execute(hostDb);
    const content = createKyselyContent(hostDb, { table: 'roost_form_objects', ...contentOptions });
    await content.ensureSchema();
    const root = await content.root();
    assert.equal((await root.create('type2', { fstr: 'x' }, 'u')).type, 'type2');
    const tables = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' order by name`.execute(hostDb);
    assert.deepEqual(
      tables.rows.map((r) => r.name),
      ['roost_form_objects', 'users'],
    );
  } finally {
    await database.close();
  }
});
