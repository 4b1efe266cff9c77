import type { z } from 'zod';
import { formatTime } from '../../core/clock.js';
import { directOperations } from './direct-protocol.js';
import { allowedInput, setPermissionsInput } from '../../core/validation.js';
import {
  listInput,
  moveInput,
  newItemInput,
  removeItemInput,
  setItemInput,
  setOwnerInput,
  writeInput,
} from '../../filestore/index.js';
import {
  ALLOWED_ANSWER,
  answerOf,
  countFailureAnswer,
  DONE_ANSWER,
  ONE_ANSWER,
  PAGE_MEMBERS,
  PERMISSIONS_ANSWER,
  SCALARS,
} from './answer-schemas.js';
import { allowedBody, permissionsBody } from './permission-answers.js';
import type { Principal } from '../../core/permissions.js';
import type { FileEntry, FilePath, FileStore, Upload } from '../../filestore/index.js';
import { answered, asInput, failingWith, type WireValues } from './wire-values.js';
import type { RoostError } from '../../core/errors.js';

/** How one operation's typed call (filestore/filestore-service.ts) answers on the wire. */
type FileAnswer = (
  store: FileStore,
  caller: Principal,
  path: FilePath,
  values: WireValues,
  upload: Upload | undefined,
) => Promise<object>;

/** The entry as the seed shows it; `header` repeats `cache` under the original's name. */
export const entryView = (entry: FileEntry) => ({
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
/** The failures of the operations that answer some with `result: 0` (`countFailure`). */
const COUNT_FAILURE = countFailureAnswer(
  'Nothing was changed: the file was too large, the name exists, or the directory is not empty.',
);
const tooLarge = (err: RoostError) => err.code === 'storage_limit';
const nameExists = (err: RoostError) =>
  err.code === 'validation_failure' && err.fields.some(([field, reason]) => field === 'name' && reason === 'exists');

/**
 * The file store in the original protocol (docs/filestore.md), one row per
 * operation of `/<store>/<path>/@<op>`: what it changes and takes, how it is documented in
 * /openapi.json (http/protocol/filestore-docs.ts), and how its typed call answers on the wire.
 * The routes (http/routes/filestore-routes.ts), the API description and the security tests all
 * read this table. The bodies are the original connectors' contract
 * (test/http/filestore-connectors.test.ts).
 */
export interface FileOperation {
  op: string;
  summary: string;
  /** The input's schema (what the typed operation checks), for the API description. */
  input?: z.ZodType;
  /** The JSON Schema of the success answer. */
  answer: object;
  /** The failures' JSON Schema when some say `result: 0` (`countFailure`). */
  failure?: object;
  /** Changes nothing: a cookie-authenticated cross-site request may call it. */
  readOnly?: boolean;
  /** Takes contents: a multipart file part, or for `@write` the raw body by PUT. */
  upload?: boolean;
  /** The typed call and its answer; `download` streams the file instead (http/file-download.ts). */
  call: FileAnswer | 'download';
  /** Only for a store whose `direct` setting turns this on (else `direct_not_enabled`, and not in /openapi.json). */
  direct?: 'uploads' | 'downloads';
}

/** The entry as the answers show it (`entryView`). */
const ENTRY = answerOf({
  name: SCALARS.string,
  type: { enum: ['f', 'd'], description: 'f: a file, d: a directory.' },
  size: SCALARS.integer,
  mime: SCALARS.string,
  cache: { ...SCALARS.string, description: 'The Cache-Control of downloads.' },
  header: { ...SCALARS.string, description: '`cache` under the original name.' },
  mtime: SCALARS.string,
  ctime: SCALARS.string,
});

export const fileOperations: readonly FileOperation[] = [
  {
    op: 'getItem',
    readOnly: true,
    summary: 'The entry at the path: file or directory, size, type, times.',
    answer: answerOf({ result: { const: true }, ...(ENTRY.properties as object) }),
    call: async (store, caller, path) => {
      const entry = await store.get(caller, path);
      return { result: true, ...(entry ? entryView(entry) : rootView) };
    },
  },
  {
    op: 'newItem',
    failure: COUNT_FAILURE,
    upload: true,
    summary:
      'Create a file (contents as text, base64 or a file part) ' +
      'or a directory (`type: d`) in the directory at the path.',
    input: newItemInput,
    answer: answerOf({ result: { const: 1 }, success: SCALARS.strings }),
    call: async (store, caller, path, values, upload) => {
      const made = await countFailure(
        store.create(caller, path, asInput(values), upload),
        (err) => tooLarge(err) || nameExists(err),
      );
      return { result: 1, success: [made.name] };
    },
  },
  {
    op: 'setItem',
    failure: COUNT_FAILURE,
    upload: true,
    summary: 'New contents, type or cache header of the file at the path (or the cache header of a directory).',
    input: setItemInput,
    answer: ONE_ANSWER,
    call: (store, caller, path, values, upload) =>
      one(countFailure(store.update(caller, path, asInput(values), upload), tooLarge)),
  },
  {
    op: 'read',
    readOnly: true,
    summary: 'The contents of the file at the path (also HEAD).',
    answer: {},
    call: 'download',
  },
  {
    op: 'write',
    failure: COUNT_FAILURE,
    upload: true,
    summary:
      'New contents of the file at the path (created if missing): the raw body by PUT, or text, base64 or a file part.',
    input: writeInput,
    answer: DONE_ANSWER,
    call: (store, caller, path, values, upload) =>
      done(countFailure(store.write(caller, path, asInput(values), upload), tooLarge)),
  },
  {
    op: 'move',
    summary: 'Move or rename the entry at the path to `newpath`.',
    input: moveInput,
    answer: DONE_ANSWER,
    call: (store, caller, path, values) => done(store.move(caller, path, asInput(values))),
  },
  {
    op: 'removeItem',
    failure: COUNT_FAILURE,
    summary: 'Remove the file or directory at the path (a directory with entries only with `recursive`).',
    input: removeItemInput,
    answer: answerOf({ result: { ...SCALARS.integer, description: 'How many entries were removed.' } }),
    call: async (store, caller, path, values) => ({
      result: await countFailure(store.remove(caller, path, asInput(values)), (err) => err.code === 'not_empty'),
    }),
  },
  {
    op: 'list',
    readOnly: true,
    summary: 'A page of the entries of the directory at the path: `type`, `sort`, `order`, `start`, `size`.',
    input: listInput,
    answer: answerOf({ result: { const: true }, items: { type: 'array', items: ENTRY }, ...PAGE_MEMBERS }),
    call: async (store, caller, path, values) => {
      const page = await store.list(caller, path, asInput(values));
      return {
        result: true,
        items: page.entries.map(entryView),
        start: page.start,
        size: page.size,
        total: page.total,
      };
    },
  },
  {
    op: 'allowed',
    readOnly: true,
    summary: 'Does the caller hold these permissions (at this path)?',
    input: allowedInput,
    answer: ALLOWED_ANSWER,
    call: async (store, caller, path, values) => allowedBody(await store.allowed(caller, path, asInput(values))),
  },
  {
    op: 'getPermissions',
    readOnly: true,
    summary: 'The permission entries of this store.',
    answer: PERMISSIONS_ANSWER,
    call: async (store, caller) => permissionsBody(await store.permissionEntries(caller)),
  },
  {
    op: 'setPermissions',
    summary: 'Add, replace or revoke groups of permission entries.',
    input: setPermissionsInput,
    answer: PERMISSIONS_ANSWER,
    call: async (store, caller, _path, values) =>
      permissionsBody(await store.changePermissions(caller, asInput(values))),
  },
  {
    op: 'getOwner',
    readOnly: true,
    summary: "The entry's owner (a user name; empty when none).",
    answer: answerOf({ result: { const: true }, owner: SCALARS.string }),
    call: async (store, caller, path) => ({ result: true, owner: (await store.getOwner(caller, path)) ?? '' }),
  },
  {
    op: 'setOwner',
    summary: 'Give the entry to `owner` (name, email or id).',
    input: setOwnerInput,
    answer: DONE_ANSWER,
    call: (store, caller, path, values) => done(store.setOwner(caller, path, asInput(values))),
  },
  {
    op: 'ping',
    readOnly: true,
    summary: 'Health check: answers `result: 1`.',
    answer: ONE_ANSWER,
    call: (store) => one(store.ping()),
  },
  ...directOperations({ entry: ENTRY, view: entryView }),
];
