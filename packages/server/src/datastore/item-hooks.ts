import { commonErrors } from '../core/errors.js';
import type { Principal } from '../core/permissions.js';
import type { DataStoreContext } from './datastore-context.js';

/**
 * The data stores' hook points (issue 40, docs/hooks.md), merged into core/hooks.ts's open maps.
 * A hook runs per item of a call (a batch's too), before the call's transaction: `newItem` is
 * `item.create`, `setItem` is `item.set` (a create or a replace), `removeItem` is `item.remove`.
 * The original protocol's operations go through the typed service (http/protocol/), so they
 * meet the same hooks.
 */
declare module '../core/hooks.js' {
  interface HookPoints {
    'item.create': { store: string; key: string; input: { value: string | number } };
    'item.set': { store: string; key: string | null; id: number | null; input: { value: string | number } };
    'item.remove': { store: string; key: string | null; id: number | null; input: { label: string | number } };
  }
  interface AfterHookPoints {
    'item.create': { store: string; item: HookedItem };
    'item.set': { store: string; item: HookedItem; created: boolean };
    'item.remove': { store: string; item: HookedItem };
  }
}

/** An item as an after-hook gets it (the owner as a user id). */
export interface HookedItem {
  key: string;
  value: string | number;
  owner: string | null;
}

/**
 * Stores the after-hooks' jobs of the items a call wrote, in its transaction (`handle`, the
 * repository's inside it: core/hooks.ts `after`), one per item and hook.
 */
export async function itemsAfter(
  ctx: DataStoreContext,
  caller: Principal,
  handle: object,
  written: ReadonlyArray<
    | { point: 'item.create' | 'item.remove'; item: HookedItem }
    | { point: 'item.set'; item: HookedItem; created: boolean }
  >,
): Promise<void> {
  for (const w of written) {
    const item: HookedItem = { key: w.item.key, value: w.item.value, owner: w.item.owner };
    if (w.point === 'item.set') {
      if (ctx.hooks.hasAfter('item.set'))
        await ctx.hooks.after(
          'item.set',
          { point: 'item.set', caller, store: ctx.name, item, created: w.created },
          handle,
        );
    } else if (ctx.hooks.hasAfter(w.point))
      await ctx.hooks.after(w.point, { point: w.point, caller, store: ctx.name, item }, handle);
  }
}

/** An item of a write as the hooks see it: its key or id, its value, where its problems are named. */
interface HookedEntry {
  key?: string | undefined;
  id?: number | undefined;
  field: string;
  value: string | number;
}

/**
 * Runs the before-hooks of `point` on each entry, in order, and writes back the value they leave,
 * checked by the store's value rule (`inputs.valueProblem`), named at the entry's value field.
 */
export async function itemsHooked(
  ctx: DataStoreContext,
  point: 'item.create' | 'item.set',
  caller: Principal,
  entries: readonly HookedEntry[],
): Promise<void> {
  for (const entry of entries) {
    const input = { value: entry.value };
    const hooked =
      point === 'item.create'
        ? await ctx.hooks.before(point, { point, caller, store: ctx.name, key: entry.key ?? '', input })
        : await ctx.hooks.before(point, {
            point,
            caller,
            store: ctx.name,
            key: entry.key ?? null,
            id: entry.id ?? null,
            input,
          });
    const value = hooked.input.value;
    const problem = typeof value === 'string' || typeof value === 'number' ? ctx.inputs.valueProblem(value) : 'invalid';
    if (problem)
      throw commonErrors.validation_failure({ fields: [[entry.field.replace(/(key|id)$/, 'value'), problem]] });
    entry.value = value;
  }
}

/** The before-hooks of a removal, per item named; they may refuse it. */
export async function removalHooked(
  ctx: DataStoreContext,
  caller: Principal,
  targets: ReadonlyArray<{ key?: string | undefined; id?: number | undefined; label: string | number }>,
): Promise<void> {
  for (const t of targets) {
    const context = { point: 'item.remove' as const, caller, store: ctx.name, key: t.key ?? null, id: t.id ?? null };
    await ctx.hooks.before('item.remove', { ...context, input: { label: t.label } });
  }
}
