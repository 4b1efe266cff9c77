/* Real databases for the content model: SQLite in memory, and PostgreSQL (a fresh database per
   test file, dropped afterwards) when ROOST_TEST_DATABASE_URL is set. No mocks. */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
// The server's choice of better-sqlite3 for this Node (server/src/storage/sqlite-driver.ts).
import { SQLite } from '../../../server/src/storage/sqlite-driver.js';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import {
  createKyselyContent,
  type ContentObject,
  type FormRequest,
  type FormValues,
  type KyselyContent,
  type KyselyContentOptions,
} from '../../src/index.js';

export type DialectName = 'sqlite' | 'postgres';

export interface TestDatabase {
  dialect: DialectName;
  db: Kysely<unknown>;
  close(): Promise<void>;
}

const pgUrl = process.env.ROOST_TEST_DATABASE_URL;

/** Why the PostgreSQL variant is skipped, or false when it runs. */
export const postgresSkip: string | false = pgUrl
  ? false
  : 'PostgreSQL variant skipped: set ROOST_TEST_DATABASE_URL (e.g. ' +
    'postgres://roost_test:roost_test@127.0.0.1:5432/postgres)';

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
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 4 }) }),
  });
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
export async function openContent(
  dialect: DialectName,
  options: KyselyContentOptions,
): Promise<{ content: KyselyContent; close(): Promise<void> }> {
  const database = await openDatabase(dialect);
  const content = createKyselyContent(database.db, options);
  await content.ensureSchema();
  return { content, close: () => database.close() };
}

/** A root of its own per test, so tests sharing a database never see each other's objects. */
export const testRootId = (): string => `root-${randomBytes(4).toString('hex')}`;

/** A POST request with form values (and headers, e.g. for XHR). */
export const post = (body: FormValues, headers: FormRequest['headers'] = {}): FormRequest => ({
  method: 'POST',
  body,
  query: {},
  headers,
});

/**
 * A SQLite content store for the calling test file, with a root of its own: opened on the first
 * `open()` (call it from a `before` hook), closed after the file. Afterwards `content` and `root`
 * read it directly.
 */
export function useSqliteContent(options: KyselyContentOptions): {
  open(): Promise<{ content: KyselyContent; root: ContentObject }>;
  readonly content: KyselyContent;
  readonly root: ContentObject;
} {
  let state: Promise<{ content: KyselyContent; root: ContentObject; close(): Promise<void> }> | undefined;
  let opened: { content: KyselyContent; root: ContentObject } | undefined;
  after(async () => (await state)?.close());
  return {
    async open() {
      state ??= openContent('sqlite', options).then(async ({ content, close }) => ({
        content,
        root: await content.root(testRootId()),
        close,
      }));
      opened = await state;
      return opened;
    },
    get content() {
      if (!opened) throw new Error('call open() in a before hook first');
      return opened.content;
    },
    get root() {
      if (!opened) throw new Error('call open() in a before hook first');
      return opened.root;
    },
  };
}
