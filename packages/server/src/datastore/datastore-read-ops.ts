import { parseInput, invalidField } from '../core/validation.js';
import {
  absent,
  findTargets,
  parseAddressed,
  isSingle,
  ownerResolver,
  pageSize,
  targetsOf,
  type Call,
  type DataStoreContext,
  type Operation,
} from './datastore-context.js';
import { dataStoreErrors } from './datastore-errors.js';
import type { Item } from './datastore-repo.js';
import { itemView, ownerView, single } from './datastore-views.js';

/** getItem, getOwner, list and keys: what a caller may read, and nothing it may not. */
export function readOps(ctx: DataStoreContext): Record<string, Operation> {
  const { inputs, repo } = ctx;

  /**
   * The items a read names, as `view` shapes them. An item the caller may not read is treated
   * as absent, so a 404 never tells whether a key exists.
   */
  function addressedRead(permission: string, view: (item: Item) => object): Operation {
    return async ({ grants }, input) => {
      grants.require(permission);
      // The common case, one key and nothing else, takes one indexed query.
      if (typeof input.key === 'string' && absent(input.id) && absent(input.items) && absent(input.owner)) {
        const key = input.key;
        const problem = inputs.keyProblem(key);
        if (problem) throw invalidField('key', problem);
        const item = await repo.byKey(key);
        if (!item || !grants.covers(permission, item))
          throw dataStoreErrors.item_not_found({ fields: [['key', 'not found']] });
        return single(item, view);
      }
      const targets = targetsOf(parseAddressed(inputs, input));
      const found = await findTargets(repo, targets);
      const visible = found.filter((it): it is Item => it !== undefined && grants.covers(permission, it));
      if (!isSingle(input)) return { items: visible.map(view) };
      const [item] = visible;
      if (!item) throw dataStoreErrors.item_not_found({ fields: [[targets[0]?.field ?? 'key', 'not found']] });
      return single(item, view);
    };
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
    const owner = asked === undefined ? undefined : await ownerResolver(repo)(asked);
    if (scope === 'all') return owner;
    return owner === undefined || owner === principal.userId ? principal.userId : null;
  }

  return {
    getItem: addressedRead('getItem', itemView),
    getOwner: addressedRead('getOwner', ownerView),

    async list(call, input) {
      call.grants.require('list');
      const query = parseInput(inputs.list, input);
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
      return { items: items.map(itemView), start: query.start, size, total };
    },

    async keys(call, input) {
      call.grants.require('keys');
      const query = parseInput(inputs.keys, input);
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
