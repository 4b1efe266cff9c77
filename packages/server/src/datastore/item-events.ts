import { kindIn } from '../core/events.js';

/**
 * The events of the data stores (core/events.ts), declared here in the data store's own folder:
 * one per committed change of an item. `id` is absent where the write did not read it (a
 * replacement by key). `owner` is the owner's user id before the change where the item is gone
 * or changed hands (removed, owner_changed): who could read it then is who hears of it
 * (realtime/families/item-family.ts).
 */
export const ITEM_EVENTS = ['item.created', 'item.replaced', 'item.removed', 'item.owner_changed'] as const;

type ItemEventOf<K> = { kind: K; store: string; key: string; id?: number; owner?: string | null };
// One entry per kind, each with its own `kind` literal, so that a union of them narrows by `kind`.
type ItemEvents = { [K in (typeof ITEM_EVENTS)[number]]: ItemEventOf<K> };

declare module '../core/events.js' {
  interface RoostEvents extends ItemEvents {}
}

export type ItemEvent = ItemEventOf<(typeof ITEM_EVENTS)[number]>;

/** Whether an event is an item's (a type guard: core/events.ts `kindIn`). */
export const isItemEvent = kindIn(ITEM_EVENTS);
