import { sql, type Kysely } from 'kysely';
import { openDatabase, type OpenedDatabase } from './database.js';
import { driverErrorOf } from './retry.js';

/**
 * A database Roost cannot use, in words that name the cause and the setting or step that fixes
 * it (docs/operations.md, "When Roost does not start"). The driver's error stays as `cause`.
 */
class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

interface Where {
  databaseUrl?: string | undefined;
  databaseDirectUrl?: string | undefined;
  dataDir: string;
  durability?: 'full' | 'fast';
}

/**
 * Open the database and make one round trip, so that a wrong setting fails here, explained, not in the first migration.
 */
export async function connectDatabase(where: Where): Promise<OpenedDatabase> {
  let opened: OpenedDatabase;
  try {
    opened = openDatabase(where);
  } catch (err) {
    throw explainDatabaseError(err, where);
  }
  try {
    await sql`select 1`.execute(opened.db as Kysely<unknown>);
  } catch (err) {
    await opened.db.destroy().catch(() => {});
    // Refused connections were tried again first (storage/retry.ts); the driver's error explains.
    throw explainDatabaseError(driverErrorOf(err), where);
  }
  return opened;
}

/**
 * Whether an insert met a unique index or primary key: SQLite's two constraint codes, or
 * PostgreSQL's 23505 (both cover unique indexes and primary keys there).
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** The URL without its password, fit for a message and a log. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured databaseUrl';
  }
}

function explainDatabaseError(err: unknown, where: Where): DatabaseUnavailableError {
  const code = (err as { code?: unknown } | null)?.code;
  const detail = err instanceof Error ? err.message : String(err);
  const explained = (message: string) => new DatabaseUnavailableError(`${message} (${detail})`, { cause: err });
  if (!where.databaseUrl) {
    const file = `${where.dataDir}/roost.db`;
    if (
      code === 'EACCES' ||
      code === 'EPERM' ||
      code === 'EROFS' ||
      code === 'ENOTDIR' ||
      code === 'EEXIST' ||
      code === 'SQLITE_CANTOPEN' ||
      code === 'SQLITE_READONLY'
    ) {
      return explained(
        `cannot open the SQLite database ${file}: make dataDir (ROOST_DATA_DIR) a directory this user may write, or ` +
          'point it elsewhere',
      );
    }
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      return explained(
        `${file} is not a SQLite database or is damaged: ` +
          'restore it from a backup (roost restore) or point dataDir elsewhere',
      );
    }
    return explained(`cannot open the SQLite database ${file}`);
  }
  const url = redactedUrl(where.databaseUrl);
  let parsed: URL | null = null;
  try {
    parsed = new URL(where.databaseUrl);
  } catch {
    // named as "the configured databaseUrl" below
  }
  const server = parsed ? `${parsed.hostname}:${parsed.port || '5432'}` : url;
  const user = parsed ? decodeURIComponent(parsed.username) : '';
  const database = parsed ? decodeURIComponent(parsed.pathname.slice(1)) : '';
  switch (code) {
    case 'ECONNREFUSED':
      return explained(
        `PostgreSQL at ${server} refuses connections: start it (pg_ctlcluster 15 main start, systemctl start ` +
          'postgresql), or fix host and port in databaseUrl (ROOST_DATABASE_URL)',
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return explained(
        `the PostgreSQL host in databaseUrl (ROOST_DATABASE_URL) is not known: ${parsed?.hostname ?? url}`,
      );
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return explained(
        `PostgreSQL at ${server} cannot be reached: check the network, a firewall, and host and port in databaseUrl ` +
          '(ROOST_DATABASE_URL)',
      );
    case '28P01':
      return explained(
        `PostgreSQL refused the password of user "${user}": fix the user or password in databaseUrl ` +
          '(ROOST_DATABASE_URL)',
      );
    case '28000':
      return explained(
        `PostgreSQL does not let user "${user}" in from here: add a line for it to pg_hba.conf, or use another user ` +
          'in databaseUrl',
      );
    case '3D000':
      return explained(
        `the database "${database}" does not exist on ${server}: create it (createdb -O ${user || '<user>'} ` +
          `${database}) or fix the name in databaseUrl`,
      );
    case '57P03':
      return explained(`PostgreSQL at ${server} is starting up or shutting down: try again in a moment`);
    case '42501':
      return explained(
        `user "${user}" may not use the database "${database}": grant it (ALTER DATABASE ${database} OWNER TO ` +
          `${user || '<user>'})`,
      );
    default:
      return explained(`cannot use PostgreSQL at ${url}`);
  }
}
