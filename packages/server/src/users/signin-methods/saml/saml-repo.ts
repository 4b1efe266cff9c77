import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../storage/schema.js';

/** A SAML sign-in under way (migration 2026-12-05-20). */
export interface SamlFlow {
  relayHash: string;
  /** The AuthnRequest's id; null for an answer the IdP sent unasked. */
  requestId: string | null;
  connection: string;
  redirect: string;
  expires: number;
}

const toFlow = (row: Selectable<Database['saml_flows']>): SamlFlow => ({
  relayHash: row.relay_hash,
  requestId: row.request_id,
  connection: row.connection,
  redirect: row.redirect,
  expires: row.expires,
});

/**
 * The `saml_flows` table. Each step uses a flow once: the ACS writes the answer's profile into
 * the flow of its request only while it has none (one UPDATE, so two posts of one answer, even
 * in parallel, find it once), and the browser's next step takes the flow (deleted, and answered
 * only when the delete found it), as provider-repo.ts takes a provider's flow.
 */
export function createSamlRepo(db: Kysely<Database>) {
  return {
    async putFlow(flow: SamlFlow, profile: string | null = null): Promise<void> {
      await db
        .insertInto('saml_flows')
        .values({
          relay_hash: flow.relayHash,
          request_id: flow.requestId,
          connection: flow.connection,
          redirect: flow.redirect,
          profile,
          expires: flow.expires,
        })
        .execute();
    },

    /** The unanswered flow of an AuthnRequest, if it is still good (node-saml's look before its checks). */
    async pendingRequest(requestId: string, now: number): Promise<SamlFlow | null> {
      const row = await db
        .selectFrom('saml_flows')
        .selectAll()
        .where('request_id', '=', requestId)
        .where('profile', 'is', null)
        .where('expires', '>', now)
        .executeTakeFirst();
      return row ? toFlow(row) : null;
    },

    /** Writes the checked answer into the request's flow: false when it is unknown, answered, expired or another's. */
    async answer(requestId: string, relayHash: string, connection: string, profile: string, now: number) {
      const done = await db
        .updateTable('saml_flows')
        .set({ profile })
        .where('request_id', '=', requestId)
        .where('relay_hash', '=', relayHash)
        .where('connection', '=', connection)
        .where('profile', 'is', null)
        .where('expires', '>', now)
        .executeTakeFirst();
      return Number(done.numUpdatedRows) === 1;
    },

    /** Takes an answered flow once: its flow and profile, or null (unknown, unanswered, used, expired). */
    async take(relayHash: string, now: number): Promise<{ flow: SamlFlow; profile: string } | null> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('saml_flows')
          .selectAll()
          .where('relay_hash', '=', relayHash)
          .executeTakeFirst();
        if (!row?.profile) return null;
        const gone = await trx.deleteFrom('saml_flows').where('relay_hash', '=', relayHash).executeTakeFirst();
        if (Number(gone.numDeletedRows) !== 1 || row.expires <= now) return null;
        return { flow: toFlow(row), profile: row.profile };
      });
    },

    /** Deletes the flows past their time (the hourly purge): how many went. */
    async purgeExpired(now: number): Promise<number> {
      const gone = await db.deleteFrom('saml_flows').where('expires', '<=', now).executeTakeFirst();
      return Number(gone.numDeletedRows);
    },
  };
}

export type SamlRepo = ReturnType<typeof createSamlRepo>;
