import type { Listener, Subject } from '../../core/event-family.js';
import { grantsIn, grantsOf } from '../../core/grants.js';
import type { PermissionMap, Principal, ServicePermissions } from '../../core/permissions.js';
import { programCaller } from '../../users/index.js';
import { realtimeErrors } from '../realtime-errors.js';

/**
 * What the store families (item-family.ts, file-family.ts) share. Their subjects are read as an
 * administrator of the program (`peek` is for administrators, core/grants.ts `backendGrants`);
 * each subscriber and webhook is checked against the store's entries after.
 */
export const READER = programCaller('live changes').principal;

/** The permission a subscriber needs on an item or entry to hear of it: reading it. */
const READ = 'getItem';

/** A store a subscriber names: refused when there is none of that name or the caller may not read it. */
export async function admitToStore(
  store: { permissions: ServicePermissions } | undefined,
  principal: Principal,
): Promise<void> {
  if (!store) throw realtimeErrors.unknown_store({ fields: [['topic', 'unknown_store']] });
  (await grantsOf(store.permissions, principal)).require(READ);
}

/**
 * The subject of an item or file event, read once: the subject as it is now with its owner
 * (null: gone), the owner it had where the event says (a removal, a change of owner), the
 * event's data without the subject (`head`), and the store's permission entries.
 */
export function storeSubject(read: {
  entries: PermissionMap;
  /** The store's own, for an API key's scopes (core/grants.ts `grantsIn`). */
  permissions: ServicePermissions;
  head: string;
  now: { owner: string | null; data: string } | null;
  before: { owner: string | null; data: string } | null;
}): Subject {
  return {
    // The subject if the listener may read it now, else what it may know of before, else nothing.
    viewFor({ principal }: Listener) {
      const grants = grantsIn(read.entries, principal, read.permissions);
      if (read.now && grants.covers(READ, read.now)) return read.now.data;
      if (read.before && grants.covers(READ, read.before)) return read.before.data;
      return null;
    },
    body: (at) => `{"at":${JSON.stringify(at)},${(read.now?.data ?? read.head).slice(1)}`,
  };
}
