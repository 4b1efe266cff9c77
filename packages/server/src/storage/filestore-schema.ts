/** Row types of the file store tables (see `migrations/2026-11-22-02-filestore.ts`). */

export type FileEntryType = 'f' | 'd';

export interface FileEntriesTable {
  id: string;
  /** The file store's name: all stores share the table. */
  store: string;
  /** The whole path inside the store, segments joined by `/`, no leading slash. */
  path: string;
  /** The path of the directory holding the entry; `""` at the root. */
  parent: string;
  name: string;
  type: FileEntryType;
  /** Bytes of a file; 0 for a directory. */
  size: number;
  /** Media type of a file; empty for a directory. */
  mime: string;
  /** The `cache` (the original's `header`) slot; a Cache-Control value is sent with the file. */
  cache: string;
  /** Where the contents are in the blob store; null for a directory. */
  blob_id: string | null;
  /** SHA-256 of the contents, base64url: the ETag. */
  hash: string | null;
  /** User id of the owner (the creator unless changed); null when nobody owns it. */
  owner: string | null;
  ctime: number;
  mtime: number;
}

/** A presigned upload handed out (migrations/2026-12-03-02-direct-uploads.ts, filestore/direct-ops.ts). */
export interface DirectUploadsTable {
  /** The token the client finishes the upload with; its staging object's name. */
  id: string;
  store: string;
  path: string;
  /** User id of the caller who asked; null for an anonymous one. */
  owner: string | null;
  /** The announced bytes and media type. */
  size: number;
  mime: string;
  state: 'pending' | 'done' | 'expired';
  created: number;
  expires: number;
}

export interface FileStoreTables {
  file_entries: FileEntriesTable;
  direct_uploads: DirectUploadsTable;
}
