import { kindIn } from '../core/events.js';

/**
 * The events of the file stores (core/events.ts), declared in the file store's own folder: one
 * per committed change of an entry. A move says where to (`to`); `owner` is the owner's user id
 * before the change where the entry is gone or changed hands, as for items
 * (datastore/item-events.ts).
 */
export const FILE_EVENTS = [
  'file.created',
  'file.written',
  'file.moved',
  'file.removed',
  'file.owner_changed',
] as const;

type FileEventOf<K> = { kind: K; store: string; path: string; owner?: string | null };
type FileEvents = { [K in Exclude<(typeof FILE_EVENTS)[number], 'file.moved'>]: FileEventOf<K> } & {
  'file.moved': { kind: 'file.moved'; store: string; path: string; to: string };
};

declare module '../core/events.js' {
  interface RoostEvents extends FileEvents {}
}

export type FileEvent = FileEvents[keyof FileEvents];

/** Whether an event is a file entry's (a type guard: core/events.ts `kindIn`). */
export const isFileEvent = kindIn(FILE_EVENTS);
