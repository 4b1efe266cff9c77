import { z } from 'zod';
import { isWellFormed, looseBoolean, looseInt } from '../core/validation.js';

/**
 * Input schemas of the file store operations. Parameters come from a JSON or form body or the
 * query; the path is in the URL. Aliases of the original connectors: `header` for `cache`,
 * `newOwner` for `owner`, `file`/`directory` for the types `f`/`d`.
 */

const TYPE_WORDS: Record<string, 'f' | 'd'> = { f: 'f', file: 'f', d: 'd', dir: 'd', directory: 'd' };
const entryType = z.preprocess((v) => (typeof v === 'string' ? (TYPE_WORDS[v] ?? v) : v), z.enum(['f', 'd']));

// A quoted parameter value holds printable ASCII only: the type is sent back as a header, and
// a character outside Latin-1, a CR or an LF there made the file unreadable (a 500 on every read).
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[\x20\x21\x23-\x5b\x5d-\x7e]*"|[\w.+-]+))*$/;

/** A media type such as `text/plain` or `text/html; charset=utf-8`, short enough to store. */
export const isMediaType = (text: string) => text.length <= 255 && MEDIA_TYPE.test(text);

const mime = z.string().refine(isMediaType, { message: 'invalid' });
const cache = z
  .string()
  .max(255)
  .refine((s) => !/[\r\n]/.test(s) && isWellFormed(s), { message: 'invalid' });

/** Contents as text; with `decode` true they are base64 and decoded to bytes. */
const contents = {
  contents: z.string().optional(),
  decode: looseBoolean.default(false),
};

const meta = {
  mime: mime.optional(),
  cache: cache.optional(),
  header: cache.optional(),
};

/** What a file's hooks leave of the metadata (file-hooks.ts): checked as a caller's is. */
export const hookedMetaInput = z.object({ mime: mime.optional(), cache: cache.optional() });

export const newItemInput = z.object({
  name: z.string().min(1).max(1024),
  type: entryType.default('f'),
  ...contents,
  ...meta,
});

export const setItemInput = z.object({ ...contents, ...meta });

export const writeInput = z.object({ ...contents, mime: mime.optional() });

export const moveInput = z.object({ newpath: z.string().min(1).max(2048) });

export const removeItemInput = z.object({ recursive: looseBoolean.default(false) });

const LIST_SORTS = ['name', 'type', 'size', 'mime', 'mtime', 'ctime'] as const;

export const listInput = z.object({
  type: z.preprocess(
    (v) => (v === 'all' || v === '' ? undefined : typeof v === 'string' ? (TYPE_WORDS[v] ?? v) : v),
    z.enum(['f', 'd']).optional(),
  ),
  // `path` (the Python connector's example) orders a directory as its names do.
  sort: z.preprocess((v) => (v === 'path' ? 'name' : v), z.enum(LIST_SORTS)).default('name'),
  order: z.enum(['<', '>']).default('<'),
  start: looseInt.pipe(z.number().min(1)).default(1),
  size: looseInt.pipe(z.number().min(1)).optional(),
});

export const setOwnerInput = z
  .object({ owner: z.string().min(1).max(320).optional(), newOwner: z.string().min(1).max(320).optional() })
  .transform((v) => v.owner ?? v.newOwner)
  .refine((owner): owner is string => owner !== undefined, { message: 'required', path: ['owner'] });

export type ListQuery = z.output<typeof listInput>;

/*
 * What callers pass to the file store's operations (filestore-service.ts). The schemas above check
 * every call against them, and also take the original connectors' aliases and the text forms a
 * query string carries (`decode=true`, `type=file`): the original protocol's adapter
 * (http/protocol/filestore-protocol.ts) hands its values over as they came.
 */

/** Text contents; with `decode` true they are base64. An upload (a stream) comes beside the input instead. */
export interface ContentsInput {
  contents?: string;
  decode?: boolean;
  /** The media type; by default the transport's, else the name's, else sniffed from the bytes. */
  mime?: string;
}

/** How browsers and proxies may cache the file (`header` is the original's name for it). */
export interface EntryMeta {
  cache?: string;
  header?: string;
}

/** A new file (the default) or directory (`type: 'd'`) in a directory. */
export interface NewEntryInput extends ContentsInput, EntryMeta {
  name: string;
  type?: 'f' | 'd' | 'file' | 'dir' | 'directory';
}

export type EntryChange = ContentsInput & EntryMeta;

export interface MoveInput {
  newpath: string;
}

export interface RemoveInput {
  /** A directory with entries is removed only with this. */
  recursive?: boolean;
}

/** A page of a directory's entries: only files or directories, sorted, from `start` (from 1). */
export interface EntryQuery {
  type?: 'f' | 'd' | 'file' | 'dir' | 'directory' | 'all';
  sort?: 'name' | 'type' | 'size' | 'mime' | 'mtime' | 'ctime';
  order?: '<' | '>';
  start?: number;
  size?: number;
}

/** The new owner by name, email or id (`newOwner` is the other connectors' name for it). */
export interface OwnerInput {
  owner?: string;
  newOwner?: string;
}
