import { invalidField, parseInput } from '../core/validation.js';
import {
  absent,
  type Call,
  type DataStoreContext,
  findTargets,
  ownerFilters,
  ownerResolver,
  pageSize,
  parseAddressed,
  targetsOf,
} from './datastore-context.js';
import type { ItemAddress, KeysQuery, ListQuery } from './datastore-inputs.js';
import type { Item } from './datastore-repo.js';

/** One page of a listing: `start` counts from 1, `total` counts every match. */
interface Page {
  start: number;
  size: number;
  total: number;
}

export interface ItemPage extends Page {
  items: Item[];
}

export interface KeyPage extends Page {
  keys: string[];
}

/** getItem, getOwner, list and keys: what a caller may read, and nothing it may not. */
export function readOps(ctx: DataStoreContext) {
  // The reads that may be a little stale (docs/scaling.md, "Read replicas"); the grants are the primary's.
  const { inputs, readRepo: repo } = ctx;

  /**
   * The items `address` names that the caller may read (`permission`), in the order named. An
   * item it may not read is left out like an absent one, so nothing tells whether a key exists.
   */
  async function readable({ grants }: Call, permission: string, address: ItemAddress): Promise<Item[]> {
    grants.require(permission);
    // The common case, one key and nothing else, takes one indexed query.
    const { key } = address;
    if (typeof key === 'string' && absent(address.id) && absent(address.items) && absent(address.owner)) {
      const problem = inputs.keyProblem(key);
      if (problem) throw invalidField('key', problem);
      const item = await repo.byKey(key);
      return item && grants.covers(permission, item) ? [item] : [];
    }
    const targets = targetsOf(parseAddressed(inputs, address));
    const found = await findTargets(repo, targets, await ownerFilters(ctx.users, targets));
    return found.filter((it): it is Item => it !== undefined && grants.covers(permission, it));
  }

  /**
   * The owner a listing is narrowed to: the asked one (by name, email or id), and only the
   * caller's own items when it reads through `sys:owner`. `null` means nothing can match.
   */
  async function listedOwner(
    permission: string,
    { grants, principal }: Call,
    asked: string | undefined,
  ): Promise<string | null | undefined> {
    const scope = grants.require(permission);
    const owner = asked === undefined ? undefined : await ownerResolver(ctx.users)(asked);
    if (scope === 'all') return owner;
    return owner === undefined || owner === principal.userId ? principal.userId : null;
  }

  return {
    get: (call: Call, address: ItemAddress) => readable(call, 'getItem', address),
    /** As `get`, under the `getOwner` permission (the answers show only the owners). */
    getOwners: (call: Call, address: ItemAddress) => readable(call, 'getOwner', address),

    async list(call: Call, input: ListQuery): Promise<ItemPage> {
      call.grants.require('list');
      const plain = inputs.plainPage(input);
      const query = plain ? { ...plain, sort: 'key' as const } : parseInput(inputs.list, input);
      const owner = await listedOwner('list', call, query.owner);
      const size = pageSize(ctx, query.size);
      const { items, total } =
        owner === null
          ? { items: [], total: 0 }
          : await repo.page({
              keys: query.key,
              prefix: query.prefix,
              owner,
              sort: query.sort,
              order: query.order,
              start: query.start,
              size,
            });
      return { items, start: query.start, size, total };
    },

    async keys(call: Call, input: KeysQuery): Promise<KeyPage> {
      call.grants.require('keys');
      const query = inputs.plainPage(input) ?? parseInput(inputs.keys, input);
      const owner = await listedOwner('keys', call, query.owner);
      const size = pageSize(ctx, query.size);
      const { keys, total } =
        owner === null
          ? { keys: [], total: 0 }
          : await repo.keyPage({ prefix: query.prefix, owner, order: query.order, start: query.start, size });
      return { keys, start: query.start, size, total };
    },
  };
}
