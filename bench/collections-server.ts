// Roost for the collections suite (issue 39, "Speed"), on SQLite or, with `BENCH_POSTGRES=1`, on
// PostgreSQL: the user `bench`, who owns the 1000 items k0..k999 of the store `data` and the 1000
// records of `posts` (ten fields checked by their schema); the 2000 notes of `open_notes` and the
// same 2000 of `own_notes`, every other one `bench`'s and the rest `bench-other`'s; 1000
// `articles` in ten categories, each naming one of 50 `authors`; and one record of `live` for
// the live queries, with the live changes' limits raised for one user and address (the suite's
// 1000 subscribers all come from 127.0.0.1 with one token). Collections in collections-fixtures.ts.
import {
  ARTICLES,
  ARTICLES_SCHEMA,
  articleOf,
  AUTHORS,
  AUTHORS_SCHEMA,
  authorOf,
  LIVE_RECORD,
  LIVE_SCHEMA,
  NOTES_SCHEMA,
  noteOf,
  OWNER_RULE,
  POSTS_SCHEMA,
  postOf,
} from './collections-fixtures.js';
import { BENCH_USER, benchAccount, startBenchRoost } from './roost-setup.js';

const COUNT = 1000;
const NOTES = 2000;

const anyone = { list: '', view: '', create: '', update: '', delete: '' };
const owners = { list: OWNER_RULE, view: OWNER_RULE, create: '', update: OWNER_RULE, delete: OWNER_RULE };
const signedIn = '@request.auth.id != null';
const readers = { list: signedIn, view: signedIn, create: '', update: '', delete: '' };
const { roost, url, token, database } = await startBenchRoost({
  collections: {
    posts: { schema: POSTS_SCHEMA, rules: anyone },
    open_notes: { schema: NOTES_SCHEMA, rules: anyone },
    own_notes: { schema: NOTES_SCHEMA, rules: owners },
    authors: { schema: AUTHORS_SCHEMA, rules: readers },
    articles: { schema: ARTICLES_SCHEMA, rules: readers },
    live: { schema: LIVE_SCHEMA, rules: owners },
  },
  realtime: { maxStreamsPerUser: 1_000_000, maxStreamsPerAddress: 1_000_000 },
});
await benchAccount(roost.users, 'bench-other');
const signIn = await fetch(`${url}/users/api/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ identity: 'bench-other', password: BENCH_USER.password }),
});
const otherToken = ((await signIn.json()) as { token: string }).token;

const post = async (path: string, body: unknown, as = token) => {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': as },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};
type Results = { results: Array<{ id: string }> };
/** Creates `count` records of `collection`, 100 a batch; their ids in order. */
const fill = async (collection: string, count: number, data: (i: number) => unknown, as = (_i: number) => token) => {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    const operations = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      collection,
      action: 'create',
      data: data(start + i),
    }));
    const { results } = (await post('/api/collections/batch', { operations }, as(start))) as unknown as Results;
    ids.push(...results.map((r) => r.id));
  }
  return ids;
};

for (let start = 0; start < COUNT; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: `value of item ${start + i}` }));
  await post('/data/api/newItem', { items });
}
const [record] = await fill('posts', COUNT, (i) => postOf(String(i)));
// Batches of 100 alternate between the two owners, so that each owner's notes are spread over
// the collection's whole time; the two collections get the same notes in the same order.
const ownerOf = (i: number) => (i % 200 === 0 ? token : otherToken);
await fill('open_notes', NOTES, noteOf, ownerOf);
await fill('own_notes', NOTES, noteOf, ownerOf);
const authors = await fill('authors', AUTHORS, authorOf);
await fill('articles', ARTICLES, (i) => ({ ...articleOf(i), author: authors[articleOf(i).author] }));
const [live] = await fill('live', 1, () => LIVE_RECORD);

process.send?.({ url, token, database, record, live });
