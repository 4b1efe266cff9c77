/**
 * The events of the collections (core/events.ts), one per committed change of a record. `owner`
 * is the owner before the change where the record is gone: who could read it then is who hears.
 */
export const RECORD_EVENTS = ['record.created', 'record.updated', 'record.deleted'] as const;

type RecordEventOf<K> = { kind: K; collection: string; id: string; owner: string | null };
// One entry per kind, each with its own `kind` literal, so that a union of them narrows by `kind`.
type RecordEvents = { [K in (typeof RECORD_EVENTS)[number]]: RecordEventOf<K> };

declare module '../core/events.js' {
  interface RoostEvents extends RecordEvents {
    /**
     * A collection was made, changed or removed (its definition is in the database): the other
     * processes on the same database read it again (collections-service.ts).
     */
    'collection.changed': { kind: 'collection.changed'; collection: string };
  }
}

export type RecordEvent = RecordEventOf<(typeof RECORD_EVENTS)[number]>;
