import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { useServer } from '../helpers/test-server.js';
import { operationsOf } from './support/operations.js';
import { checkOperation, describeStats, PropertyWorld, PROPERTY_RUNS, PROPERTY_SEED } from './support/property-run.js';

/** Valid values of each data store operation, for the fixture user and its item. */
const TEMPLATES: Record<string, (w: PropertyWorld) => Record<string, unknown>> = {
  getItem: (w) => ({ key: `fixture-${w.userName}` }),
  newItem: () => ({ key: 'property-new', value: 'v' }),
  setItem: (w) => ({ key: `fixture-${w.userName}`, value: 'changed' }),
  removeItem: (w) => ({ key: `fixture-${w.userName}` }),
  list: (w) => ({ key: `fixture-${w.userName}`, sort: 'value', order: '>', start: 1, size: 10 }),
  keys: () => ({ order: '>', start: 1, size: 10 }),
  getOwner: (w) => ({ key: `fixture-${w.userName}` }),
  setOwner: (w) => ({ key: `fixture-${w.userName}`, newOwner: w.userName }),
  allowed: () => ({ permission: ['getItem', 'setItem'] }),
  getPermissions: () => ({}),
  setPermissions: () => ({
    permissions: [{ permission: 'list', groups: ['sys:authenticated', 'admins'], action: 'replace' }],
  }),
  ping: () => ({}),
};

describe(`property: data store operations, hostile input (seed ${PROPERTY_SEED}, ${PROPERTY_RUNS} runs each)`, () => {
  let world: PropertyWorld;
  const s = useServer({ dataStores: { data: { maxBatch: 20 } } });
  before(async () => {
    world = new PropertyWorld(
      s,
      async (w) => {
        const res = await s.request(
          '/data/api/setItem',
          { key: `fixture-${w.userName}`, value: 'fixture value' },
          { token: w.credentials.user },
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
      },
      [(op) => `/data/api/${op}`],
    );
    await world.setUp();
  });

  test('every operation of the route table has a property case', () => {
    const ops = operationsOf(s.roost)
      .filter((o) => o.service === 'datastore')
      .map((o) => o.op);
    assert.deepEqual(
      ops.filter((op) => !TEMPLATES[op]),
      [],
    );
  });

  for (const op of Object.keys(TEMPLATES)) {
    test(`${op}: answers below 500 with the failure body, and a refusal stores nothing`, async (t) => {
      const info = operationsOf(s.roost).find((o) => o.service === 'datastore' && o.op === op);
      assert.ok(info, `${op} is not in the route table any more`);
      const stats = await checkOperation(world, {
        info,
        path: () => fc.constant(`/data/api/${op}`),
        template: TEMPLATES[op] as (w: PropertyWorld) => Record<string, unknown>,
      });
      t.diagnostic(describeStats(stats));
    });
  }
});
