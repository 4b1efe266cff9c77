/* Real databases for the content model: SQLite in memory, and PostgreSQL (a fresh database per
   test file, dropped afterwards) when ROOST_TEST_DATABASE_URL is set. No mocks. */
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { createKyselyContent, type ContentObject, type FormRequest, type FormValues, type KyselyContent, type KyselyContentOptions } from '../../src/index.js';

export type DialectName = 'sqlite' | 'postgres';

export interface TestDatabase {
  dialect: DialectName;
  db: Kysely<unknown>;
  close(): Promise<void>;
}

const pgUrl = process.env.ROOST_TEST_DATABASE_URL;

/** Why the PostgreSQL variant is skipped, or false when it runs. */
export const postgresSkip: string | false = pgUrl ? false : 'PostgreSQL variant skipped: set ROOST_TEST_DATABASE_URL (e.g. postgres://roost_test:roost_test@127.0.0.1:5432/postgres)';

export const dialects: readonly DialectName[] = ['sqlite', 'postgres'];

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Opens an empty database of the dialect. */
export async function openDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
    return { dialect, db, close: () => db.destroy() };
  }
  if (!pgUrl) throw new Error(String(postgresSkip));
  const name = `roost_forms_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 4 }) }) });
  return {
    dialect,
    db,
    async close() {
      await db.destroy();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/** A content store with its table, on a fresh database. */
export async function openContent(dialect: DialectName, options: KyselyContentOptions): Promise<{ content: KyselyContent; close(): Promise<void> }> {
  const database = await openDatabase(dialect);
  const content = createKyselyContent(database.db, options);
  await content.ensureSchema();
  return { content, close: () => database.close() };
}

/** A root of its own per test, so tests sharing a database never see each other's objects. */
export const testRootId = (): string => `root-${randomBytes(4).toString('hex')}`;

/** A POST request with form values (and headers, e.g. for XHR). */
export const post = (body: FormValues, headers: FormRequest['headers'] = {}): FormRequest => ({ method: 'POST', body, query: {}, headers });

/**
 * Registers before/after hooks that open a SQLite content store for the calling test file, with
 * a root of its own. Read the store and the root through the returned object inside tests.
 */
export function useSqliteContent(options: KyselyContentOptions): { readonly content: KyselyContent; readonly root: ContentObject } {
  let state: { content: KyselyContent; root: ContentObject; close(): Promise<void> } | undefined;
  before(async () => {
    const { content, close } = await openContent('sqlite', options);
    state = { content, root: await content.root(testRootId()), close };
  });
  after(() => state?.close());
  return {
    get content() {
      return state!.content;
    },
    get root() {
      return state!.root;
    },
  };
}
