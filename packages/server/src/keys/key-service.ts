import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { KEY_PREFIX, keyScopeSchema, outOfScope, type KeyIdentity } from '../core/api-keys.js';
import type { AuditChange } from '../core/audit.js';
import { Cache, type CacheFeed } from '../core/cache.js';
import type { Clock } from '../core/clock.js';
import type { EventBus } from '../core/events.js';
import { commonErrors } from '../core/errors.js';
import { backendGrants } from '../core/grants.js';
import { hashToken, randomName, randomToken } from '../core/ids.js';
import type { Principal } from '../core/permissions.js';
import { parseInput } from '../core/validation.js';
import { keyErrors } from './key-errors.js';
import type { KeyRepo, KeyRow } from './key-repo.js';
import { isoTime } from '../core/clock.js';

/** `roost_<id>_<secret>`: the id finds the row, the secret's hash is compared in constant time. */
const KEY_FORMAT = /^roost_([a-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

/** A key's last use is written at most this often (a write per request would cost more than the request). */
const LAST_USE_STEP_MS = 60_000;

/** How long a process keeps a key it read; a revocation reaches the other processes at once anyway. */
const KEPT_MS = 60_000;

export const newKeyInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(keyScopeSchema).min(1).max(50),
  /** ISO 8601 with an offset; absent or null: the key never expires. */
  expires: z.iso.datetime({ offset: true }).nullable().optional(),
  /** Or this many days from now (the admin page's field). */
  expiresInDays: z.number().int().min(1).max(36_500).optional(),
});
export type NewKeyInput = z.input<typeof newKeyInput>;

/** A key as administrators see it: never its secret nor its hash. */
export interface KeyView extends Omit<KeyRow, 'secretHash'> {
  state: 'active' | 'expired' | 'revoked';
}

type KeyPrincipal = Principal & { key: KeyIdentity };
type Kept = { row: KeyRow; principal: KeyPrincipal } | null;

export interface KeyServiceDeps {
  repo: KeyRepo;
  clock: Clock;
  /** The other processes' changes (PostgreSQL): a revocation on one forgets the key on all. */
  changes: CacheFeed | null;
  /** Told of each revocation (key-events.ts): the key's live streams end at once. */
  events: EventBus;
}

/**
 * The API keys: made, listed and revoked by administrators (never by a key, whatever its scopes),
 * and turned into their principal for each request that presents one.
 */
export function createKeyService(deps: KeyServiceDeps) {
  const { repo, clock } = deps;
  const kept = new Cache<Kept>({ clock, ttlMs: KEPT_MS, maxSize: 10_000, feed: deps.changes, topic: 'api_keys' });

  const load = async (id: string): Promise<Kept> => {
    const row = await repo.byId(id);
    if (!row) return null;
    const key: KeyIdentity = Object.freeze({ id: row.id, scopes: row.scopes });
    return { row, principal: Object.freeze({ userId: null, name: `key:${row.name}`, groups: [], key }) };
  };

  const stateOf = (row: KeyRow, now: number): KeyView['state'] =>
    row.revoked !== null ? 'revoked' : row.expires !== null && now >= row.expires ? 'expired' : 'active';

  const viewOf = (row: KeyRow, now: number): KeyView => {
    const { secretHash: _hidden, ...shown } = row;
    return { ...shown, state: stateOf(row, now) };
  };

  /** Administrators only; a key never manages keys, even one scoped to manage stores. */
  function requireAdministrator(caller: Principal): void {
    if (caller.key) throw outOfScope('the API keys');
    backendGrants(caller).require('administer');
  }

  return {
    /** The key's principal; throws `invalid_api_key` for a key that is malformed, unknown, revoked or expired. */
    async authenticate(token: string): Promise<KeyPrincipal> {
      const parts = KEY_FORMAT.exec(token);
      if (!parts?.[1] || !parts[2]) throw keyErrors.invalid_api_key();
      const entry = await kept.read(parts[1], load);
      const given = Buffer.from(hashToken(parts[2]));
      const stored = Buffer.from(entry?.row.secretHash ?? '');
      if (!entry || given.length !== stored.length || !timingSafeEqual(given, stored))
        throw keyErrors.invalid_api_key();
      const now = clock.now();
      const state = stateOf(entry.row, now);
      if (state !== 'active') throw keyErrors.invalid_api_key({ message: `The API key is ${state}.` });
      const last = entry.row.lastUsed;
      if (last === null || now - last >= LAST_USE_STEP_MS) {
        entry.row.lastUsed = now;
        await repo.touch(entry.row.id, now);
      }
      return entry.principal;
    },

    /** A new key; its text (`token`) is in this answer only. */
    async create(caller: Principal, input: NewKeyInput): Promise<{ key: KeyView; token: string }> {
      requireAdministrator(caller);
      const values = parseInput(newKeyInput, input);
      const now = clock.now();
      const expires = values.expiresInDays
        ? now + values.expiresInDays * 86_400_000
        : values.expires
          ? Date.parse(values.expires)
          : null;
      if (expires !== null && expires <= now)
        throw commonErrors.validation_failure({
          message: 'The expiry is in the past.',
          fields: [['expires', 'invalid']],
        });
      const id = randomName(16);
      const secret = randomToken();
      const row: KeyRow = {
        id,
        name: values.name,
        secretHash: hashToken(secret),
        scopes: values.scopes,
        created: now,
        createdBy: caller.name ?? caller.userId ?? 'unknown',
        expires,
        lastUsed: null,
        revoked: null,
      };
      const audit: AuditChange = {
        action: 'key.create',
        target: id,
        after: { name: row.name, scopes: row.scopes, expires: isoTime(expires) },
      };
      await repo.insert(row, audit);
      return { key: viewOf(row, now), token: `${KEY_PREFIX}${id}_${secret}` };
    },

    async list(caller: Principal): Promise<KeyView[]> {
      requireAdministrator(caller);
      const now = clock.now();
      return (await repo.list()).map((row) => viewOf(row, now));
    },

    async get(caller: Principal, id: string): Promise<KeyView> {
      requireAdministrator(caller);
      const row = await repo.byId(id);
      if (!row) throw keyErrors.unknown_key({ fields: [['id', 'not_found']] });
      return viewOf(row, clock.now());
    },

    /** Revokes at once on every process: the row first, then every process forgets the key. */
    async revoke(caller: Principal, id: string): Promise<void> {
      requireAdministrator(caller);
      const row = await repo.byId(id);
      if (!row) throw keyErrors.unknown_key({ fields: [['id', 'not_found']] });
      const now = clock.now();
      const audit: AuditChange = {
        action: 'key.revoke',
        target: id,
        before: { name: row.name, revoked: isoTime(row.revoked) },
        after: { name: row.name, revoked: isoTime(row.revoked ?? now) },
      };
      await kept.around(
        () => kept.forget(id),
        () => repo.revoke(id, now, audit),
      );
      await kept.publish(id);
      // After the forgetting, in the same message to the other processes (core/events.ts).
      deps.events.emit({ kind: 'key.revoked', keyId: id }, caller);
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
