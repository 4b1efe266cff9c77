/**
 * A type-level test, compiled by the typecheck (scripts/typecheck.mjs) and never run: the
 * client's collections are typed end to end by what `roost types` writes (fixtures/roost-types.ts,
 * which cli-users.test.ts proves is what the command writes for fixtures/collections.json). Each
 * `@ts-expect-error` must meet an error, or the typecheck fails: a wrong field name, a wrong
 * value type, a collection that does not exist do not compile.
 */
import { collection, collections, type AnyRecord, type RecordPage } from '../src/index.js';
import type { AuthorsRecord, Collections, NotesRecord, PostsRecord } from './fixtures/roost-types.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>) => proof;

export async function typedEndToEnd(): Promise<void> {
  const db = collections<Collections>({ baseUrl: 'http://127.0.0.1:8080' });
  const posts = db.collection('posts');

  // list() items are the generated records.
  const page = await posts.list({ filter: 'status = "open"', sort: ['-priority', 'address.city'], total: true });
  same<typeof page, RecordPage<PostsRecord>>(true);
  const first = page.items[0];
  if (first) {
    const title: string = first.title;
    const status: 'open' | 'closed' | undefined = first.status;
    const city: string | undefined = first.address?.city;
    const owner: string | null = first.owner;
    void [title, status, city, owner];
    // @ts-expect-error: no field `titel` in posts
    void first.titel;
    // @ts-expect-error: priority is a number
    const wrong: string = first.priority;
    void wrong;
  }

  // @ts-expect-error: `-titel` is no field to sort by
  await posts.list({ sort: '-titel' });
  // @ts-expect-error: `address.town` is no member of address
  await posts.list({ sort: ['address.town'] });

  // Writes take the record's fields: required ones required, nothing unknown.
  const made = await posts.create({ title: 'Road works', priority: 2, address: { city: 'Oslo' } });
  same<typeof made, PostsRecord>(true);
  // @ts-expect-error: title is required
  await posts.create({ priority: 2 });
  // @ts-expect-error: no field `titel`
  await posts.create({ title: 'x', titel: 'y' });
  // @ts-expect-error: status is "open" or "closed"
  await posts.create({ title: 'x', status: 'pending' });
  // @ts-expect-error: the system fields are not written
  await posts.create({ title: 'x', owner: 'someone' });
  // An update changes some fields; null removes one.
  await posts.update(made.id, { priority: null });
  // @ts-expect-error: no field `titel`
  await posts.update(made.id, { titel: 'y' });
  await posts.replace(made.id, { title: 'Whole' });

  // @ts-expect-error: no collection `post`
  db.collection('post');
  // A collection made over the API (in the database only) is in the map too.
  same<Awaited<ReturnType<ReturnType<typeof db.collection<'notes'>>['get']>>, NotesRecord>(true);

  // A batch of several collections: each result typed by its write.
  const results = await db.batch([
    { collection: 'posts', action: 'create', data: { title: 'one' } },
    { collection: 'authors', action: 'create', data: { name: 'Ada' } },
    { collection: 'posts', action: 'delete', id: made.id },
  ]);
  same<typeof results, readonly [PostsRecord, AuthorsRecord, null]>(true);
  // @ts-expect-error: authors have no title
  await db.batch([{ collection: 'authors', action: 'create', data: { title: 'x' } }]);

  // Live changes carry the record type.
  const stop = posts.live({ filter: 'priority >= 2' }, (change) => {
    if (change.event !== 'reload' && change.record) {
      const title: string = change.record.title;
      void title;
    }
  });
  stop();

  // One collection alone, by its record type; without a type, fields are unknown.
  const alone = collection<PostsRecord>('posts', { baseUrl: 'http://127.0.0.1:8080' });
  same<Awaited<ReturnType<typeof alone.get>>, PostsRecord>(true);
  const loose = await collection('posts', { baseUrl: 'http://127.0.0.1:8080' }).get('id');
  same<typeof loose, AnyRecord>(true);
  const unknownField: unknown = loose.anything;
  void unknownField;
}
