import { commonErrors } from '../core/errors.js';
import { parseInput, invalidField } from '../core/validation.js';
import type { Grants } from '../core/grants.js';
import {
  absent,
  duplicateProblems,
  findTargets,
  parseAddressed,
  ownerFilters,
  ownerResolver,
  targetsOf,
  tell,
  type Call,
  type DataStoreContext,
  type Target,
} from './datastore-context.js';
import { dataStoreErrors } from './datastore-errors.js';
import type { ItemAddress, ItemWrites, OwnerChange, WriteInput } from './datastore-inputs.js';
import { DuplicateKeyError, type Item, type NewItem } from './datastore-repo.js';
import { itemsAfter, itemsHooked, removalHooked } from './item-hooks.js';

/**
 * An item a write reached, named as the caller named it (`label`: its key, or its id), and its time after the write.
 */
export interface WrittenItem {
  label: string | number;
  /** Milliseconds since the epoch. */
  updated: number;
}

/** One item of a newItem or setItem call, with where its problems are reported. */
interface WriteEntry extends Target {
  value: string | number;
}

function entriesOf(input: WriteInput): WriteEntry[] {
  const list = input.items ?? [{ key: input.key, id: input.id, value: input.value ?? '', owner: input.owner }];
  return list.map((item, i) => {
    const prefix = input.items ? `items.${i}.` : '';
    const byId = item.key === undefined && item.id !== undefined;
    // The schema has made sure every item has a value.
    const value = item.value ?? '';
    // Two literals rather than a spread with fields added: V8 misses its inline cache on each
    // field written after a spread, a trip into its runtime per field (setItem's hot path).
    return byId
      ? { id: item.id, label: item.id ?? '', field: `${prefix}id`, owner: item.owner, value }
      : { key: item.key, label: item.key ?? '', field: `${prefix}key`, owner: item.owner, value };
  });
}

/** newItem, setItem, removeItem and setOwner: each call is one transaction, stored whole or not at all. */
export function writeOps(ctx: DataStoreContext) {
  const { inputs, repo, clock } = ctx;

  /**
   * The common write, one valid key and value and nothing else, checked by the key and value
   * rules directly: the schema would give the same result at several times the cost. Anything
   * else, or anything invalid, is null, and goes through the schema (which says what is wrong).
   */
  function singleWrite(input: ItemWrites): WriteInput | null {
    const { key, value } = input;
    if (typeof key !== 'string' || (typeof value !== 'string' && typeof value !== 'number')) return null;
    if (!absent(input.id) || !absent(input.items) || !absent(input.owner)) return null;
    if (inputs.keyProblem(key) !== null || inputs.valueProblem(value) !== null) return null;
    return { key, value };
  }

  const exists = (keys: readonly string[]) => dataStoreErrors.item_exists({ fields: keys.map((k) => [k, 'exists']) });

  function assertNoDuplicates(targets: readonly Target[]): void {
    const problems = duplicateProblems(targets);
    if (problems.length > 0) throw commonErrors.validation_failure({ fields: problems });
  }

  /** Owners named in a write, as user ids; an unknown user is an invalid field. */
  async function resolveOwners(entries: readonly WriteEntry[]): Promise<Map<WriteEntry, string>> {
    const resolve = ownerResolver(ctx.users);
    const out = new Map<WriteEntry, string>();
    for (const entry of entries) {
      if (entry.owner === undefined) continue;
      const id = await resolve(entry.owner);
      if (!id) throw invalidField(entry.field.replace(/(key|id)$/, 'owner'), 'unknown_user');
      out.set(entry, id);
    }
    return out;
  }

  /** The owner of a new item: the caller, or another user when the caller may give items away (`setOwner`). */
  function creationOwner({ principal, grants }: Call, asked: string | undefined): string | null {
    if (asked === undefined || asked === principal.userId) return principal.userId;
    if (grants.scope('setOwner') !== 'all') throw grants.refusal('setOwner');
    return asked;
  }

  /**
   * Why an item the caller may not change is refused: 403 when it may read the item, else the
   * same 404 as for an absent item (its existence is not revealed).
   */
  function refuseItem(grants: Grants, item: Item, field: string): never {
    throw grants.covers('getItem', item)
      ? commonErrors.not_allowed()
      : dataStoreErrors.item_not_found({ fields: [[field, 'not found']] });
  }

  /** A unique-index race (another call created one of the keys meanwhile) is retried once, then answered 409. */
  async function retryOnDuplicate<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        if (attempt > 0) throw exists(await repo.existingKeys(keys));
      }
    }
  }

  /** Creates every item or none: an existing key refuses the call (409). The stored items, in the order given. */
  async function create(call: Call, input: ItemWrites): Promise<Item[]> {
    call.grants.require('newItem');
    const entries = entriesOf(singleWrite(input) ?? parseInput(inputs.newItem, input));
    if (ctx.hooks.has('item.create')) await itemsHooked(ctx, 'item.create', call.principal, entries);
    assertNoDuplicates(entries);
    const owners = await resolveOwners(entries);
    const items: NewItem[] = entries.map((entry) => ({
      key: entry.key ?? '',
      value: entry.value,
      owner: creationOwner(call, owners.get(entry)),
    }));
    const keys = items.map((it) => it.key);
    const now = clock.now();
    try {
      // No check first: the unique index refuses an existing key, and nothing is stored. (A
      // check and the insert in a transaction cost PostgreSQL three more round trips.)
      // With after-hooks, their jobs are stored in the insert's transaction (item-hooks.ts).
      const stored = ctx.hooks.hasAfter('item.create')
        ? await repo.transaction(async (trx) => {
            const made = await trx.insert(items, now);
            await itemsAfter(
              ctx,
              call.principal,
              trx.handle,
              made.map((item) => ({ point: 'item.create', item })),
            );
            return made;
          })
        : await repo.insertAll(items, now);
      tell(ctx, 'item.created', stored, call.principal);
      return stored;
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw exists(await repo.existingKeys(keys));
      throw err;
    }
  }

  /** Creates or replaces every item or none. */
  async function set(call: Call, input: ItemWrites): Promise<WrittenItem[]> {
    const { grants, principal } = call;
    if (grants.scope('newItem') === 'none' && grants.scope('setItem') === 'none') throw grants.refusal('setItem');
    const entries = entriesOf(singleWrite(input) ?? parseInput(inputs.setItem, input));
    if (ctx.hooks.has('item.set')) await itemsHooked(ctx, 'item.set', principal, entries);
    const now = clock.now();
    const success = () => entries.map((e): WrittenItem => ({ label: e.label, updated: now }));

    // The common case, replacing one item the caller may replace, is one UPDATE that checks
    // the owner itself. Anything else (a new key, another's item, an id) takes the full path.
    const [one] = entries;
    const replace = grants.scope('setItem');
    const after = ctx.hooks.hasAfter('item.set');
    if (!after && entries.length === 1 && one?.key !== undefined && one.owner === undefined && replace !== 'none') {
      if (await repo.replaceByKey(one.key, one.value, now, replace === 'own' ? principal.userId : null)) {
        tell(ctx, 'item.replaced', [{ key: one.key }], principal);
        return success();
      }
    }

    assertNoDuplicates(entries);
    const owners = await resolveOwners(entries);
    const keys = entries.flatMap((e) => (e.key !== undefined ? [e.key] : []));

    // What the last attempt wrote, told once it committed.
    let replaced: Item[] = [];
    let created: NewItem[] = [];
    const write = () =>
      repo.transaction(async (trx) => {
        const found = await findTargets(
          trx,
          entries.map((e) => ({ ...e, owner: undefined })),
        );
        const creations: NewItem[] = [];
        const replacements: Array<{ item: Item; value: string | number }> = [];
        for (const [i, entry] of entries.entries()) {
          const item = found[i];
          if (item) {
            if (!grants.covers('setItem', item)) refuseItem(grants, item, entry.field);
            replacements.push({ item, value: entry.value });
          } else if (entry.key === undefined) {
            throw dataStoreErrors.item_not_found({ fields: [[entry.field, 'not found']] });
          } else {
            if (grants.scope('newItem') === 'none') throw grants.refusal('newItem');
            creations.push({ key: entry.key, value: entry.value, owner: creationOwner(call, owners.get(entry)) });
          }
        }
        for (const r of replacements) await trx.replaceValue(r.item.id, r.value, now);
        await trx.insert(creations, now);
        if (after)
          await itemsAfter(ctx, principal, trx.handle, [
            ...replacements.map((r) => ({
              point: 'item.set' as const,
              item: { key: r.item.key, value: r.value, owner: r.item.owner },
              created: false,
            })),
            ...creations.map((item) => ({ point: 'item.set' as const, item, created: true })),
          ]);
        replaced = replacements.map((r) => r.item);
        created = creations;
      });
    await retryOnDuplicate(keys, write);
    tell(ctx, 'item.replaced', replaced, principal);
    tell(ctx, 'item.created', created, principal);
    return success();
  }

  /** Removes the items named (those already gone are no failure); the labels of the removed ones. */
  async function remove({ grants, principal }: Call, input: ItemAddress): Promise<Array<string | number>> {
    grants.require('removeItem');
    const targets = targetsOf(parseAddressed(inputs, input));
    if (ctx.hooks.has('item.remove')) await removalHooked(ctx, principal, targets);
    const owners = await ownerFilters(ctx.users, targets);
    const gone: Item[] = [];
    const labels = await repo.transaction(async (trx) => {
      const found = await findTargets(trx, targets, owners);
      const removed = new Map<number, string | number>();
      for (const [i, target] of targets.entries()) {
        const item = found[i];
        if (!item || removed.has(item.id)) continue;
        if (!grants.covers('removeItem', item)) {
          // An item the caller cannot even read counts as absent.
          if (grants.covers('getItem', item)) throw commonErrors.not_allowed();
          continue;
        }
        removed.set(item.id, target.label);
        gone.push(item);
      }
      const deleted = new Set(await trx.remove([...removed.keys()]));
      // Gone meanwhile by another caller's delete (PostgreSQL's read committed): theirs, not ours.
      for (const id of removed.keys()) if (!deleted.has(id)) removed.delete(id);
      for (let i = gone.length - 1; i >= 0; i--) if (!deleted.has(gone[i]?.id ?? -1)) gone.splice(i, 1);
      if (ctx.hooks.hasAfter('item.remove'))
        await itemsAfter(
          ctx,
          principal,
          trx.handle,
          gone.map((item) => ({ point: 'item.remove', item })),
        );
      return [...removed.values()];
    });
    tell(ctx, 'item.removed', gone, principal);
    return labels;
  }

  /** Gives every item named to one user, or none of them. */
  async function setOwner({ grants, principal }: Call, input: OwnerChange): Promise<WrittenItem[]> {
    grants.require('setOwner');
    const parsed = parseAddressed(inputs, input);
    // `newOwner` (the Python connector) names the new owner, and `owner` is then a filter on
    // the current one; without `newOwner`, `owner` is the new owner (the jQuery connector).
    const [asked, field, filter] =
      parsed.newOwner !== undefined ? [parsed.newOwner, 'newOwner', parsed.owner] : [parsed.owner, 'owner', undefined];
    if (asked === undefined) throw invalidField('newOwner', 'required');
    const ownerId = await ownerResolver(ctx.users)(asked);
    if (!ownerId) throw invalidField(field, 'unknown_user');
    const targets = targetsOf({ ...parsed, owner: filter });
    const owners = await ownerFilters(ctx.users, targets);
    const given = await repo.transaction(async (trx) => {
      const found = await findTargets(trx, targets, owners);
      const items: Item[] = [];
      for (const [i, target] of targets.entries()) {
        const item = found[i];
        if (!item) throw dataStoreErrors.item_not_found({ fields: [[target.field, 'not found']] });
        if (!grants.covers('setOwner', item)) refuseItem(grants, item, target.field);
        items.push(item);
      }
      await trx.setOwner(
        items.map((it) => it.id),
        ownerId,
      );
      return items;
    });
    tell(ctx, 'item.owner_changed', given, principal);
    return given.map((it, i): WrittenItem => ({ label: targets[i]?.label ?? it.key, updated: it.updated }));
  }

  return { create, set, remove, setOwner };
}
