import type { HookRunner } from '../core/hooks.js';
import type { Clock } from '../core/clock.js';
import type { UserDirectory } from '../core/user-directory.js';
import type { EventBus } from '../core/events.js';
import type { ItemEvent } from './item-events.js';
import type { FieldProblem } from '../core/errors.js';
import type { Principal, ServicePermissions } from '../core/permissions.js';
import type { Grants } from '../core/grants.js';
import { dataStoreErrors } from './datastore-errors.js';
import type { AddressedInput, DataStoreInputs, ItemAddress } from './datastore-inputs.js';
import { parseInput } from '../core/validation.js';
import type { DataStoreRepo, Item, StoreQueries } from './datastore-repo.js';

/** Everything the operations of one store share: made once per store by `createDataStore`. */
export interface DataStoreContext {
  name: string;
  repo: DataStoreRepo;
  /**
   * The same queries where reads that may be a little stale run (a replica that has replayed
   * the caller's own writes, storage/replica-reads.ts): the read operations' alone, never a
   * write's (datastore-read-ops.ts). `repo` itself without replicas.
   */
  readRepo: DataStoreRepo;
  /** Ids of names and names of ids, from the user service (core/user-directory.ts). */
  users: UserDirectory;
  clock: Clock;
  /** Told of every committed change (core/events.ts). */
  events: EventBus;
  permissions: ServicePermissions;
  inputs: DataStoreInputs;
  /** The team's hooks on items (item-hooks.ts, docs/hooks.md). */
  hooks: HookRunner;
}

/** Who calls, and what it may do (read once per call, see `grantsOf`). */
export interface Call {
  principal: Principal;
  grants: Grants;
}

/** The fields that may hold a list of items. */
const BATCH_FIELDS = ['items', 'key', 'id'] as const;

/**
 * A list longer than `maxBatch` is refused before anything is parsed or stored (413): the
 * original answers "too many items" with its own status.
 */
export function assertBatchSize(input: object, max: number): void {
  const lists = input as Partial<Record<(typeof BATCH_FIELDS)[number], unknown>>;
  for (const field of BATCH_FIELDS) {
    const value = lists[field];
    if (Array.isArray(value) && value.length > max)
      throw dataStoreErrors.too_many_items({ fields: [[field, 'too many']] });
  }
}

/** The page size asked for, within the store's maximum (larger sizes are capped, as the original's analogue does). */
export function pageSize(ctx: DataStoreContext, size: number | undefined): number {
  return Math.min(size ?? ctx.inputs.limits.defaultPageSize, ctx.inputs.limits.maxPageSize);
}

/**
 * Turns names, emails or ids of users into user ids, asking once per name. Never inside a
 * transaction: on SQLite the directory's query would wait for the transaction's end (resolve
 * first, as `ownerFilters` does).
 */
export function ownerResolver(users: UserDirectory) {
  const known = new Map<string, Promise<string | null>>();
  return (identity: string) => {
    let id = known.get(identity);
    if (!id) {
      id = users.idOf(identity, { email: true });
      known.set(identity, id);
    }
    return id;
  };
}

/** The user ids of the owners the targets are narrowed to (null: no such user, nothing matches). */
export async function ownerFilters(
  users: UserDirectory,
  targets: readonly Target[],
): Promise<ReadonlyMap<string, string | null>> {
  const resolve = ownerResolver(users);
  const names = [...new Set(targets.flatMap((t) => (t.owner === undefined ? [] : [t.owner])))];
  return new Map(await Promise.all(names.map(async (name) => [name, await resolve(name)] as const)));
}

/** One addressed item: how the caller named it (`label`: its key or id), and an optional owner filter. */
export interface Target {
  key?: string | undefined;
  id?: number | undefined;
  label: string | number;
  /** Where a problem with this target is reported. */
  field: string;
  owner?: string | undefined;
}

/** A field left out: the original's connectors send `null` for a field they leave out. */
export const absent = (v: unknown) => v === undefined || v === null;

/**
 * The addressing fields of a read, removal or owner change. A single key is checked on its
 * own first, so that its problem is reported as `key` (not `key.0` of the list it becomes).
 */
export function parseAddressed(inputs: DataStoreInputs, input: ItemAddress): AddressedInput {
  if (typeof input.key === 'string') parseInput(inputs.singleKey, input);
  return parseInput(inputs.addressed, input);
}

export function targetsOf(input: AddressedInput): Target[] {
  const targets: Target[] = [];
  for (const [i, key] of (input.key ?? []).entries())
    targets.push({ key, label: key, field: input.key!.length > 1 ? `key.${i}` : 'key', owner: input.owner });
  for (const [i, id] of (input.id ?? []).entries())
    targets.push({ id, label: id, field: input.id!.length > 1 ? `id.${i}` : 'id', owner: input.owner });
  input.items?.forEach((item, i) => {
    const field = `items.${i}`;
    if (item.key !== undefined)
      targets.push({ key: item.key, label: item.key, field: `${field}.key`, owner: item.owner ?? input.owner });
    else if (item.id !== undefined)
      targets.push({ id: item.id, label: item.id, field: `${field}.id`, owner: item.owner ?? input.owner });
  });
  return targets;
}

/**
 * The item each target names (undefined when there is none, or when the owner filter does not
 * match). `owners` holds the filters' user ids (`ownerFilters`), resolved before a transaction.
 */
export async function findTargets(
  repo: StoreQueries,
  targets: readonly Target[],
  owners: ReadonlyMap<string, string | null> = new Map(),
): Promise<Array<Item | undefined>> {
  const keys = targets.flatMap((t) => (t.key !== undefined ? [t.key] : []));
  const ids = targets.flatMap((t) => (t.id !== undefined ? [t.id] : []));
  const [byKey, byId] = await Promise.all([repo.byKeys(keys), repo.byIds(ids)]);
  const keyed = new Map(byKey.map((it) => [it.key, it]));
  const numbered = new Map(byId.map((it) => [it.id, it]));
  return targets.map((t) => {
    const item = t.key !== undefined ? keyed.get(t.key) : numbered.get(t.id ?? 0);
    if (!item || t.owner === undefined) return item;
    return item.owner !== null && item.owner === owners.get(t.owner) ? item : undefined;
  });
}

/** Two targets naming one item would make a batch mean two things at once. */
export function duplicateProblems(targets: readonly Target[]): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const t of targets) {
    const id = t.key !== undefined ? `k:${t.key}` : `i:${t.id}`;
    if (seen.has(id)) problems.push([t.field, 'duplicate']);
    seen.add(id);
  }
  return problems;
}

/**
 * Tells the bus of one change to each item, after the write committed. Where the item is gone
 * or changed hands, the owner it had goes with the event (see `ItemEvent`).
 */
export function tell(
  ctx: DataStoreContext,
  kind: ItemEvent['kind'],
  items: ReadonlyArray<{ key: string; id?: number; owner?: string | null }>,
): void {
  const withOwner = kind === 'item.removed' || kind === 'item.owner_changed';
  for (const item of items) {
    const event: ItemEvent = { kind, store: ctx.name, key: item.key };
    if (item.id !== undefined) event.id = item.id;
    if (withOwner && item.owner !== undefined) event.owner = item.owner;
    ctx.events.emit(event);
  }
}
