import type { Paging } from './shared-types.js';

/**
 * A file (`f`) or directory (`d`). Times are `YYYY/MM/DD hh:mm:ss`
 * (UTC); `header` is `cache` under the original's name.
 */
export interface Entry {
  name: string;
  type: 'f' | 'd';
  size: number;
  mime: string;
  cache: string;
  header: string;
  mtime: string;
  ctime: string;
}

export type EntryAnswer = Entry & { result: true };

/** `newItem`: the created name. */
export interface NewEntryAnswer {
  result: 1;
  success: string[];
}

/** `setItem`. */
export interface SetEntryAnswer {
  result: 1;
}

/** `removeItem`: the number of entries removed. */
export interface RemoveEntryAnswer {
  result: number;
}

export interface ListQuery extends Paging {
  /** `f`, `d`, or `all` (the default). */
  type?: 'f' | 'd' | 'all';
  sort?: 'name' | 'type' | 'size' | 'mime' | 'mtime' | 'ctime';
}

export interface EntriesPage {
  result: true;
  items: Entry[];
  start: number;
  size: number;
  total: number;
}

export interface EntryOwnerAnswer {
  result: true;
  owner: string;
}

/** File contents the connector sends: text is sent as UTF-8. */
export type Contents = Blob | ArrayBuffer | ArrayBufferView | string | ReadableStream<Uint8Array>;

/** Progress of an upload or download: `total` is `undefined` when unknown. */
export interface Progress {
  loaded: number;
  total: number | undefined;
}
