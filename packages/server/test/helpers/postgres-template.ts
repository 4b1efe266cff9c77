import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { openDatabase, postgres } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrations/index.js';
import { checkoutRoot } from './checkout.js';

/**
 * A PostgreSQL test database that starts migrated is copied from a template database instead of
 * running the migrations again (`CREATE DATABASE ... TEMPLATE`, CONTRIBUTING.md "Tests: what runs
 * where, and their time"). The template is named by a hash of the migrations' sources
 * (src/storage/migrations/, which import nothing but kysely), so a changed or added migration makes
 * a new template and a stale one is never copied. Test jobs start side by side: the first builds it
 * under an advisory lock, the others wait on the lock and then find it done. It is marked a template
 * and refuses connections once built, so that no session on it can make a copy fail ("source
 * database is being accessed by other users"); a build cut short (no mark) is dropped and made again.
 */
let template: Promise<string> | undefined;

/** The name of the migrated template on the server of `adminUrl`, built once per migration set. */
export function migratedTemplate(adminUrl: string): Promise<string> {
  template ??= ensureTemplate(adminUrl);
  return template;
}

/** `roost_template_<hash>`: the hash of every migration file's name and text, in name order. */
function templateName(): string {
  const folder = join(checkoutRoot, 'packages/server/src/storage/migrations');
  const hash = createHash('sha256');
  for (const name of readdirSync(folder)
    .filter((f) => f.endsWith('.ts'))
    .sort())
    hash.update(`${name}\0${readFileSync(join(folder, name), 'utf8')}\0`);
  return `roost_template_${hash.digest('hex').slice(0, 16)}`;
}

async function ensureTemplate(adminUrl: string): Promise<string> {
  const name = templateName();
  const admin = new (postgres().Client)({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (await isBuilt(admin, name)) return name;
    // Held by this session until unlocked or its end: a job that dies while building frees it.
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      if (await isBuilt(admin, name)) return name;
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`create database ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const { db } = openDatabase({ databaseUrl: url.toString(), dataDir: tmpdir() });
      try {
        await migrateToLatest(db as Kysely<unknown>);
      } finally {
        await db.destroy();
      }
      await admin.query(`alter database ${name} with is_template true allow_connections false`);
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    await admin.end();
  }
}

async function isBuilt(admin: pg.Client, name: string): Promise<boolean> {
  const { rows } = await admin.query<{ built: boolean }>(
    'select datistemplate and not datallowconn as built from pg_database where datname = $1',
    [name],
  );
  return rows[0]?.built === true;
}
