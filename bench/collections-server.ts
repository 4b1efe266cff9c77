// Roost with the user `bench`, who owns the 1000 items k0..k999 of the store `data` and the 1000
// records of the collection `posts`, each of ten fields checked by its schema: what
// suite-collections.ts measures against the data store in the same minute (issue 39, "Speed").
import { startBenchRoost } from './roost-setup.js';

const COUNT = 1000;

/** Ten fields of every kind a schema may say: what a create is checked against. */
export const POSTS_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    body: { type: 'string', maxLength: 10_000 },
    status: { enum: ['open', 'closed', 'draft'], default: 'open' },
    priority: { type: 'integer', minimum: 0, maximum: 5 },
    score: { type: 'number' },
    done: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
    due: { type: 'string', format: 'date' },
    author: { type: 'object', properties: { name: { type: 'string' }, mail: { type: 'string', format: 'email' } } },
    slug: { type: 'string', pattern: '^[a-z0-9-]+$' },
  },
  required: ['title', 'priority'],
  'x-indexes': [['status']],
};

/** A record of those ten fields, number `n`. */
export const postOf = (n: string) => ({
  title: `Post ${n}`,
  body: 'Some words of the post, as a short paragraph would have them.',
  status: 'open',
  priority: 2,
  score: 4.5,
  done: false,
  tags: ['news', 'roads'],
  due: '2026-12-01',
  author: { name: 'Ada', mail: 'ada@example.com' },
  slug: `post-${n}`,
});

const rules = { list: '', view: '', create: '', update: '', delete: '' };
const { url, token, database } = await startBenchRoost({ collections: { posts: { schema: POSTS_SCHEMA, rules } } });

const post = async (path: string, body: unknown) => {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': token },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};

for (let start = 0; start < COUNT; start += 100) {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${start + i}`, value: `value of item ${start + i}` }));
  await post('/data/api/newItem', { items });
  const operations = items.map((_, i) => ({ collection: 'posts', action: 'create', data: postOf(String(start + i)) }));
  await post('/api/collections/batch', { operations });
}
const page = (await (await fetch(`${url}/api/collections/posts/records?perPage=1`)).json()) as {
  items: { id: string }[];
};
const record = page.items[0]?.id;

process.send?.({ url, token, database, record });
