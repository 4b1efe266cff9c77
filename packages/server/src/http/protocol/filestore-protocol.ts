import { formatTime } from '../../core/clock.js';
import { allowedBody, permissionsBody } from './permission-answers.js';
import type { Principal } from '../../core/permissions.js';
import type { FileEntry, FilePath, FileStore, Upload } from '../../filestore/index.js';
import { answered, asInput, failingWith, type WireValues } from './wire-values.js';
import type { RoostError } from '../../core/errors.js';

/**
 * The file store in the original protocol (docs/reference/original-services.md): how each
 * operation's typed call (filestore/filestore-service.ts) answers on the wire, by operation
 * name. `read` and plain downloads stream the file (http/file-download.ts); which operations
 * exist, read only and take uploads is said in http/routes/filestore-routes.ts. The bodies are
 * the original connectors' contract (test/http/filestore-connectors.test.ts).
 */
type FileAnswer = (
  store: FileStore,
  caller: Principal,
  path: FilePath,
  values: WireValues,
  upload: Upload | undefined,
) => Promise<object>;

/** The entry as the seed shows it; `header` repeats `cache` under the original's name. */
const entryView = (entry: FileEntry) => ({
  name: entry.name,
  type: entry.type,
  size: entry.type === 'd' ? 0 : entry.size,
  mime: entry.mime,
  cache: entry.cache,
  header: entry.cache,
  mtime: formatTime(entry.mtime),
  ctime: formatTime(entry.ctime),
});

const rootView = { name: '', type: 'd', size: 0, mime: '', cache: '', header: '', mtime: '', ctime: '' } as const;

const one = answered({ result: 1 });
const done = answered({ result: true });

/**
 * Where the original's answer is a count, its failures for the file's own reasons say
 * `result: 0`: a file too large, a name that exists, a directory not empty. Every other failure
 * has the usual `result: false` (http/error-handler.ts).
 */
const countFailure = <T>(work: Promise<T>, because: (err: RoostError) => boolean) =>
  failingWith({ result: 0 }, work, because);
const tooLarge = (err: RoostError) => err.code === 'storage_limit';
const nameExists = (err: RoostError) =>
  err.code === 'validation_failure' && err.fields.some(([field, reason]) => field === 'name' && reason === 'exists');

export const FILE_ANSWERS: Readonly<Record<string, FileAnswer>> = {
  getItem: async (store, caller, path) => {
    const entry = await store.get(caller, path);
    return { result: true, ...(entry ? entryView(entry) : rootView) };
  },
  newItem: async (store, caller, path, values, upload) => {
    const made = await countFailure(
      store.create(caller, path, asInput(values), upload),
      (err) => tooLarge(err) || nameExists(err),
    );
    return { result: 1, success: [made.name] };
  },
  setItem: (store, caller, path, values, upload) =>
    one(countFailure(store.update(caller, path, asInput(values), upload), tooLarge)),
  write: (store, caller, path, values, upload) =>
    done(countFailure(store.write(caller, path, asInput(values), upload), tooLarge)),
  move: (store, caller, path, values) => done(store.move(caller, path, asInput(values))),
  removeItem: async (store, caller, path, values) => ({
    result: await countFailure(store.remove(caller, path, asInput(values)), (err) => err.code === 'not_empty'),
  }),
  list: async (store, caller, path, values) => {
    const page = await store.list(caller, path, asInput(values));
    return { result: true, items: page.entries.map(entryView), start: page.start, size: page.size, total: page.total };
  },
  allowed: async (store, caller, path, values) => allowedBody(await store.allowed(caller, path, asInput(values))),
  getPermissions: async (store, caller) => permissionsBody(await store.permissionEntries(caller)),
  setPermissions: async (store, caller, _path, values) =>
    permissionsBody(await store.changePermissions(caller, asInput(values))),
  getOwner: async (store, caller, path) => ({ result: true, owner: (await store.getOwner(caller, path)) ?? '' }),
  setOwner: (store, caller, path, values) => done(store.setOwner(caller, path, asInput(values))),
  ping: (store) => one(store.ping()),
};
