import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/core/config.js';
import { defineCollection, defineConfig, parseConfig } from '../../src/roost.js';

const dir = () => mkdtemp(join(tmpdir(), 'roost-config-'));

describe('configuration', () => {
  test('defaults: port 8080, SQLite under ./data, one data store `data`, one file store `files`', async () => {
    const cwd = await dir();
    const config = await loadConfig({ cwd, env: {} });
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, join(cwd, 'data'));
    assert.equal(config.databaseUrl, undefined);
    assert.deepEqual(Object.keys(config.dataStores), ['data']);
    assert.deepEqual(Object.keys(config.fileStores), ['files']);
    assert.equal(config.publicUrl, 'http://localhost:8080');
    assert.ok(Object.isFrozen(config.users));
  });

  test('roost.config.ts is loaded (default export), and the environment wins over it', async () => {
    const cwd = await dir();
    await writeFile(
      join(cwd, 'roost.config.ts'),
      `export default { port: 9000, dataStores: { notes: { read: 'sys:everyone' } }, users: { identityPolicy: ` +
        `'email' } };\n`,
    );
    const fromFile = await loadConfig({ cwd, env: {} });
    assert.equal(fromFile.port, 9000);
    assert.equal(fromFile.users.identityPolicy, 'email');
    assert.equal(fromFile.dataStores.notes?.read, 'sys:everyone');
    assert.equal(fromFile.dataStores.notes?.maxBatch, 100);
    const withEnv = await loadConfig({
      cwd,
      env: { ROOST_PORT: '9100', ROOST_DATA_DIR: '/srv/roost', ROOST_DATABASE_URL: 'postgres://u:p@db/roost' },
    });
    assert.equal(withEnv.port, 9100);
    assert.equal(withEnv.dataDir, '/srv/roost');
    assert.equal(withEnv.databaseUrl, 'postgres://u:p@db/roost');
  });

  test('roost.config.json is loaded when there is no .ts file; ROOST_CONFIG names another file', async () => {
    const cwd = await dir();
    await writeFile(join(cwd, 'roost.config.json'), JSON.stringify({ port: 9200 }));
    await writeFile(join(cwd, 'other.json'), JSON.stringify({ port: 9300 }));
    assert.equal((await loadConfig({ cwd, env: {} })).port, 9200);
    assert.equal((await loadConfig({ cwd, env: { ROOST_CONFIG: 'other.json' } })).port, 9300);
    await assert.rejects(loadConfig({ cwd, env: { ROOST_CONFIG: 'missing.json' } }), ConfigError);
  });

  test('every problem is reported at once, naming its key', async () => {
    const cwd = await dir();
    await writeFile(
      join(cwd, 'roost.config.json'),
      JSON.stringify({
        colour: 'blue',
        users: { identityPolicy: 'phone' },
        dataStores: { users: {} },
        fileStores: { 'Bad Name': {} },
      }),
    );
    const err = await loadConfig({ cwd, env: { ROOST_PORT: 'eighty', ROOST_DATABASE_URL: 'mysql://x' } }).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConfigError);
    const text = err.problems.join('\n');
    for (const key of [
      'port',
      'databaseUrl',
      'users.identityPolicy',
      'dataStores.users',
      'fileStores.Bad Name',
      'colour',
    ]) {
      assert.ok(text.includes(key), `${key} missing in:\n${text}`);
    }
  });

  test('a store may not share its name with a store of the other kind', async () => {
    const cwd = await dir();
    await writeFile(
      join(cwd, 'roost.config.json'),
      JSON.stringify({ dataStores: { shared: {} }, fileStores: { shared: {} } }),
    );
    const err = await loadConfig({ cwd, env: {} }).catch((e: unknown) => e);
    assert.ok(err instanceof ConfigError);
    assert.match(err.problems.join('\n'), /fileStores\.shared: a data store has this name already/);
  });

  test('roost.config.ts has typed helpers: defineConfig and defineCollection', () => {
    const posts = defineCollection({
      schema: {
        type: 'object',
        properties: { title: { type: 'string', maxLength: 200 }, n: { type: 'integer' } },
        required: ['title'],
        'x-indexes': [['n']],
      },
      rules: { list: '', view: '' },
    });
    const config = parseConfig(defineConfig({ port: 9000, collections: { posts } }));
    assert.equal(config.port, 9000);
    assert.equal(config.collections.posts?.rules.list, '');
    assert.equal(config.collections.posts?.rules.delete, null);
    // The compiler refuses what the subset has not (these lines are checked by the typecheck).
    // @ts-expect-error: `date` is no type of the subset (a string with `format: 'date'` is)
    defineCollection({ schema: { type: 'object', properties: { due: { type: 'date' } } } });
    // @ts-expect-error: rules are per operation
    defineCollection({ schema: { type: 'object', properties: {} }, rules: { read: '' } });
  });

  test('a collection may not share its name with a store', async () => {
    const cwd = await dir();
    const collection = { schema: { type: 'object', properties: {} } };
    await writeFile(
      join(cwd, 'roost.config.json'),
      JSON.stringify({ collections: { data: collection, files: collection } }),
    );
    const err = await loadConfig({ cwd, env: {} }).catch((e: unknown) => e);
    assert.ok(err instanceof ConfigError);
    assert.match(err.problems.join('\n'), /collections\.data: a data or file store has this name already/);
    assert.match(err.problems.join('\n'), /collections\.files: a data or file store has this name already/);
  });

  test('invalid JSON in the file is a clear error, not a crash', async () => {
    const cwd = await dir();
    await writeFile(join(cwd, 'roost.config.json'), '{ "port": 80,');
    const err = await loadConfig({ cwd, env: {} }).catch((e: unknown) => e);
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /roost\.config\.json/);
  });

  test('read replicas: postgres:// URLs, comma-separated in the environment, only beside databaseUrl', async () => {
    const cwd = await dir();
    const env = {
      ROOST_DATABASE_URL: 'postgres://u:p@primary/roost',
      ROOST_DATABASE_REPLICA_URLS: 'postgres://u:p@replica-1/roost,postgres://u:p@replica-2/roost',
    };
    assert.deepEqual((await loadConfig({ cwd, env })).databaseReplicaUrls, [
      'postgres://u:p@replica-1/roost',
      'postgres://u:p@replica-2/roost',
    ]);
    assert.deepEqual((await loadConfig({ cwd, env: {} })).databaseReplicaUrls, []);
    const alone = await loadConfig({
      cwd,
      env: { ROOST_DATABASE_REPLICA_URLS: 'postgres://u:p@replica-1/roost' },
    }).catch((e: unknown) => e);
    assert.ok(alone instanceof ConfigError);
    assert.match(alone.message, /databaseReplicaUrls: replicas are read beside their primary, databaseUrl/);
    const wrong = await loadConfig({
      cwd,
      env: { ...env, ROOST_DATABASE_REPLICA_URLS: 'mysql://replica/roost' },
    }).catch((e: unknown) => e);
    assert.ok(wrong instanceof ConfigError);
    assert.match(wrong.message, /databaseReplicaUrls\.0: must be a postgres:\/\/ URL/);
  });
});
