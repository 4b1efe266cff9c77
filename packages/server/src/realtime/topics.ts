import type { Told } from '../core/events.js';
import { commonErrors } from '../core/errors.js';

/**
 * What a subscriber listens to (issue 21): a data store's items (all it may read, or some keys,
 * or a key prefix), a file store directory (its entries, or its whole subtree), or the
 * subscriber's own account. Written as text on the wire, one form per kind:
 *
 *   items/<store>                 every item
 *   items/<store>?keys=a,b        these keys
 *   items/<store>?prefix=notes/   keys starting with it
 *   files/<store>/<dir>           the entries directly in <dir> ('' is the root)
 *   files/<store>/<dir>/**        everything below <dir>
 *   account                       the subscriber's own account
 *
 * Which of the matching events a subscriber may see is the grants' business (core/grants.ts),
 * checked per event; a topic only says what it asks for.
 */
export type Topic =
  | { kind: 'items'; store: string; keys?: ReadonlySet<string>; prefix?: string }
  | { kind: 'files'; store: string; dir: string; subtree: boolean }
  | { kind: 'account' };

/** Store names as the stores take them (datastore/ and filestore/ names: letters, digits, `_-`). */
const STORE = /^[A-Za-z0-9_-]{1,63}$/;
/** Bounds of a topic's text: a subscription is a line, not a document. */
const MAX_TOPIC = 2048;
const MAX_KEYS = 100;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

const invalid = (topic: string, why: string) =>
  commonErrors.validation_failure({
    message: `The topic "${topic.slice(0, 100)}" ${why}.`,
    fields: [['topic', `The topic ${why}.`]],
  });

/**
 * The topic a subscriber wrote, or a `validation_failure` saying what is wrong with it.
 *
 * @example
 * parseTopic('items/notes?prefix=todo/'); // { kind: 'items', store: 'notes', prefix: 'todo/' }
 */
export function parseTopic(text: string): Topic {
  if (text.length === 0 || text.length > MAX_TOPIC) throw invalid(text, `must have 1 to ${MAX_TOPIC} characters`);
  // A topic names the SSE event it is delivered as (http/routes/realtime-routes.ts): a line break
  // in it would end the field and let a subscriber forge frames of its own.
  if (CONTROL.test(text)) throw invalid(text, 'has a control character');
  if (text === 'account') return { kind: 'account' };
  const [head = '', query] = splitOnce(text, '?');
  const [kind, store = '', ...rest] = head.split('/');
  if (!STORE.test(store)) throw invalid(text, 'names no store (items/<store> or files/<store>/<directory>)');
  if (kind === 'items') {
    if (rest.length > 0) throw invalid(text, 'has a path: an item topic narrows with ?keys= or ?prefix=');
    return { kind: 'items', store, ...itemFilter(text, query) };
  }
  if (kind === 'files') {
    if (query !== undefined) throw invalid(text, 'has a query: a file topic is a directory, with /** for its subtree');
    const subtree = rest.at(-1) === '**';
    const parts = subtree ? rest.slice(0, -1) : rest;
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.startsWith('@')))
      throw invalid(text, 'has an empty, relative or hostile path segment');
    return { kind: 'files', store, dir: parts.join('/'), subtree };
  }
  throw invalid(text, 'is none of items/<store>, files/<store>/<directory> or account');
}

function itemFilter(text: string, query: string | undefined): { keys?: ReadonlySet<string>; prefix?: string } {
  if (query === undefined) return {};
  const params = new URLSearchParams(query);
  const names = [...new Set(params.keys())];
  if (names.length !== 1 || params.getAll(names[0] ?? '').length !== 1)
    throw invalid(text, 'may narrow by one of keys= or prefix=, once');
  const keys = params.get('keys');
  if (keys !== null) {
    const list = keys.split(',').filter(Boolean);
    if (list.length === 0 || list.length > MAX_KEYS) throw invalid(text, `must name 1 to ${MAX_KEYS} keys`);
    return { keys: new Set(list) };
  }
  const prefix = params.get('prefix');
  if (prefix === '') throw invalid(text, 'has an empty prefix: leave ?prefix= out to hear every item');
  if (prefix !== null) return { prefix };
  throw invalid(text, 'may narrow by keys= or prefix= only');
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** The directory of a file path (`a/b/c.txt` → `a/b`, `c.txt` → ''). */
const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

const inDir = (topic: { dir: string; subtree: boolean }, path: string) =>
  topic.subtree
    ? topic.dir === '' || path === topic.dir || path.startsWith(`${topic.dir}/`)
    : dirOf(path) === topic.dir;

/**
 * Whether an event is about what `topic` asks for; `userId` is the subscriber's (its account
 * topic). A move matches where the entry was and where it went; removing or moving the
 * directory watched, or one above it, matches too.
 *
 * @example
 * const created = { kind: 'file.created', store: 'docs', path: 'reports/q1.txt', at: 0, local: true } as const;
 * matches(parseTopic('files/docs/reports'), created, null); // true
 */
export function matches(topic: Topic, event: Told, userId: string | null): boolean {
  switch (topic.kind) {
    case 'account':
      return event.kind.startsWith('account.') && 'userId' in event && userId !== null && event.userId === userId;
    case 'items':
      if (!event.kind.startsWith('item.') || !('key' in event) || event.store !== topic.store) return false;
      if (topic.keys) return topic.keys.has(event.key);
      return topic.prefix === undefined || event.key.startsWith(topic.prefix);
    case 'files':
      if (!event.kind.startsWith('file.') || !('path' in event) || event.store !== topic.store) return false;
      if (inDir(topic, event.path) || (event.kind === 'file.moved' && inDir(topic, event.to))) return true;
      // The directory watched, or one above it, went away or moved: its watchers hear of it.
      return (
        (event.kind === 'file.removed' || event.kind === 'file.moved') &&
        (topic.dir === event.path || topic.dir.startsWith(`${event.path}/`))
      );
  }
}
