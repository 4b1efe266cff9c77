import type { Kysely, Transaction } from 'kysely';
import {
  currentActor,
  noteRecorded,
  redacted,
  type AuditActor,
  type AuditChange,
  type AuditLog,
  type AuditRecord,
} from '../core/audit.js';
import type { Clock } from '../core/clock.js';
import { newSortableId } from '../core/ids.js';
import type { Database } from './schema.js';

/**
 * The `audit_log` table (migration 2026-12-02-01-keys-audit; core/audit.ts). `writeAudit` is
 * what a store calls inside its own transaction, so a change and its line commit together.
 */
export async function writeAudit(
  db: Kysely<Database> | Transaction<Database>,
  at: number,
  change: AuditChange,
  actor: AuditActor = currentActor(),
): Promise<void> {
  noteRecorded();
  const json = (value: unknown) => (value === undefined ? null : JSON.stringify(redacted(value)));
  await db
    .insertInto('audit_log')
    .values({
      id: newSortableId(),
      at,
      actor: actor.id.slice(0, 200),
      actor_name: actor.name.slice(0, 200),
      address: actor.address?.slice(0, 100) ?? null,
      action: change.action,
      target: change.target.slice(0, 500),
      before: json(change.before),
      after: json(change.after),
    })
    .execute();
}

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export function createAuditLog(db: Kysely<Database>, clock: Clock): AuditLog {
  return {
    record: (change, actor) => writeAudit(db, clock.now(), change, actor),

    async list(filter) {
      let query = db.selectFrom('audit_log').selectAll();
      const { actor, action } = filter;
      if (actor) query = query.where((eb) => eb.or([eb('actor_name', '=', actor), eb('actor', '=', actor)]));
      // `key.` is every action of the keys: a range of the text, the same on both databases.
      if (action)
        query = action.endsWith('.')
          ? query.where('action', '>=', action).where('action', '<', `${action}\uffff`)
          : query.where('action', '=', action);
      if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
      if (filter.until !== undefined) query = query.where('at', '<', filter.until);
      const cursor = filter.before;
      if (cursor)
        query = query.where((eb) =>
          eb.or([eb('at', '<', cursor.at), eb.and([eb('at', '=', cursor.at), eb('id', '<', cursor.id)])]),
        );
      const rows = await query
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(filter.limit ?? 100)
        .execute();
      return rows.map(
        (r): AuditRecord => ({
          id: r.id,
          at: Number(r.at),
          actor: r.actor,
          actorName: r.actor_name,
          address: r.address,
          action: r.action,
          target: r.target,
          before: parsed(r.before),
          after: parsed(r.after),
        }),
      );
    },

    async sweep(before) {
      const removed = await db.deleteFrom('audit_log').where('at', '<', before).executeTakeFirst();
      return Number(removed.numDeletedRows);
    },
  };
}
