/**
 * The permission model shared by all services: each service keeps entries
 * `permission -> groups`. A caller holds a permission when one of its groups is listed.
 * Pseudo-groups: `sys:everyone` (anyone), `sys:authenticated` (any signed-in user),
 * `sys:registered` (any signed-in user but an anonymous account: users/signin-methods/anonymous/),
 * `sys:owner` (the owner of the item or entry at hand), `sys:noone` (nobody).
 */
import type { KeyAccess, KeyIdentity } from './api-keys.js';
import { commonErrors, type RoostError } from './errors.js';

export const EVERYONE = 'sys:everyone';
export const AUTHENTICATED = 'sys:authenticated';
export const REGISTERED = 'sys:registered';
export const OWNER = 'sys:owner';
export const NOONE = 'sys:noone';
export const ADMINS = 'admins';

export type PermissionMap = Readonly<Record<string, readonly string[]>>;

/**
 * The groups `map` grants `permission`; none for a name it does not hold. Names come from
 * callers (`allowed`), so only own entries count: `constructor` or `toString` would otherwise
 * find a member every object inherits.
 */
export function grantedIn(map: PermissionMap, permission: string): readonly string[] {
  return Object.hasOwn(map, permission) ? (map[permission] ?? []) : [];
}

type PermissionAction = 'add' | 'replace' | 'revoke';

export interface PermissionChange {
  permission: string;
  groups: string[];
  action: PermissionAction;
}

/**
 * Who is calling: a signed-in user, an API key (`key`, core/api-keys.ts: its grants are its
 * scopes, `userId` is null, so it owns nothing), or nobody. Plain data, no request in here.
 */
export interface Principal {
  userId: string | null;
  name: string | null;
  groups: readonly string[];
  key?: KeyIdentity;
  /** An anonymous account (users/signin-methods/anonymous/): signed in, but not in `sys:registered`. */
  anonymous?: true;
}

export const ANONYMOUS: Principal = Object.freeze({ userId: null, name: null, groups: [] });

/**
 * Does `principal` hold a permission granted to `granted`? `isOwner` says whether the caller
 * owns the thing the permission is checked for (only then does `sys:owner` count).
 */
export function holds(granted: readonly string[], principal: Principal, isOwner = false): boolean {
  for (const group of granted) {
    if (group === EVERYONE) return true;
    if (group === NOONE) continue;
    if (principal.userId === null) continue;
    if (group === AUTHENTICATED) return true;
    if (group === REGISTERED) {
      if (principal.anonymous !== true) return true;
      continue;
    }
    if (group === OWNER) {
      if (isOwner) return true;
      continue;
    }
    if (principal.groups.includes(group)) return true;
  }
  return false;
}

/**
 * Why a caller who does not hold a permission granted to `granted` is refused: 401 when it is
 * anonymous and signing in could help (the permission is open to someone), else 403. So a
 * sign-up policy switched off (`sys:noone` only) answers 403 to everybody, and an API key gets
 * 403 too.
 */
export function refusal(granted: readonly string[], principal: Principal): RoostError {
  // An API key has signed in as far as it can: it is refused (core/api-keys.ts).
  const signingInCouldHelp = principal.userId === null && !principal.key && granted.some((g) => g !== NOONE);
  return signingInCouldHelp ? commonErrors.not_signed_in() : commonErrors.not_allowed();
}

/** Who may read a store by default, per its configuration. */
export type StoreReadGroup = typeof EVERYONE | typeof AUTHENTICATED;

/**
 * What each operation of a store is to an API key's scopes (core/api-keys.ts): the reads `read`,
 * creating and changing `write`, owners and permission entries `manage`. `allowed` and `ping`
 * are open to everyone and need no scope.
 */
export function storeKeyAccess(ops: {
  reads: readonly string[];
  changes: readonly string[];
}): Readonly<Record<string, KeyAccess>> {
  return Object.freeze({
    ...Object.fromEntries(ops.reads.map((op) => [op, 'read'])),
    newItem: 'write',
    ...Object.fromEntries(ops.changes.map((op) => [op, 'write'])),
    setOwner: 'manage',
    getPermissions: 'manage',
    setPermissions: 'manage',
  });
}

/**
 * The default entries of a store, the model data and file stores share, one entry per
 * operation: `reads` go to the store's `read` group and administrators; anyone signed in may
 * create (`newItem`), and the creator owns what it created; `changes` are for the owner
 * (`sys:owner`) and administrators; ownership and permissions for administrators only.
 * Made once per store: the permission store caches merged entries per defaults object.
 */
export function storePermissionDefaults(
  read: StoreReadGroup,
  ops: { reads: readonly string[]; changes: readonly string[] },
): PermissionMap {
  return Object.freeze({
    ...Object.fromEntries(ops.reads.map((op) => [op, [read, ADMINS]])),
    newItem: [AUTHENTICATED],
    ...Object.fromEntries(ops.changes.map((op) => [op, [OWNER, ADMINS]])),
    setOwner: [ADMINS],
    getPermissions: [ADMINS],
    setPermissions: [ADMINS],
    allowed: [EVERYONE],
    ping: [EVERYONE],
  });
}

/** The groups after one change; `add` keeps order and drops duplicates. */
export function applyChange(current: readonly string[], change: PermissionChange): string[] {
  switch (change.action) {
    case 'replace':
      return [...new Set(change.groups)];
    case 'revoke':
      return current.filter((g) => !change.groups.includes(g));
    case 'add':
      return [...new Set([...current, ...change.groups])];
  }
}

/**
 * The port through which a service reads and changes its entries. Entries not changed yet come
 * from the service's defaults.
 */
export interface PermissionStore {
  /** The entries; kept ones come back as they are, without a promise (every request asks). */
  entries(service: string, defaults: PermissionMap): PermissionMap | Promise<PermissionMap>;
  change(service: string, defaults: PermissionMap, changes: PermissionChange[]): Promise<PermissionMap>;
}

/** A service's view of its own entries: check and change, with its defaults bound. */
export interface ServicePermissions {
  /** Its name in the `permissions` table: `users`, a store's name. */
  readonly service: string;
  /**
   * What each operation is to an API key's scopes (`storeKeyAccess`); a service without them
   * (the user service) lets a key do only what it lets everyone do.
   */
  readonly keyAccess: Readonly<Record<string, KeyAccess>> | null;
  /** The entries; kept ones come back as they are, without a promise (every request asks). */
  entries(): PermissionMap | Promise<PermissionMap>;
  change(changes: PermissionChange[]): Promise<PermissionMap>;
  names(): readonly string[];
}

export function servicePermissions(
  store: PermissionStore,
  service: string,
  defaults: PermissionMap,
  keyAccess: Readonly<Record<string, KeyAccess>> | null = null,
): ServicePermissions {
  return {
    service,
    keyAccess,
    entries: () => store.entries(service, defaults),
    change: (changes) => store.change(service, defaults, changes),
    names: () => Object.keys(defaults),
  };
}

/** What a group an administrator gives may look like (the admin pages and the CLI check by it). */
const GROUP_NAME_RULE = 'letters, digits and . _ : @ - (at most 100), not starting with sys:';
const GROUP_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._:@-]{0,99}$/u;

/** A group an account can be put in: not a `sys:` pseudo-group, and of the characters of `GROUP_NAME_RULE`. */
export function isGroupName(group: string): boolean {
  return !group.startsWith('sys:') && GROUP_NAME.test(group);
}

/**
 * What is wrong with a list of groups for an account, in words (the
 * CLI and the admin pages say the same); undefined when nothing is.
 */
export function groupListProblem(groups: readonly string[]): string | undefined {
  if (groups.length > 100) return 'at most 100 groups';
  const bad = groups.find((g) => !isGroupName(g));
  return bad === undefined ? undefined : `"${bad.slice(0, 40)}" is not a group name: ${GROUP_NAME_RULE}`;
}
