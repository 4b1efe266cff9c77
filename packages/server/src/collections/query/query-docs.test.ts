import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
} from 'kysely';
import { SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { type FieldKind, TEXT_FORMATS, type TextFormat } from '../collection-fields.js';
import { fieldExpression, QUERY_LIMITS, queryErrors, type SqlDialect } from './index.js';

/** docs/collection-queries.md and docs/errors.md say what the code does. */
const docs = (name: string) => readFileSync(new URL(`../../../../../docs/${name}`, import.meta.url), 'utf8');
const reference = docs('collection-queries.md');

test('every error code of queries is in the section of docs/errors.md', () => {
  const errors = docs('errors.md');
  const section = errors.slice(errors.indexOf('## Collection queries'));
  for (const code of Object.keys(queryErrors.codes))
    assert.match(section, new RegExp(`^\\| \`${code}\` \\| 422 \\|`, 'm'));
});

test('the limits of docs/collection-queries.md are QUERY_LIMITS', () => {
  const limits = reference.slice(reference.indexOf('## Limits'), reference.indexOf('## SQL'));
  for (const n of Object.values(QUERY_LIMITS))
    assert.match(limits, new RegExp(`\\| ${n}( characters| levels| \\(|\\b)`));
});

test('every text format is named among the kinds that compare as text', () => {
  const formats: readonly TextFormat[] = TEXT_FORMATS;
  for (const format of formats) assert.ok(reference.includes(`\`${format}\``), format);
});

const compilers: Record<SqlDialect, Kysely<unknown>> = {
  sqlite: new Kysely({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
};

test('the SQL table of docs/collection-queries.md is what fieldExpression writes', () => {
  const rows: [SqlDialect, string, FieldKind][] = [
    ['sqlite', 'title', 'text'],
    ['sqlite', 'address.city', 'text'],
    ['postgres', 'title', 'text'],
    ['postgres', 'address.city', 'text'],
    ['postgres', 'n', 'number'],
    ['postgres', 'flag', 'boolean'],
    ['postgres', 'tags', 'array'],
    ['postgres', 'created', 'text'],
  ];
  for (const [dialect, path, kind] of rows) {
    const { sql } = fieldExpression(dialect, path.split('.'), kind, 't').compile(compilers[dialect]);
    assert.ok(reference.includes(`\`${sql}\``), `${dialect} ${path}: ${sql}`);
  }
});
