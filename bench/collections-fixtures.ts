// The collections the collections suites measure, and their records, written once: Roost's bench
// servers (collections-server.ts, collections-scale-server.ts) declare and fill them, and Parse
// Server (peers/parse-server.ts) is given the same data. Imported by the suites too, so this
// module starts nothing.

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

/**
 * Notes, in two collections with the same records: `open_notes` lists to anyone (rule `""`),
 * `own_notes` to their owner (`owner = @request.auth.id`, the rule of a private collection).
 */
export const NOTES_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    body: { type: 'string', maxLength: 10_000 },
    priority: { type: 'integer', minimum: 0, maximum: 5 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title'],
};
export const noteOf = (i: number) => ({
  title: `Note ${i}`,
  body: 'What a note says, in a sentence or two of ordinary length.',
  priority: i % 6,
  tags: ['work', `week-${i % 52}`],
});
export const OWNER_RULE = 'owner = @request.auth.id';

/**
 * Articles and their authors: what the comparison with Parse Server reads (a `where` on an indexed
 * field, a page with its count, each article's author included), the same on both.
 */
export const AUTHORS_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 200 }, bio: { type: 'string', maxLength: 2000 } },
  required: ['name'],
};
export const ARTICLES_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    body: { type: 'string', maxLength: 10_000 },
    category: { type: 'string', maxLength: 50 },
    priority: { type: 'integer', minimum: 0, maximum: 5 },
    author: { type: 'string', 'x-relation': 'authors' },
  },
  required: ['title', 'category'],
  'x-indexes': [['category']],
};
export const ARTICLES = 1000;
export const AUTHORS = 50;
/** Ten categories of 100 articles each; the page read is of `c5`. */
export const ARTICLE_CATEGORY = 'c5';
export const authorOf = (i: number) => ({ name: `Author ${i}`, bio: `Writes about roads and bridges, number ${i}.` });
/**
 * Article `i`: category `c<i % 10>`, author `floor(i / 10) % 50`, so the 50 newest articles of a
 * category have 50 different authors (an include of 50 records, not of a handful).
 */
export const articleOf = (i: number) => ({
  title: `Article ${i}`,
  body: 'An article of a few sentences, long enough to be a page of text in a list.',
  category: `c${i % 10}`,
  priority: i % 6,
  author: Math.floor(i / 10) % AUTHORS,
});

/** Records live queries hear: the one the suite changes is the bench user's. */
export const LIVE_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    category: { type: 'string' },
    priority: { type: 'integer' },
    score: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    stamp: { type: 'integer' },
  },
  required: ['title'],
};
export const LIVE_RECORD = {
  title: 'Road works on the bridge',
  category: 'roads',
  priority: 3,
  score: 7.5,
  tags: ['news'],
};
/**
 * The filter of live subscriber `i` of 1000: each different, of four shapes (an equality and a
 * range, a text search or an equality, an element of a list and a range, an inequality), every
 * one matching LIVE_RECORD, so that one change is heard by all of them.
 */
export function liveFilter(i: number): string {
  switch (i % 4) {
    case 0:
      return `category = "roads" && score >= ${-i}`;
    case 1:
      return `title ~ "bridge" || priority = ${i}`;
    case 2:
      return `tags ?= "news" && priority <= ${i + 3}`;
    default:
      return `score != ${i + 0.25}`;
  }
}
