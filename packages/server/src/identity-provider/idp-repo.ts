import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** A model of oidc-provider as stored: its JSON payload and the references it is found by. */
export interface StoredModel {
  payload: string;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  /** ms since the epoch; null: kept until destroyed. */
  expires: number | null;
}

/** An application an administrator registered (idp-clients.ts); `secret` as stored (sealed), null for a public one. */
export interface ClientRow {
  clientId: string;
  name: string;
  secret: string | null;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  created: number;
  createdBy: string;
}

/** What an account allowed a client: the OpenID scopes, and each resource server's. */
export interface Consent {
  scope: string;
  resources: Record<string, string>;
}

const asNumber = (v: number | string | null): number | null => (v === null ? null : Number(v));

const clientOf = (r: Database['idp_clients']): ClientRow => ({
  clientId: r.client_id,
  name: r.name,
  secret: r.secret,
  redirectUris: JSON.parse(r.redirect_uris) as string[],
  postLogoutRedirectUris: JSON.parse(r.post_logout_redirect_uris) as string[],
  created: Number(r.created),
  createdBy: r.created_by,
});

/**
 * The identity provider's tables (migration 2026-12-03-01): `idp_models` for the library's
 * adapter (idp-adapter.ts), `idp_keys` for the keys made once (idp-keys.ts), `idp_consents` for
 * what accounts allowed (idp-routes.ts, idp-applications-page.ts). Expired models are never answered; `purgeExpired`
 * removes them.
 */
export function createIdpRepo(db: Kysely<Database>) {
  async function live(kind: string, column: 'id' | 'uid' | 'user_code', value: string, now: number) {
    return db
      .selectFrom('idp_models')
      .select(['payload', 'consumed'])
      .where('kind', '=', kind)
      .where(column, '=', value)
      .where((eb) => eb.or([eb('expires', 'is', null), eb('expires', '>', now)]))
      .executeTakeFirst();
  }

  return {
    async upsert(kind: string, id: string, model: StoredModel): Promise<void> {
      const row = {
        payload: model.payload,
        grant_id: model.grantId,
        uid: model.uid,
        user_code: model.userCode,
        expires: model.expires,
        consumed: null,
      };
      await db
        .insertInto('idp_models')
        .values({ kind, id, ...row })
        .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet(row))
        .execute();
    },

    /** The payload and when it was consumed (ms), of an unexpired model found by id, uid or user code. */
    async find(
      kind: string,
      by: 'id' | 'uid' | 'user_code',
      value: string,
      now: number,
    ): Promise<{ payload: string; consumed: number | null } | undefined> {
      const row = await live(kind, by, value, now);
      return row && { payload: row.payload, consumed: asNumber(row.consumed) };
    },

    async consume(kind: string, id: string, now: number): Promise<void> {
      await db
        .updateTable('idp_models')
        .set({ consumed: now })
        .where('kind', '=', kind)
        .where('id', '=', id)
        .where('consumed', 'is', null)
        .execute();
    },

    async destroy(kind: string, id: string): Promise<void> {
      await db.deleteFrom('idp_models').where('kind', '=', kind).where('id', '=', id).execute();
    },

    /** Every code and token of a grant (the library revokes a grant so, e.g. on a replayed code). */
    async revokeGrant(grantId: string): Promise<void> {
      await db.deleteFrom('idp_models').where('grant_id', '=', grantId).execute();
    },

    async purgeExpired(now: number): Promise<number> {
      const done = await db.deleteFrom('idp_models').where('expires', '<=', now).executeTakeFirst();
      return Number(done.numDeletedRows);
    },

    /** The key stored under `name`; made by `make` and stored first if there is none (the first process wins). */
    async keyOrMake(name: string, make: () => Promise<string>, now: number): Promise<string> {
      const read = () => db.selectFrom('idp_keys').select('value').where('name', '=', name).executeTakeFirst();
      const found = await read();
      if (found) return found.value;
      const value = await make();
      await db
        .insertInto('idp_keys')
        .values({ name, value, created: now })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      // Another process may have stored its own meanwhile: every process uses the one stored.
      return (await read())?.value ?? value;
    },

    async consentOf(userId: string, clientId: string): Promise<Consent | null> {
      const row = await db
        .selectFrom('idp_consents')
        .select(['scope', 'resources'])
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return row ? { scope: row.scope, resources: JSON.parse(row.resources) as Record<string, string> } : null;
    },

    async saveConsent(userId: string, clientId: string, consent: Consent, now: number): Promise<void> {
      const values = { scope: consent.scope, resources: JSON.stringify(consent.resources), created: now };
      await db
        .insertInto('idp_consents')
        .values({ user_id: userId, client_id: clientId, ...values })
        .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet(values))
        .execute();
    },

    /** The consents of an account, to list and take back (the account page). */
    async consentsOf(userId: string): Promise<{ clientId: string; scope: string; created: number }[]> {
      const rows = await db
        .selectFrom('idp_consents')
        .select(['client_id', 'scope', 'created'])
        .where('user_id', '=', userId)
        .orderBy('client_id')
        .execute();
      return rows.map((r) => ({ clientId: r.client_id, scope: r.scope, created: Number(r.created) }));
    },

    async removeConsent(userId: string, clientId: string): Promise<void> {
      await db.deleteFrom('idp_consents').where('user_id', '=', userId).where('client_id', '=', clientId).execute();
    },

    async clients(): Promise<ClientRow[]> {
      return (await db.selectFrom('idp_clients').selectAll().orderBy('name').execute()).map(clientOf);
    },

    async client(clientId: string): Promise<ClientRow | null> {
      const row = await db.selectFrom('idp_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
      return row ? clientOf(row) : null;
    },

    /** False when the id is taken. */
    async insertClient(client: ClientRow): Promise<boolean> {
      const done = await db
        .insertInto('idp_clients')
        .values({
          client_id: client.clientId,
          name: client.name,
          secret: client.secret,
          redirect_uris: JSON.stringify(client.redirectUris),
          post_logout_redirect_uris: JSON.stringify(client.postLogoutRedirectUris),
          created: client.created,
          created_by: client.createdBy,
        })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .executeTakeFirst();
      return Number(done.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    /** The application and what accounts allowed it; its tokens die with their short lifetime. */
    async removeClient(clientId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('idp_consents').where('client_id', '=', clientId).execute();
        await trx.deleteFrom('idp_clients').where('client_id', '=', clientId).execute();
      });
    },
  };
}

export type IdpRepo = ReturnType<typeof createIdpRepo>;
