import type { JSONSchema } from 'json-schema-to-typescript';

/**
 * `roost types` (issue 39, item 6; docs/collections.md "Types"): the TypeScript of every
 * collection's records, written by json-schema-to-typescript from the collections' own JSON
 * Schemas (collections/collection-schema.ts), so the client's `collection('posts').list()` is
 * typed by the schema the server checks writes with. This module only shapes the schemas for
 * the library: the system fields added, Roost's `x-` keywords told in comments, objects closed.
 */

/** A collection as the generator needs it: collections-service.ts `state(name)`. */
export interface TypedCollection {
  name: string;
  schema: Readonly<Record<string, unknown>>;
  version: number;
}

/** The fields every record has beside its data (docs/collections.md "Records"), in their order. */
const SYSTEM_FIELDS: Record<string, JSONSchema> = {
  id: { type: 'string', description: 'The record id: a UUIDv7, in the order records were made.' },
  created: { type: 'string', description: 'When the record was made (ISO 8601, UTC).' },
  updated: { type: 'string', description: 'When the record was last changed (ISO 8601, UTC).' },
  owner: { type: ['string', 'null'], description: "The creator's user id; null when made anonymously." },
};

/**
 * The name of a collection's record type: `posts` → `PostsRecord`, `blog_posts` →
 * `BlogPostsRecord`. An underscore before a letter becomes that letter's capital; any other
 * underscore stays (`a_1` → `A_1Record`), so two names of the pattern never give one type name.
 */
function recordTypeName(collection: string): string {
  const pascal = collection.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return `${pascal.charAt(0).toUpperCase()}${pascal.slice(1)}Record`;
}

/**
 * A field's schema as the library reads it. Nested `title`s would each become a named type of
 * their own, colliding across collections: they go into the comment. `x-relation` and `x-file`
 * are said in the comment too; every object is closed, as Roost's objects are.
 */
function fieldSchema(schema: Readonly<Record<string, unknown>>): JSONSchema {
  const { title, description, properties, items, 'x-relation': relation, 'x-file': file, ...rest } = schema;
  const notes = [
    typeof title === 'string' ? title : null,
    typeof description === 'string' ? description : null,
    typeof relation === 'string' ? `The id of a record of \`${relation}\`.` : null,
    typeof file === 'string' ? `A file's path in the file store \`${file}\`.` : null,
    typeof schema.format === 'string' ? `Format: ${schema.format}.` : null,
    // A field with a default is optional in a create; a record read back has it.
    schema.default !== undefined ? `Default: ${JSON.stringify(schema.default)}.` : null,
  ].filter((note): note is string => note !== null);
  const out: JSONSchema = { ...rest };
  if (notes.length > 0) out.description = notes.join('\n\n');
  if (properties && typeof properties === 'object') {
    out.properties = Object.fromEntries(
      Object.entries(properties as Record<string, Record<string, unknown>>).map(([k, v]) => [k, fieldSchema(v)]),
    );
    out.additionalProperties = false;
  }
  if (items && typeof items === 'object') out.items = fieldSchema(items as Record<string, unknown>);
  return out;
}

/** A collection's record: the system fields, then the schema's fields (its `x-indexes` left out). */
function recordSchema(collection: TypedCollection): JSONSchema {
  const { 'x-indexes': _indexes, ...schema } = collection.schema;
  const data = fieldSchema(schema);
  return {
    ...data,
    title: recordTypeName(collection.name),
    description: `A record of the collection \`${collection.name}\` (schema version ${collection.version}).`,
    properties: { ...SYSTEM_FIELDS, ...data.properties },
    required: [...Object.keys(SYSTEM_FIELDS), ...((schema.required as string[] | undefined) ?? [])],
    additionalProperties: false,
  };
}

/**
 * The TypeScript file: `Collections`, the map from each collection's name to its record type
 * that the client is parameterized with (`collections<Collections>(...)`, packages/client), and
 * one interface per collection.
 */
export async function recordTypes(collections: readonly TypedCollection[]): Promise<string> {
  // Loaded here: the library loads prettier, which no other command needs.
  const { compile } = await import('json-schema-to-typescript');
  const sorted = [...collections].sort((a, b) => a.name.localeCompare(b.name));
  const root: JSONSchema = {
    title: 'Collections',
    description: 'Each collection by name, with the type of its records: `collections<Collections>(options)`.',
    type: 'object',
    properties: Object.fromEntries(sorted.map((c) => [c.name, { $ref: `#/$defs/${c.name}` }])),
    required: sorted.map((c) => c.name),
    additionalProperties: false,
    $defs: Object.fromEntries(sorted.map((c) => [c.name, recordSchema(c)])),
  };
  return compile(root, 'Collections', {
    bannerComment:
      '/* Written by `roost types` from the collections\' JSON Schemas (docs/collections.md, "Types").\n' +
      ' * Do not change it by hand: run `roost types` again after a schema changes. */',
    additionalProperties: false,
    unreachableDefinitions: false,
    // `maxItems: 10` would be a union of eleven tuples: an array it is, the limit in its comment.
    ignoreMinAndMaxItems: true,
  });
}
