import { isWellFormed } from '../core/validation.js';
import { fileStoreErrors } from './filestore-errors.js';

/**
 * Paths inside a file store. A path arrives already URL-decoded once (by the HTTP layer) and is
 * only ever a database key: contents are stored under random blob ids, so no path reaches the
 * file system. The rules still refuse everything that is a trick elsewhere — `.`/`..`, empty
 * segments (`//`, absolute paths), backslashes, control characters, text that is still
 * percent-encoded after the one decoding (double encoding), names starting with `@` (which
 * would read as an operation) — so a path means the same to every client and proxy.
 */
export interface FilePath {
  /** Segments joined by `/`, no leading or trailing slash; `""` is the store's root. */
  readonly path: string;
  readonly segments: readonly string[];
  /** The last segment; `""` for the root. */
  readonly name: string;
  /** The path of the directory holding it; `""` for top-level entries and the root. */
  readonly parent: string;
}

export const ROOT: FilePath = Object.freeze({ path: '', segments: [], name: '', parent: '' });

const PATH_LIMITS = { nameBytes: 255, pathBytes: 1024, depth: 64 } as const;

/** First path segment that always means the connectors' `/api/` prefix, never a directory. */
export const API_SEGMENT = 'api';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/;

function refuse(field: string, reason: string, message: string): never {
  throw fileStoreErrors.invalid_path({ fields: [[field, reason]], message });
}

/** Check one name (a path segment): the reason it is refused, or null. */
function nameProblem(name: string): { reason: string; message: string } | null {
  if (name === '') return { reason: 'required', message: 'A name may not be empty (no "//" and no absolute paths).' };
  if (name === '.' || name === '..') return { reason: 'invalid', message: 'A name may not be "." or "..".' };
  if (name.includes('/') || name.includes('\\'))
    return { reason: 'invalid', message: 'A name may not contain "/" or "\\".' };
  if (CONTROL.test(name))
    return { reason: 'invalid', message: 'A name may not contain control characters (NUL, newline, ...).' };
  // Stored as UTF-8, an unpaired surrogate would become U+FFFD: two names would be one.
  if (!isWellFormed(name))
    return {
      reason: 'invalid',
      message: 'A name may not contain unpaired surrogates (text that is not valid Unicode).',
    };
  if (PERCENT_ENCODED.test(name))
    return { reason: 'invalid', message: 'A name may not contain percent-encoded text (the path was encoded twice).' };
  if (name.startsWith('@'))
    return { reason: 'invalid', message: 'A name may not start with "@" (it marks an operation).' };
  if (name.trim() !== name) return { reason: 'invalid', message: 'A name may not start or end with white space.' };
  if (Buffer.byteLength(name) > PATH_LIMITS.nameBytes)
    return { reason: 'too long', message: `A name may have at most ${PATH_LIMITS.nameBytes} bytes.` };
  return null;
}

/** A valid name, or the `invalid_path` error naming `field`. */
function checkName(name: string, field = 'name'): string {
  const problem = nameProblem(name);
  if (problem) refuse(field, problem.reason, problem.message);
  return name;
}

/**
 * Parse a path of the store (text such as `newpath`). One leading `/` means the store's root
 * (the Python connector makes `newpath` absolute that way) and one trailing `/` is dropped
 * (directory form); any other empty segment is refused.
 */
export function parsePath(text: string, field = 'path'): FilePath {
  let rest = text.startsWith('/') ? text.slice(1) : text;
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  return pathOf(rest === '' ? [] : rest.split('/'), field);
}

/**
 * The path of already separated (and decoded) segments: a segment holding `/` is refused, never
 * split again. (The API's routes split a decoded `%2F` before this, http/routes/filestore-routes.ts
 * `locate`; the admin pages do not.)
 */
export function pathOf(segments: readonly string[], field = 'path'): FilePath {
  if (segments.length === 0) return ROOT;
  if (segments.length > PATH_LIMITS.depth)
    refuse(field, 'too long', `A path may have at most ${PATH_LIMITS.depth} segments.`);
  for (const segment of segments) checkName(segment, field);
  if (Buffer.byteLength(segments.join('/')) > PATH_LIMITS.pathBytes)
    refuse(field, 'too long', `A path may have at most ${PATH_LIMITS.pathBytes} bytes.`);
  if (segments[0] === API_SEGMENT)
    refuse(field, 'reserved', `"${API_SEGMENT}" at the top of a store is the connectors' prefix, not a name.`);
  return fromSegments([...segments]);
}

/** The entry `name` inside the directory `parent`. */
export function childOf(parent: FilePath, name: string, field = 'name'): FilePath {
  checkName(name, field);
  if (parent.path === '' && name === API_SEGMENT)
    refuse(field, 'reserved', `"${API_SEGMENT}" at the top of a store is the connectors' prefix, not a name.`);
  const path = parent.path === '' ? name : `${parent.path}/${name}`;
  if (Buffer.byteLength(path) > PATH_LIMITS.pathBytes)
    refuse(field, 'too long', `A path may have at most ${PATH_LIMITS.pathBytes} bytes.`);
  return fromSegments([...parent.segments, name]);
}

/** Is `inner` the path `outer` or inside it? */
export function isWithin(inner: FilePath, outer: FilePath): boolean {
  return outer.path === '' || inner.path === outer.path || inner.path.startsWith(`${outer.path}/`);
}

function fromSegments(segments: string[]): FilePath {
  return Object.freeze({
    path: segments.join('/'),
    segments,
    name: segments.at(-1) ?? '',
    parent: segments.slice(0, -1).join('/'),
  });
}
