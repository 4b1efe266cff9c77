// Parse Server (from the npm registry, installed under bench/peers/) on a PostgreSQL database of
// its own, as its documentation sets it up: Express, the REST API under /parse. It is seeded
// like Roost's bench server: a user `bench` with a session, and 1000 objects of the class
// `Item` ({key, value}) that the user owns. The class asks for a signed-in caller to find, get,
// create and update (Roost's data store: `sys:authenticated` reads and creates), and each
// object's ACL lets everyone read it and only its owner write it (Roost: `sys:owner` replaces).
// With `PARSE_ARTICLES=1`, also the classes `Author` and `Article` of collections-fixtures.ts (the
// collections suite's data: 50 authors, 1000 articles pointing to them, an index on `category`).
import { ARTICLES, articleOf, AUTHORS, authorOf } from '../collections-fixtures.js';
import { createBenchDatabase } from '../postgres.js';
import { onStop } from '../server-lifecycle.js';

export const APP_ID = 'roost-bench';
const MASTER_KEY = 'roost-bench-master-key';
const ITEMS = 1000;

// Parse Server and Express are not the project's dependencies: loaded by name at run time
// from bench/peers/node_modules, typed here by the little of them this script uses.
interface ParseServerModule {
  ParseServer: new (options: Record<string, unknown>) => { start(): Promise<unknown>; app: unknown };
}
interface ExpressApp {
  use(path: string, handler: unknown): void;
  listen(port: number, host: string, ready: () => void): { address(): { port: number } | string | null };
}
const load = (name: string) => import(name) as Promise<unknown>;
const { ParseServer } = (await load('parse-server')) as ParseServerModule;
const express = ((await load('express')) as { default: () => ExpressApp }).default;

const database = await createBenchDatabase('parse');
const server = new ParseServer({
  // Ten pooled connections (pg's default, said outright), as Roost's PostgreSQL pool has.
  databaseURI: `${database.url}?poolSize=10`,
  appId: APP_ID,
  masterKey: MASTER_KEY,
  serverURL: 'http://127.0.0.1/parse', // only used for calls Parse makes to itself, none here
  allowClientClassCreation: false,
  logLevel: 'error',
  // No log files in the working directory (Parse writes ./logs by default).
  logsFolder: null,
});
await server.start();
const app = express();
app.use('/parse', server.app);
const listening = await new Promise<ReturnType<ExpressApp['listen']>>((resolve) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
});
const address = listening.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/parse`;
onStop(async () => {
  (listening as unknown as { close(): void }).close();
});

const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
  const res = await fetch(url + path, {
    method,
    headers: { 'x-parse-application-id': APP_ID, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
};

const signedIn = { requiresAuthentication: true };
/** Every operation for a signed-in caller; new fields by the master key only, none protected. */
const permissions = {
  find: signedIn,
  count: signedIn,
  get: signedIn,
  create: signedIn,
  update: signedIn,
  delete: signedIn,
  addField: {},
  protectedFields: {},
};
const master = { 'x-parse-master-key': MASTER_KEY };
const text = { type: 'String' };
await call(
  'POST',
  '/schemas/Item',
  {
    className: 'Item',
    fields: { key: text, value: text },
    indexes: { key_1: { key: 1 } },
    classLevelPermissions: permissions,
  },
  master,
);

const user = await call('POST', '/users', { username: 'bench', password: 'bench-password' }, {});
const token = String(user.sessionToken);
const acl = { '*': { read: true }, [String(user.objectId)]: { read: true, write: true } };

/** Creates `count` objects of `className`, 50 a batch, each readable by everyone; their ids in order. */
async function fill(className: string, count: number, body: (i: number) => Record<string, unknown>) {
  const made: string[] = [];
  for (let start = 0; start < count; start += 50) {
    const requests = Array.from({ length: Math.min(50, count - start) }, (_, i) => ({
      method: 'POST',
      path: `/parse/classes/${className}`,
      body: { ...body(start + i), ACL: acl },
    }));
    const answers = (await call(
      'POST',
      '/batch',
      { requests },
      { 'x-parse-session-token': token },
    )) as unknown as Array<{
      success?: { objectId: string };
    }>;
    for (const a of answers) made.push(a.success?.objectId ?? '');
  }
  return made;
}

const ids = await fill('Item', ITEMS, (i) => ({ key: `k${i}`, value: `value of item ${i}` }));

if (process.env.PARSE_ARTICLES === '1') {
  await call(
    'POST',
    '/schemas/Author',
    { className: 'Author', fields: { name: text, bio: text }, classLevelPermissions: permissions },
    master,
  );
  await call(
    'POST',
    '/schemas/Article',
    {
      className: 'Article',
      fields: {
        title: text,
        body: text,
        category: text,
        priority: { type: 'Number' },
        author: { type: 'Pointer', targetClass: 'Author' },
      },
      // Roost's `x-indexes: [["category"]]`.
      indexes: { category_1: { category: 1 } },
      classLevelPermissions: permissions,
    },
    master,
  );
  const authors = await fill('Author', AUTHORS, authorOf);
  await fill('Article', ARTICLES, (i) => ({
    ...articleOf(i),
    author: { __type: 'Pointer', className: 'Author', objectId: authors[articleOf(i).author] },
  }));
}

process.send?.({ url, token, database: database.name, ids, userId: user.objectId });
