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
