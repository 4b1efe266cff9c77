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

/** `directUpload` (docs/filestore.md, "Direct uploads and downloads (S3)"): where to send the bytes. */
export interface DirectUploadAnswer {
  result: true;
  /** The token `directFinish` takes. */
  upload: string;
  method: 'PUT';
  url: string;
  headers: Record<string, string>;
  /** When the URL and the token expire (ISO 8601). */
  expires: string;
}

/** `link`: a presigned GET of the file, straight from the bucket. */
export interface LinkAnswer {
  result: true;
  url: string;
  /** When the URL expires (ISO 8601). */
  expires: string;
}

/** File contents the connector sends: text is sent as UTF-8. */
export type Contents = Blob | ArrayBuffer | ArrayBufferView | string | ReadableStream<Uint8Array>;

/** Progress of an upload or download: `total` is `undefined` when unknown. */
export interface Progress {
  loaded: number;
  total: number | undefined;
}
