import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { useServer } from '../helpers/test-server.js';
import { DOWNLOAD, operationsOf } from './support/operations.js';
import { checkOperation, describeStats, PropertyWorld, PROPERTY_RUNS, PROPERTY_SEED } from './support/property-run.js';
import { fileStorePathArbitrary } from './support/requests.js';

type Template = (w: PropertyWorld) => Record<string, unknown>;

/** The fixture user's directory and file (named after the user: fixtures are renewed with it). */
const dir = (w: PropertyWorld) => `fixture-${w.userName}`;

/** Per operation: where a valid call goes (a file or the directory), and its values. */
const CASES: Record<string, { on: 'file' | 'dir'; template: Template }> = {
  getItem: { on: 'file', template: () => ({}) },
  newItem: {
    on: 'dir',
    template: () => ({ name: 'new.txt', type: 'f', contents: 'hello', mime: 'text/plain', cache: 'max-age=60' }),
  },
  setItem: { on: 'file', template: () => ({ contents: 'changed', mime: 'text/markdown', header: 'no-cache' }) },
  read: { on: 'file', template: () => ({}) },
  write: { on: 'file', template: () => ({ contents: 'd3JpdHRlbg==', mime: 'text/plain' }) },
  move: { on: 'file', template: (w) => ({ newpath: `/${dir(w)}/moved.txt` }) },
  removeItem: { on: 'file', template: () => ({ recursive: false }) },
  list: { on: 'dir', template: () => ({ type: 'f', sort: 'size', order: '>', start: 1, size: 10 }) },
  allowed: { on: 'file', template: () => ({ permission: ['getItem', 'write'] }) },
  getPermissions: { on: 'dir', template: () => ({}) },
  setPermissions: {
    on: 'dir',
    template: () => ({
      permissions: [{ permission: 'list', groups: ['sys:authenticated', 'admins'], action: 'replace' }],
    }),
  },
  getOwner: { on: 'file', template: () => ({}) },
  setOwner: { on: 'file', template: (w) => ({ newOwner: w.userName }) },
  ping: { on: 'dir', template: () => ({}) },
  // This store has no `direct` setting: refused whatever comes (filestore-direct.test.ts has them on S3).
  directUpload: { on: 'file', template: () => ({ size: 5, mime: 'text/plain' }) },
  directFinish: { on: 'file', template: () => ({ upload: 'u'.repeat(32) }) },
  link: { on: 'file', template: () => ({}) },
  [DOWNLOAD]: { on: 'file', template: () => ({}) },
};

describe(`property: file store operations, hostile input (seed ${PROPERTY_SEED}, ${PROPERTY_RUNS} runs each)`, () => {
  let world: PropertyWorld;
  const s = useServer({ fileStores: { files: { maxFileBytes: 100_000 } } });
  before(async () => {
    world = new PropertyWorld(
      s,
      async (w) => {
        const token = w.credentials.user;
        const d = await s.request(`/files/${dir(w)}/@getItem`, {}, { token });
        if (d.status === 404)
          assert.equal((await s.request('/files/@newItem', { name: dir(w), type: 'd' }, { token })).status, 200);
        const f = await s.request(`/files/${dir(w)}/a.txt/@getItem`, {}, { token });
        if (f.status === 404)
          assert.equal(
            (await s.request(`/files/${dir(w)}/@newItem`, { name: 'a.txt', contents: 'fixture' }, { token })).status,
            200,
          );
      },
      [(op) => `/files/@${op}`],
    );
    await world.setUp();
  });

  test('every operation of the route table has a property case', () => {
    const ops = operationsOf(s.roost)
      .filter((o) => o.service === 'filestore')
      .map((o) => o.op);
    assert.deepEqual(
      ops.filter((op) => !CASES[op]),
      [],
    );
  });

  for (const [op, { on, template }] of Object.entries(CASES)) {
    test(`${op}: answers below 500 with the failure body, and a refusal stores nothing`, async (t) => {
      const info = operationsOf(s.roost).find((o) => o.service === 'filestore' && o.op === op);
      assert.ok(info, `${op} is not in the route table any more`);
      const valid = (w: PropertyWorld) => {
        const target = on === 'file' ? `${dir(w)}/a.txt` : dir(w);
        return op === DOWNLOAD ? `/files/${target}` : `/files/${target}/@${op}`;
      };
      const path = (w: PropertyWorld) => fc.oneof(fc.constant(valid(w)), fileStorePathArbitrary('files', op));
      const stats = await checkOperation(world, { info, path, template });
      t.diagnostic(describeStats(stats));
    });
  }
});
