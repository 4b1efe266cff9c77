// Produces the request/response examples of docs/datastore.md from a real server.
//
//   node --import tsx scripts/datastore-doc-examples.ts > /tmp/datastore-examples.md
//
// Starts Roost through the test harness with the store `data` (defaults) and a small store
// `notes` (maxBatch 2), calls every data store operation, and prints each request (as curl)
// and its answer as markdown. Tokens and user ids become placeholders (`<alice-token>`).
import { startServer, type CallResult, type TestServer } from '../packages/server/test/helpers/test-server.ts';
import { dataStoreOperations } from '../packages/server/src/http/protocol/datastore-protocol.ts';
import { dataStorePermissionDefaults } from '../packages/server/src/datastore/index.ts';
import { pretty } from './doc-format.ts';

const BASE = 'http://127.0.0.1:8080';
const placeholders = new Map<string, string>();
const lines: string[] = [];
const out = (s = '') => lines.push(s);
let server: TestServer;

function tidy(text: string): string {
  let out = text.replaceAll(server.url, BASE);
  for (const [value, name] of placeholders) out = out.replaceAll(value, name);
  // Timestamps vary from run to run; one fixed time keeps the examples stable.
  return out.replace(/\b1[0-9]{9}\.[0-9]{1,3}\b/g, '1795305600.123');
}

interface Step {
  title?: string;
  op: string;
  store?: string;
  body?: Record<string, unknown>;
  get?: boolean;
  token?: string;
  headers?: Record<string, string>;
}

function queryOf(body: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  return q.toString() ? `?${q.toString()}` : '';
}

async function call(step: Step): Promise<CallResult> {
  const path = `/${step.store ?? 'data'}/api/${step.op}`;
  const headers = { ...(step.headers ?? {}) };
  const parts = ['curl -s'];
  let res: CallResult;
  if (step.get) {
    const url = path + queryOf(step.body ?? {});
    parts.push(`'${server.url}${url}'`);
    res = await server.request(url, undefined, { ...(step.token ? { token: step.token } : {}), headers });
  } else {
    parts.push(`'${server.url}${path}'`);
    res = await server.request(path, step.body ?? {}, {
      method: 'POST',
      ...(step.token ? { token: step.token } : {}),
      headers,
    });
  }
  if (step.token) parts.push(`-H 'x-auth-token: ${step.token}'`);
  for (const [k, v] of Object.entries(headers)) parts.push(`-H '${k}: ${v}'`);
  if (!step.get)
    parts.push(
      `-H 'content-type: application/json'`,
      `-d '${JSON.stringify(step.body ?? {}).replaceAll("'", "'\\''")}'`,
    );
  const oneLine = parts.join(' ');
  if (step.title) {
    out(`**${step.title}**`);
    out();
  }
  out('```sh');
  out(tidy(oneLine.length <= 100 ? oneLine : parts.join(' \\\n  ')));
  out('```');
  out();
  out('```http');
  out(`HTTP/1.1 ${res.status}`);
  out();
  out(tidy(typeof res.body === 'string' ? res.body : pretty(res.body)));
  out('```');
  out();
  return res;
}

async function main(): Promise<void> {
  server = await startServer({ publicUrl: BASE, dataStores: { data: {}, notes: { maxBatch: 2 } } });
  const s = server;
  const defaults = dataStorePermissionDefaults('sys:authenticated');
  const summaries = new Map(dataStoreOperations(s.roost.dataStores.get('data')!).map((r) => [r.op, r.summary]));
  const section = (op: string, text = '') => {
    out(`### \`${op}\``);
    out();
    out([summaries.get(op), text].filter(Boolean).join(' '));
    out();
    out(`Permission \`${op}\`, default: ${(defaults[op] ?? []).map((g) => `\`${g}\``).join(', ')}.`);
    out();
  };
  const secret = (value: string, name: string) => {
    placeholders.set(value, `<${name}>`);
    return value;
  };
  try {
    const admin = secret(await s.adminToken(), 'admin-token');
    const alice = secret(await s.createUser('alice'), 'alice-token');
    const bob = secret(await s.createUser('bob'), 'bob-token');
    secret((await s.users('identity', {}, { token: alice })).body.id, 'alice-id');
    secret((await s.users('identity', {}, { token: bob })).body.id, 'bob-id');

    out('## Item operations');
    out();
    section('newItem', 'The caller becomes the owner. `success` holds `[key, id, timestamp, n]` per stored item.');
    await call({
      op: 'newItem',
      token: alice,
      body: {
        items: [
          { key: 'color', value: 'blue' },
          { key: 'answer', value: 42 },
        ],
      },
    });
    await call({
      title: 'One item at the top level',
      op: 'newItem',
      token: alice,
      body: { key: 'greeting', value: 'hello' },
    });
    await call({
      title: 'Failure: a key exists (nothing of the call is stored)',
      op: 'newItem',
      token: bob,
      body: {
        items: [
          { key: 'size', value: 'L' },
          { key: 'color', value: 'red' },
        ],
      },
    });
    await call({
      title: 'Failure: invalid fields',
      op: 'newItem',
      token: bob,
      body: {
        items: [
          { key: '', value: 'x' },
          { key: 'obj', value: { a: 1 } },
        ],
      },
    });
    await call({
      title: 'Failure: more items than `maxBatch` (the store `notes` allows 2)',
      op: 'newItem',
      store: 'notes',
      token: bob,
      body: {
        items: [
          { key: 'a', value: 1 },
          { key: 'b', value: 2 },
          { key: 'c', value: 3 },
        ],
      },
    });
    await call({ title: 'Failure: not signed in', op: 'newItem', body: { key: 'anonymous', value: 1 } });

    section('getItem', 'An item the caller may not read answers 404 like a missing one.');
    await call({ op: 'getItem', token: bob, get: true, body: { key: 'color' } });
    await call({
      title: 'Several keys (missing ones are left out)',
      op: 'getItem',
      token: bob,
      body: { key: ['color', 'answer', 'missing'] },
    });
    const colorId = (await s.request('/data/api/getItem?key=color', undefined, { token: bob })).body.id;
    await call({ title: 'By id', op: 'getItem', token: bob, body: { id: colorId } });
    await call({ title: 'Failure: no such item', op: 'getItem', token: bob, body: { key: 'missing' } });

    section(
      'setItem',
      'A missing key is created (checked against `newItem`), an existing item replaced (checked against `setItem`: ' +
        'by default its owner and administrators); id and owner stay. `success` holds `[key or id, timestamp, n]`.',
    );
    await call({
      op: 'setItem',
      token: alice,
      body: {
        items: [
          { key: 'color', value: 'green' },
          { key: 'shape', value: 'round' },
        ],
      },
    });
    await call({ title: 'By id', op: 'setItem', token: alice, body: { id: colorId, value: 'teal' } });
    await call({
      title: "Failure: another user's item",
      op: 'setItem',
      token: bob,
      body: { key: 'color', value: 'red' },
    });

    section('removeItem', '`result` counts the removed items; keys that do not exist are not counted.');
    await call({ op: 'removeItem', token: alice, body: { key: 'shape' } });
    await s.request(
      '/data/api/newItem',
      {
        items: [
          { key: 'tmp1', value: 1 },
          { key: 'tmp2', value: 2 },
        ],
      },
      { method: 'POST', token: alice },
    );
    await call({
      title: 'A list, in the form the Python connector sends',
      op: 'removeItem',
      token: alice,
      body: { items: [{ key: 'tmp1' }, { key: 'tmp2' }, { key: 'never' }] },
    });

    out('## Listing');
    out();
    await s.request(
      '/data/api/newItem',
      {
        items: [
          { key: 'bob-1', value: 7 },
          { key: 'bob-2', value: 'zebra' },
        ],
      },
      { method: 'POST', token: bob },
    );
    section(
      'list',
      'Sorted by `key` unless `sort` says `value` (numbers by size before text) or `timestamp`; `order` `<` ' +
        'ascending (default) or `>`; `start` is 1-based; `size` defaults to `defaultPageSize` and is capped at ' +
        '`maxPageSize`; `total` counts every match.',
    );
    await call({ op: 'list', token: bob, get: true, body: { size: 3 } });
    await call({
      title: 'By value, descending, second page of 2',
      op: 'list',
      token: bob,
      body: { sort: 'value', order: '>', start: 3, size: 2 },
    });
    await call({
      title: "One user's items (`owner`: name, email or id)",
      op: 'list',
      token: bob,
      body: { owner: 'bob' },
    });
    await call({ title: 'Some keys', op: 'list', token: bob, body: { key: ['answer', 'bob-2'] } });
    await call({
      title: 'Keys that start with a text (`prefix`, also for `keys`)',
      op: 'list',
      token: bob,
      body: { prefix: 'bob-' },
    });
    await call({ title: 'Past the end', op: 'list', token: bob, body: { start: 50 } });

    section('keys', 'The same paging as `list`, over keys in key order.');
    await call({ op: 'keys', token: bob, body: { order: '>', start: 1, size: 3 } });

    out('## Owner operations');
    out();
    section('getOwner', '`owner` is the name of the owning account (`""` when the account is gone).');
    await call({ op: 'getOwner', token: bob, body: { key: 'color' } });
    await call({ title: 'Several', op: 'getOwner', token: bob, body: { key: ['color', 'bob-1'] } });

    section(
      'setOwner',
      '`newOwner` (a name, email or id) is the new owner; with it, `owner` filters by the current owner. Without ' +
        '`newOwner`, `owner` is the new owner (the jQuery connector). `success` holds `[key or id, timestamp, n]`.',
    );
    await call({ op: 'setOwner', token: admin, body: { key: 'color', newOwner: 'bob' } });
    await call({ title: 'The jQuery form', op: 'setOwner', token: admin, body: { key: 'color', owner: 'alice' } });
    await call({
      title: 'Failure: unknown user',
      op: 'setOwner',
      token: admin,
      body: { key: 'color', newOwner: 'nobody' },
    });
    await call({
      title: 'Failure: not an administrator',
      op: 'setOwner',
      token: alice,
      body: { key: 'bob-1', newOwner: 'alice' },
    });

    out('## Permission operations');
    out();
    section(
      'allowed',
      'Permissions that depend on the item (granted to `sys:owner`) count as held by a signed-in caller.',
    );
    await call({ op: 'allowed', token: bob, body: { permission: ['getItem', 'setItem', 'setOwner'] } });
    await call({
      title: 'Anonymous, in the form the Python connector sends',
      op: 'allowed',
      body: { permissions: ['getItem', 'ping'] },
    });

    section('getPermissions', 'Every entry of this store, defaults included.');
    await call({ op: 'getPermissions', token: admin });

    section(
      'setPermissions',
      '`permissions` is one entry or a list of `{permission, groups (or group), action}`; `action` is `add` ' +
        '(default), `replace` or `revoke`. Answers the entries after the change.',
    );
    await call({
      title: 'Only owners (and administrators) read the items of `notes`',
      op: 'setPermissions',
      store: 'notes',
      token: admin,
      body: {
        permissions: ['getItem', 'list', 'keys'].map((permission) => ({
          permission,
          groups: ['sys:owner', 'admins'],
          action: 'replace',
        })),
      },
    });
    await call({
      title: 'Failure: unknown permission',
      op: 'setPermissions',
      token: admin,
      body: { permissions: { permission: 'fly', group: 'admins' } },
    });

    out('## Service');
    out();
    section('ping');
    await call({ op: 'ping', get: true });
  } finally {
    await s.close();
  }
  console.log(lines.join('\n'));
}

await main();
