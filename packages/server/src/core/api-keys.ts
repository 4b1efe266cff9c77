import { z } from 'zod';
import { commonErrors, type RoostError } from './errors.js';
import type { Principal } from './permissions.js';

/**
 * API keys (issue 42, item 4; docs/operations.md "API keys"): a principal of its own whose grants
 * are its scopes, made by an administrator for a server that calls Roost. The key service
 * (keys/) stores and checks them; this module is what the permission checks of every domain
 * need to know of them (core/grants.ts for the stores, collections/collection-access.ts for the
 * collections' rules).
 */

/** Every key's text starts so (`roost_<id>_<secret>`): the user service hands such tokens to the keys. */
export const KEY_PREFIX = 'roost_';

/**
 * What a scope lets a key do to its store or collection: `read` (the operations that only look),
 * `write` (create, change, remove), `manage` (owners and permission entries of a store).
 * None implies another: a key that writes and reads has both.
 */
const KEY_ACCESS = ['read', 'write', 'manage'] as const;
export type KeyAccess = (typeof KEY_ACCESS)[number];

/**
 * Which services a scope names: a store (data or file store, by name) or a collection; `*` is all
 * of the kind. `scim:*` is an identity provider's SCIM connection (scim/scim-routes.ts): `read`
 * lists and reads its Users and Groups, `write` provisions accounts and groups.
 */
export const SCOPE_KINDS = ['store', 'collection', 'scim'] as const;

const scopeName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^(\*|[\p{L}\p{N}][\p{L}\p{N}._-]*)$/u, 'a store or collection name, or *');

export const keyScopeSchema = z
  .strictObject({
    kind: z.enum(SCOPE_KINDS),
    name: scopeName,
    access: z.array(z.enum(KEY_ACCESS)).min(1).max(KEY_ACCESS.length),
  })
  // There is one SCIM endpoint: a scope naming another would grant nothing, so it is refused.
  .refine((scope) => scope.kind !== 'scim' || scope.name === '*', { message: 'invalid', path: ['name'] });
export type KeyScope = z.infer<typeof keyScopeSchema>;

/** What a principal made from a key carries besides the plain principal (core/permissions.ts). */
export interface KeyIdentity {
  readonly id: string;
  readonly scopes: readonly KeyScope[];
}

/** Does one of the scopes give `access` to the store or collection `name`? */
export function keyAllows(
  key: KeyIdentity,
  kind: (typeof SCOPE_KINDS)[number],
  name: string,
  access: KeyAccess,
): boolean {
  return key.scopes.some(
    (scope) => scope.kind === kind && (scope.name === '*' || scope.name === name) && scope.access.includes(access),
  );
}

/** The refusal of an operation a key's scopes do not cover: 403, in Roost's failure body. */
export function outOfScope(what: string): RoostError {
  return commonErrors.not_allowed({ message: `This API key's scopes do not cover ${what}.` });
}

/** The port through which the user service turns a `roost_` token into the key's principal (keys/). */
export interface KeyAuthenticator {
  /**
   * The key's principal; throws `invalid_api_key` (keys/key-errors.ts) for a malformed, unknown,
   * revoked or expired key.
   */
  authenticate(token: string): Promise<Principal & { key: KeyIdentity }>;
}

/** The scopes in their text form (`store:notes:read,write`), for pages, the CLI and the docs. */
export function scopeText(scope: KeyScope): string {
  return `${scope.kind}:${scope.name}:${scope.access.join(',')}`;
}

/**
 * Scopes from their text form, one per line or separated by spaces; the problems in words for a
 * form field. Checked again by `keyScopeSchema` where a key is made.
 */
export function parseScopeText(text: string): { scopes: KeyScope[]; problem: string | null } {
  const scopes: KeyScope[] = [];
  for (const part of text.split(/\s+/).filter(Boolean)) {
    const [kind, name, access, ...rest] = part.split(':');
    const parsed = keyScopeSchema.safeParse({ kind, name, access: access?.split(',').filter(Boolean) ?? [] });
    if (!parsed.success || rest.length > 0)
      return { scopes: [], problem: `"${part}" is not kind:name:access (e.g. store:notes:read,write)` };
    scopes.push(parsed.data);
  }
  return { scopes, problem: null };
}
