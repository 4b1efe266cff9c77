import { type CollectionFields, fieldOf } from '../../src/collections/collection-fields.js';

/**
 * The collections the query tests filter: a field of every kind in `posts`, a relation to
 * `authors`, and from there to `orgs` (two hops).
 */
const orgs: CollectionFields = { name: 'orgs', fields: [fieldOf('title', 'text')] };

export const authors: CollectionFields = {
  name: 'authors',
  fields: [
    fieldOf('name', 'text'),
    fieldOf('rank', 'number'),
    fieldOf('tags', 'array', { items: fieldOf('tags', 'text') }),
    fieldOf('org', 'text', { relation: 'orgs' }),
  ],
};

export const posts: CollectionFields = {
  name: 'posts',
  fields: [
    fieldOf('title', 'text'),
    fieldOf('n', 'number'),
    fieldOf('i', 'number', { integer: true }),
    fieldOf('flag', 'boolean'),
    fieldOf('tags', 'array', { items: fieldOf('tags', 'text') }),
    fieldOf('scores', 'array', { items: fieldOf('scores', 'number') }),
    fieldOf('items', 'array', { items: fieldOf('items', 'object', { fields: [fieldOf('x', 'text')] }) }),
    fieldOf('address', 'object', { fields: [fieldOf('city', 'text'), fieldOf('zip', 'number')] }),
    fieldOf('meta', 'json'),
    fieldOf('author', 'text', { relation: 'authors' }),
    fieldOf('reviewer', 'text', { relation: 'users' }),
    fieldOf('when', 'text', { format: 'date-time' }),
  ],
};

const ALL: Readonly<Record<string, CollectionFields>> = { posts, authors, orgs };

/** The resolver the compiler follows relations with. */
export const resolve = (name: string): CollectionFields | undefined =>
  Object.hasOwn(ALL, name) ? ALL[name] : undefined;
