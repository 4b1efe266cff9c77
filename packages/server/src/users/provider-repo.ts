import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../storage/database-errors.js';
import type { Database } from '../storage/schema.js';

/** A provider account joined to a Roost account. */
export interface ProviderLink {
  provider: string;
  subject: string;
  userId: string;
  email: string | null;
  created: number;
}

/** A provider sign-in under way (migration 2026-11-28-01). */
export interface ProviderFlow {
  stateHash: string;
  provider: string;
  verifier: string;
  nonce: string;
  redirect: string;
  linkUser: string | null;
  expires: number;
}

const toLink = (row: Selectable<Database['provider_links']>): ProviderLink => ({
  provider: row.provider,
  subject: row.subject,
  userId: row.user_id,
  email: row.email,
  created: row.created,
});

/**
 * The provider tables. A flow is taken once: deleted, and answered only when the delete found
 * it, so a replayed callback (the same `state` twice, even in parallel) finds nothing. A link is
 * unique by provider account; `link` answers false when that provider account is taken already.
 */
export function createProviderRepo(db: Kysely<Database>) {
  return {
    async putFlow(flow: ProviderFlow): Promise<void> {
      await db
        .insertInto('provider_flows')
        .values({
          state_hash: flow.stateHash,
          provider: flow.provider,
          verifier: flow.verifier,
          nonce: flow.nonce,
          redirect: flow.redirect,
          link_user: flow.linkUser,
          expires: flow.expires,
        })
        .execute();
    },

    async takeFlow(stateHash: string, now: number): Promise<ProviderFlow | null> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('provider_flows')
          .selectAll()
          .where('state_hash', '=', stateHash)
          .executeTakeFirst();
        if (!row) return null;
        const gone = await trx.deleteFrom('provider_flows').where('state_hash', '=', stateHash).executeTakeFirst();
        if (Number(gone.numDeletedRows) !== 1 || row.expires <= now) return null;
        return {
          stateHash: row.state_hash,
          provider: row.provider,
          verifier: row.verifier,
          nonce: row.nonce,
          redirect: row.redirect,
          linkUser: row.link_user,
          expires: row.expires,
        };
      });
    },

    async linkOf(provider: string, subject: string): Promise<ProviderLink | null> {
      const row = await db
        .selectFrom('provider_links')
        .selectAll()
        .where('provider', '=', provider)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row ? toLink(row) : null;
    },

    async linksOf(userId: string): Promise<ProviderLink[]> {
      const rows = await db
        .selectFrom('provider_links')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created')
        .execute();
      return rows.map(toLink);
    },

    /** Joins a provider account to `link.userId`: false when that provider account has an account already. */
    async link(link: ProviderLink): Promise<boolean> {
      try {
        await db
          .insertInto('provider_links')
          .values({
            provider: link.provider,
            subject: link.subject,
            user_id: link.userId,
            email: link.email,
            created: link.created,
          })
          .execute();
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },

    /** Removes the account's links to `provider`: whether there was one. */
    async unlink(userId: string, provider: string): Promise<boolean> {
      const gone = await db
        .deleteFrom('provider_links')
        .where('user_id', '=', userId)
        .where('provider', '=', provider)
        .executeTakeFirst();
      return Number(gone.numDeletedRows) > 0;
    },
  };
}

export type ProviderRepo = ReturnType<typeof createProviderRepo>;
