import type { EventFamily, Subject } from '../../core/event-family.js';
import type { Told } from '../../core/events.js';
import { FILE_EVENTS, isFileEvent, type FileEntry, type FileStores } from '../../filestore/index.js';
import { admitToStore, READER, storeSubject } from './store-subject.js';
import { invalidTopic, STORE_NAME } from './topic-text.js';

/** What a file topic asks for: the entries directly in a directory ('' is the root), or its whole subtree. */
export interface FileTopic {
  store: string;
  dir: string;
  subtree: boolean;
}

/**
 * A file topic's text, or a `validation_failure` saying what is wrong with it:
 *
 *   files/<store>/<dir>           the entries directly in <dir>
 *   files/<store>/<dir>/**        everything below <dir>
 *
 * @example
 * parseFileTopic('files/docs/reports/**'); // { store: 'docs', dir: 'reports', subtree: true }
 */
export function parseFileTopic(text: string): FileTopic {
  const [head, ...query] = text.split('?');
  const [, store = '', ...rest] = (head ?? '').split('/');
  if (!STORE_NAME.test(store)) throw invalidTopic(text, 'names no store (files/<store>/<directory>)');
  if (query.length > 0) throw invalidTopic(text, 'has a query: a file topic is a directory, with /** for its subtree');
  const subtree = rest.at(-1) === '**';
  const parts = subtree ? rest.slice(0, -1) : rest;
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.startsWith('@')))
    throw invalidTopic(text, 'has an empty, relative or hostile path segment');
  return { store, dir: parts.join('/'), subtree };
}

/** The directory of a file path (`a/b/c.txt` → `a/b`, `c.txt` → ''). */
const dirOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

const inDir = (topic: FileTopic, path: string) =>
  topic.subtree
    ? topic.dir === '' || path === topic.dir || path.startsWith(`${topic.dir}/`)
    : dirOf(path) === topic.dir;

/**
 * Whether an event is about what the topic asks for. A move matches where the entry was and
 * where it went; removing or moving the directory watched, or one above it, matches too.
 */
export function fileMatches(topic: FileTopic, event: Told): boolean {
  if (!isFileEvent(event) || event.store !== topic.store) return false;
  if (inDir(topic, event.path) || (event.kind === 'file.moved' && inDir(topic, event.to))) return true;
  // The directory watched, or one above it, went away or moved: its watchers hear of it.
  return (
    (event.kind === 'file.removed' || event.kind === 'file.moved') &&
    (topic.dir === event.path || topic.dir.startsWith(`${event.path}/`))
  );
}

/**
 * The file stores' events (filestore/file-events.ts) for live changes and webhooks: topics
 * `files/<store>/<dir>`, filed by store; the subject is the entry as it is now (where a move
 * took it) in the original protocol's shape (`view`), or the owner it had.
 */
export function fileFamily(fileStores: FileStores, view: (entry: FileEntry) => object): EventFamily {
  return {
    name: 'files',
    kinds: FILE_EVENTS,
    hasService: (service) => fileStores.get(service) !== undefined,
    services: () => fileStores.names,
    serviceOf: (event) => (isFileEvent(event) ? event.store : null),
    topic(text) {
      const topic = parseFileTopic(text);
      return {
        async admit(principal) {
          await admitToStore(fileStores.get(topic.store), principal);
          return { place: `files/${topic.store}`, matches: (event) => fileMatches(topic, event) };
        },
      };
    },
    placeOf: (event) => (isFileEvent(event) ? `files/${event.store}` : null),
    async read(event): Promise<Subject | null> {
      if (!isFileEvent(event)) return null;
      const store = fileStores.get(event.store);
      if (!store) return null;
      const moved = event.kind === 'file.moved' ? event.to : null;
      const [entries, entry] = await Promise.all([
        store.permissions.entries(),
        event.kind === 'file.removed' ? null : store.peek(READER, moved ?? event.path),
      ]);
      const head =
        moved === null
          ? { event: event.kind, store: event.store, path: event.path }
          : { event: event.kind, store: event.store, path: event.path, to: moved };
      const headText = JSON.stringify(head);
      const owner = 'owner' in event ? event.owner : undefined;
      return storeSubject({
        entries,
        permissions: store.permissions,
        head: headText,
        now: entry ? { owner: entry.owner, data: JSON.stringify({ ...head, entry: view(entry) }) } : null,
        before: owner === undefined ? null : { owner, data: headText },
      });
    },
  };
}
