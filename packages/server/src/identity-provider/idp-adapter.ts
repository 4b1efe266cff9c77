import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../core/clock.js';
import type { ClientRegistry } from './idp-clients.js';
import type { IdpRepo } from './idp-repo.js';

/**
 * oidc-provider's adapter over Roost's database (the `idp_models` table, idp-repo.ts), so that
 * every process shares the sessions, interactions, codes, grants and tokens: a code issued by one
 * process is exchanged at another. One adapter per model kind (the library makes them by name);
 * a payload is the library's JSON as it gave it. Consumption is kept as the library's memory
 * adapter keeps it (`consumed`, in seconds, on the payload found), so a replayed code is seen
 * by whichever process gets it and revokes its grant (the library's rule). Clients are the
 * registry's (idp-clients.ts).
 */
const NOTHING: Adapter = {
  upsert: async () => undefined,
  find: async () => undefined,
  findByUid: async () => undefined,
  findByUserCode: async () => undefined,
  consume: async () => undefined,
  destroy: async () => undefined,
  revokeByGrantId: async () => undefined,
};

export function idpAdapterFactory(repo: IdpRepo, clock: Clock, clients: ClientRegistry): (kind: string) => Adapter {
  return (kind) => {
    // The applications of the admin page (idp_clients); the library never writes clients (no
    // dynamic registration), so only `find` answers.
    if (kind === 'Client') return { ...NOTHING, find: (id) => clients.metadata(id) };
    const found = (row: { payload: string; consumed: number | null } | undefined): AdapterPayload | undefined => {
      if (!row) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      return row.consumed === null ? payload : { ...payload, consumed: Math.floor(row.consumed / 1000) };
    };
    return {
      async upsert(id, payload, expiresIn) {
        await repo.upsert(kind, id, {
          payload: JSON.stringify(payload),
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          userCode: payload.userCode ?? null,
          expires: typeof expiresIn === 'number' ? clock.now() + expiresIn * 1000 : null,
        });
      },
      find: async (id) => found(await repo.find(kind, 'id', id, clock.now())),
      findByUid: async (uid) => found(await repo.find(kind, 'uid', uid, clock.now())),
      findByUserCode: async (code) => found(await repo.find(kind, 'user_code', code, clock.now())),
      consume: (id) => repo.consume(kind, id, clock.now()),
      destroy: (id) => repo.destroy(kind, id),
      revokeByGrantId: (grantId) => repo.revokeGrant(grantId),
    };
  };
}
