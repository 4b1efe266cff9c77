import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import {
  afterCursorSql,
  compareRecords,
  compileMatcher,
  cursorOf,
  filterSql,
  parseSort,
  prepareFilter,
  printFilter,
  type StoredRecord,
  sortSql,
} from '../../src/collections/query/index.js';
import { posts, resolve } from './collections-fixture.js';
import { context, filter, sortText, world } from './filter-arbitraries.js';
import {
  createRecordTable,
  openRecordsDatabase,
  type RecordsDatabase,
  replaceRecords,
  selectRecords,
} from './record-tables.js';

/**
 * The SQL of a filter and a sort answers what the in-memory evaluator and comparator answer, on
 * this pass's database, for random records, filters, contexts and sorts; and keyset pages walk the
 * whole answer. ROOST_TEST_FUZZ_SEED and ROOST_TEST_FUZZ_RUNS repeat or lengthen a run.
 */

let database: RecordsDatabase;
before(async () => {
  database = await openRecordsDatabase();
  for (const collection of ['posts', 'authors', 'orgs']) await createRecordTable(database, collection);
});
after(() => database?.close());

const seed = process.env.ROOST_TEST_FUZZ_SEED ? Number(process.env.ROOST_TEST_FUZZ_SEED) : Date.now() % 2 ** 31;
const numRuns = Number(process.env.ROOST_TEST_FUZZ_RUNS ?? 250);

test(`filters and sorts in SQL answer as in memory (seed ${seed})`, async () => {
  const { dialect } = database;
  let compared = 0;
  let matched = 0;
  await fc.assert(
    fc.asyncProperty(
      world,
      context,
      fc.array(fc.tuple(filter, sortText), { minLength: 2, maxLength: 4 }),
      fc.integer({ min: 1, max: 7 }),
      async ({ posts: records, authors, orgs }, ctx, queries, pageSize) => {
        await replaceRecords(database, 'posts', records);
        await replaceRecords(database, 'authors', authors);
        await replaceRecords(database, 'orgs', orgs);
        // Compare with the records as the database gives them back (JSON's -0 is 0, and so on).
        const stored = await selectRecords(database, 'posts', sql`true`, sql`id`);
        const related = new Map<string, StoredRecord>();
        for (const r of await selectRecords(database, 'authors', sql`true`, sql`id`)) related.set(`authors/${r.id}`, r);
        for (const r of await selectRecords(database, 'orgs', sql`true`, sql`id`)) related.set(`orgs/${r.id}`, r);
        const lookup = (collection: string, id: string) => related.get(`${collection}/${id}`);
        for (const [ast, sortSource] of queries) {
          const text = printFilter(ast);
          const checked = prepareFilter(text, posts, resolve);
          const sort = parseSort(sortSource, posts);
          const matches = compileMatcher(checked, ctx, lookup);
          const expected = stored
            .filter(matches)
            .sort(compareRecords(sort))
            .map((r) => r.id);
          const where = filterSql(checked, { dialect, alias: 't', context: ctx });
          const got = await selectRecords(database, 'posts', where, sortSql(sort, dialect, 't'));
          assert.deepEqual(
            got.map((r) => r.id),
            expected,
            `${text} sorted by ${sortSource}`,
          );
          compared++;
          if (expected.length > 0 && expected.length < stored.length) matched++;
        }
        // Keyset paging with the last query: page after page, exactly the whole answer.
        const [ast, sortSource] = queries.at(-1)!;
        const checked = prepareFilter(printFilter(ast), posts, resolve);
        const sort = parseSort(sortSource, posts);
        const where = filterSql(checked, { dialect, alias: 't', context: ctx });
        const whole = await selectRecords(database, 'posts', where, sortSql(sort, dialect, 't'));
        const walked: string[] = [];
        let cursor: string | undefined;
        for (;;) {
          const after = cursor === undefined ? sql`true` : afterCursorSql(sort, cursor, dialect, 't');
          const page = await selectRecords(
            database,
            'posts',
            sql`${where} AND ${after}`,
            sortSql(sort, dialect, 't'),
            pageSize,
          );
          walked.push(...page.map((r) => r.id));
          if (page.length < pageSize) break;
          cursor = cursorOf(sort, page.at(-1)!);
        }
        assert.deepEqual(
          walked,
          whole.map((r) => r.id),
          `pages of ${pageSize} by ${sortSource}`,
        );
      },
    ),
    { seed, numRuns },
  );
  console.log(
    `# ${dialect}: ${numRuns} runs, ${compared} filters compared (${matched} matched some, not all), seed ${seed}`,
  );
});
