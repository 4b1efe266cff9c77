import type { Kysely } from 'kysely';
import type { AuditChange } from '../core/audit.js';
import type { KeyScope } from '../core/api-keys.js';
import { writeAudit } from '../storage/audit-store.js';
import type { Database } from '../storage/schema.js';

/** An API key as stored: its secret only as `secretHash` (docs/security.md, "API keys"). */
export interface KeyRow {
  id: string;
  name: string;
  secretHash: string;
  scopes: KeyScope[];
  created: number;
  createdBy: string;
  expires: number | null;
  lastUsed: number | null;
  revoked: number | null;
}

const COLUMNS = [
  'id',
  'name',
  'secret_hash',
  'scopes',
  'created',
  'created_by',
  'expires',
  'last_used',
  'revoked',
] as const;

type Stored = Pick<Database['api_keys'], (typeof COLUMNS)[number]>;

const rowOf = (r: Stored): KeyRow => ({
  id: r.id,
  name: r.name,
  secretHash: r.secret_hash,
  scopes: JSON.parse(r.scopes) as KeyScope[],
  created: Number(r.created),
  createdBy: r.created_by,
  expires: r.expires === null ? null : Number(r.expires),
  lastUsed: r.last_used === null ? null : Number(r.last_used),
  revoked: r.revoked === null ? null : Number(r.revoked),
});

/** The `api_keys` table; a key's creation and revocation commit with their audit line. */
export function createKeyRepo(db: Kysely<Database>) {
  return {
    async byId(id: string): Promise<KeyRow | null> {
      const row = await db.selectFrom('api_keys').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      return row ? rowOf(row) : null;
    },

    async list(): Promise<KeyRow[]> {
      return (await db.selectFrom('api_keys').select(COLUMNS).orderBy('created', 'desc').execute()).map(rowOf);
    },

    async insert(key: KeyRow, audit: AuditChange): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('api_keys')
          .values({
            id: key.id,
            name: key.name,
            secret_hash: key.secretHash,
            scopes: JSON.stringify(key.scopes),
            created: key.created,
            created_by: key.createdBy,
            expires: key.expires,
            last_used: null,
            revoked: null,
          })
          .execute();
        await writeAudit(trx, key.created, audit);
      });
    },

    /** Revokes a key not revoked yet; false when there is none such. */
    async revoke(id: string, at: number, audit: AuditChange): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const done = await trx
          .updateTable('api_keys')
          .set({ revoked: at })
          .where('id', '=', id)
          .where('revoked', 'is', null)
          .executeTakeFirst();
        if (Number(done.numUpdatedRows) === 0) return false;
        await writeAudit(trx, at, audit);
        return true;
      });
    },

    async touch(id: string, at: number): Promise<void> {
      await db.updateTable('api_keys').set({ last_used: at }).where('id', '=', id).execute();
    },
  };
}

export type KeyRepo = ReturnType<typeof createKeyRepo>;
