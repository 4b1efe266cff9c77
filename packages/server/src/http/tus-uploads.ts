import { Readable } from 'node:stream';
import type { Server, ServerOptions } from '@tus/server';
import type { Locker, Upload } from '@tus/utils';
import type { ServerRequest } from 'srvx';
import { commonErrors, isRoostError } from '../core/errors.js';
import type { Principal } from '../core/permissions.js';
import { fileStoreErrors, parsePath, type FileStore } from '../filestore/index.js';
import { failureBody } from './error-handler.js';

/**
 * The tus 1.0 protocol over one file store (docs/filestore.md, "Resumable uploads"), by
 * `@tus/server` (docs/decisions.md): each upload is a `write` of the file store whose bytes come
 * over many requests, into the store's partial uploads (storage/partial-uploads.ts). Roost adds
 * to the library what makes an upload one of its writes: the caller's permission and the store's
 * limits when it starts (`checkUpload`), the upload tied to its creator (a request of anyone else
 * finds no such upload), the entry written once complete (`finishUpload`), one request at a time
 * on an upload, and its own failure bodies.
 */

/** What a request of the protocol carries into the library's hooks: its caller, and what refused it. */
export interface TusCall {
  principal: Principal;
  /** A refusal of Roost's own (a RoostError) met in a hook: the route answers it in Roost's way. */
  failure?: unknown;
  /** The code of a refusal of the library's, for the request log. */
  code?: string;
  /** The upload's length is not told yet (`Upload-Defer-Length`): bytes past the store's limit are `storage_limit`. */
  lengthDeferred?: boolean;
  /**
   * What the route runs once the library answered, in order: forget an upload finished by this
   * request, release the upload's hold.
   */
  after: Array<() => unknown>;
}

/** The metadata Roost keeps with each upload (tus `Upload-Metadata` keys), set by the server only. */
const OWNER = 'roost_owner';
const PATH = 'roost_path';
/** The file store an upload was made for: stores sharing a bucket and prefix see each other's uploads. */
const STORE = 'roost_store';

/**
 * An `Upload-Metadata` header as the client may see it: without Roost's own keys, which say who
 * made the upload (a user id) and where it goes inside Roost.
 */
export function clientMetadata(header: string): string {
  const roosts = new Set([OWNER, PATH, STORE]);
  return header
    .split(',')
    .filter((pair) => !roosts.has(pair.trim().split(' ')[0] ?? ''))
    .join(',');
}

/**
 * A refusal the library answers in words before any hook of Roost's runs (its check of the tus
 * headers: `Invalid content-type`, `Invalid upload-offset`): the code Roost answers it with.
 */
export function libraryRefusal(text: string): { code: string; message: string } {
  const invalid = /^Invalid ([\w -]+)$/.exec(text.trim());
  if (!invalid?.[1]) return { code: 'bad_request', message: text.trim() || 'The upload request was refused.' };
  const names = invalid[1].split(' ');
  if (names.includes('content-type'))
    return { code: 'content_type_required', message: 'A PATCH needs Content-Type: application/offset+octet-stream.' };
  return { code: 'invalid_header', message: `Not a value tus allows in ${names.join(', ')}.` };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const STORAGE_LIMIT = {
  status: 413,
  starts: 'Maximum size exceeded',
  code: 'storage_limit',
  message: 'The file is larger than this store allows.',
};

/** The library's refusals (@tus/utils ERRORS), by their status and text, as Roost's codes (docs/errors.md). */
const TUS_CODES: ReadonlyArray<{ status: number; starts: string; code: string; message: string }> = [
  {
    status: 409,
    starts: 'Upload-Offset conflict',
    code: 'offset_mismatch',
    message: "Upload-Offset is not the upload's offset: ask it with HEAD.",
  },
  {
    status: 410,
    starts: 'The file for this url no longer',
    code: 'upload_expired',
    message: 'The upload expired before it was complete.',
  },
  { status: 404, starts: 'The file for this url was not', code: 'not_found', message: 'There is no such upload.' },
  STORAGE_LIMIT,
  {
    status: 413,
    starts: "upload's size exceeded",
    code: 'upload_length_exceeded',
    message: 'The bytes go past the Upload-Length.',
  },
  {
    status: 400,
    starts: 'Upload-Length or Upload-Defer',
    code: 'upload_length_required',
    message: 'Give Upload-Length (or Upload-Defer-Length: 1).',
  },
  {
    status: 400,
    starts: 'Upload-Metadata is invalid',
    code: 'invalid_metadata',
    message: 'Upload-Metadata is not valid tus metadata.',
  },
  {
    status: 400,
    starts: 'Cannot terminate an already',
    code: 'upload_complete',
    message: 'The upload is complete already.',
  },
  { status: 400, starts: 'Request aborted', code: 'upload_aborted', message: 'The request ended before its body did.' },
  {
    status: 403,
    starts: 'Upload-Offset header required',
    code: 'offset_required',
    message: 'A PATCH needs Upload-Offset.',
  },
  {
    status: 403,
    starts: 'Content-Type header required',
    code: 'content_type_required',
    message: 'A PATCH needs Content-Type: application/offset+octet-stream.',
  },
  { status: 412, starts: 'Tus-Resumable', code: 'tus_resumable_required', message: 'Send Tus-Resumable: 1.0.0.' },
  {
    status: 501,
    starts: 'Concatenation',
    code: 'unsupported_extension',
    message: 'Concatenation is not supported: upload in one piece.',
  },
];

/** A second request on an upload while one is under way (one at a time, `heldUntilAnswered`): 423. */
const BUSY = { status_code: 423, body: 'upload busy' };
const BUSY_FAILURE = { code: 'upload_busy', message: 'Another request is writing this upload; retry when it ended.' };

/**
 * One request at a time on an upload, in every process (storage/upload-locks.ts: on PostgreSQL
 * an advisory lock): a second PATCH (or POST, DELETE) while one runs is refused at once with 423
 * rather than the library's default (which stops the first and lets the second fail on its
 * offset), so the first wins whole and the other can retry. The hold lasts until the request's
 * answer, not the library's `unlock`: the library unlocks before `onUploadFinish`, and the finish
 * (the upload made a file) must not meet a second request's write or finish. A hold that ends by
 * itself (its connection to PostgreSQL dropped) cancels the request, which keeps what it wrote.
 * HEAD takes no lock: it only reads the offset.
 */
function heldUntilAnswered(locks: NonNullable<FileStore['uploads']>['locks'], call: TusCall): Locker {
  return {
    newLock: (id) => ({
      async lock(_signal, cancel) {
        const release = await locks.tryLock(id, () => void cancel());
        if (!release) throw BUSY;
        call.after.push(release);
      },
      async unlock() {},
    }),
  };
}
const NO_LOCK: Locker = { newLock: () => ({ lock: async () => {}, unlock: async () => {} }) };

/** Where the upload is to be written: metadata `path` (from the store's root), else `filename` in `dir`. */
function targetOf(metadata: Upload['metadata']) {
  const given = metadata?.path ?? (metadata?.filename ? `${metadata.dir ?? ''}/${metadata.filename}` : undefined);
  if (!given)
    throw commonErrors.validation_failure({
      message: 'Name the file: metadata path, or filename.',
      fields: [['path', 'required']],
    });
  return parsePath(given);
}

/** The library's server for `store` at `path` (`/<store>/@uploads`); `calls` holds each request's caller. */
export async function tusServer(
  store: FileStore,
  path: string,
  calls: WeakMap<ServerRequest, TusCall>,
): Promise<Server> {
  const uploads = store.uploads;
  if (!uploads) throw new Error(`the file store ${store.name} takes no resumable uploads`);
  const { locks } = uploads;
  const [{ Server }, datastore] = await Promise.all([import('@tus/server'), uploads.datastore()]);
  const callOf = (req: ServerRequest): TusCall => {
    const call = calls.get(req);
    if (!call) throw new Error('a tus request without its caller');
    return call;
  };
  // An upload finished by a request is a file now, its records gone (storage/partial-uploads.ts);
  // the library still reads it once after the finish (a creation's Upload-Expires), until the answer.
  const finished = new Map<string, Upload>();
  const tusStore = new Proxy(datastore, {
    get(target, property) {
      if (property === 'getUpload') return async (id: string) => finished.get(id) ?? (await target.getUpload(id));
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  /** The complete upload made the file (filestore-upload-ops.ts), remembered until the answer. */
  async function finish(req: ServerRequest, upload: Upload): Promise<void> {
    const metadata = upload.metadata ?? {};
    const mime = metadata.filetype ?? metadata.type ?? undefined;
    const call = callOf(req);
    await store.finishUpload(call.principal, parsePath(metadata[PATH] ?? ''), upload.id, mime);
    finished.set(upload.id, upload);
    call.after.unshift(() => finished.delete(upload.id));
  }
  const expired = (upload: Upload) =>
    datastore.getExpiration() > 0 && Date.parse(upload.creation_date ?? '') + datastore.getExpiration() < Date.now();
  /**
   * An upload whose every byte is stored but which is no file: the process that took its last
   * byte died before it made the file (or before the multipart upload on S3 was completed). A
   * resuming client asks HEAD first and, told the offset is the length, sends nothing more
   * (tus-js-client): so HEAD makes it the file, under the upload's lock (held: a request is at
   * it already, and HEAD tells what is stored).
   */
  async function finishStranded(req: ServerRequest, id: string): Promise<void> {
    const release = await locks.tryLock(id, () => {});
    if (!release) return;
    callOf(req).after.push(release);
    const upload = await datastore.getUpload(id).catch(() => null);
    if (!upload || upload.size === undefined || upload.offset !== upload.size || expired(upload)) return;
    // A write of nothing at the end completes an S3 multipart upload left open (storage/partial-uploads.ts).
    await datastore.write(Readable.from([]), id, upload.size);
    await finish(req, upload);
  }
  const options: ServerOptions = {
    path,
    maxSize: store.options.maxFileBytes,
    // A path, not a URL: Roost does not trust the Host header to name itself.
    generateUrl: (_req, { path: base, id }) => `${base}/${uploads.uuidOf(id)}`,
    getFileIdFromRequest: (_req, last) => (last && UUID.test(last) ? uploads.idOf(last) : undefined),
    namingFunction: () => uploads.idOf(uploads.newId()),
    locker: (req) => (req.method === 'HEAD' ? NO_LOCK : heldUntilAnswered(locks, callOf(req))),
    disableTerminationForFinishedUploads: true,
    // The delay before a request that lost its hold stops (`heldUntilAnswered`): at once, since
    // another process may take the upload as soon as PostgreSQL released it. (0 is the default, 3 s.)
    lockDrainTimeout: 1,
    async onIncomingRequest(req, id) {
      if (req.method === 'POST') return;
      // Someone else's upload is as missing as one that never was: its URL tells nothing. (Its
      // record only: the library reads where its bytes stand, once, after.)
      const head = req.method === 'HEAD' ? await datastore.getUpload(id) : null;
      const upload = head ?? (await uploads.recordOf(id));
      // So is an upload of another store at this store's URL (uploads made before the store was
      // kept with them have none).
      const { [OWNER]: owner = '', [STORE]: madeFor = store.name } = upload.metadata ?? {};
      if (owner !== (callOf(req).principal.userId ?? '') || madeFor !== store.name)
        throw fileStoreErrors.not_found({ message: 'There is no such upload.' });
      callOf(req).lengthDeferred = upload.size === undefined;
      if (head && head.size !== undefined && head.offset === head.size) await finishStranded(req, id);
    },
    async onUploadCreate(req, upload) {
      const target = targetOf(upload.metadata);
      await store.checkUpload(callOf(req).principal, target, upload.size);
      // Found by others once the answer tells its URL (not before: a small file may be whole by then).
      callOf(req).after.unshift(() => uploads.announce(upload.id));
      const metadata = {
        ...upload.metadata,
        [PATH]: target.path,
        [OWNER]: callOf(req).principal.userId ?? '',
        [STORE]: store.name,
      };
      return { metadata };
    },
    async onUploadFinish(req, upload) {
      await finish(req, upload);
      return {};
    },
    onResponseError(req, err) {
      const call = callOf(req);
      if (isRoostError(err) || !('status_code' in err)) {
        // Answered by the route in Roost's way (http/failure.ts): its status, body and log line.
        call.failure = err;
        return { status_code: 500, body: '' };
      }
      let known =
        err === BUSY
          ? BUSY_FAILURE
          : TUS_CODES.find((c) => c.status === err.status_code && err.body.startsWith(c.starts));
      // Without a length told, the library's "past the length" is past the store's limit.
      if (known?.code === 'upload_length_exceeded' && call.lengthDeferred) known = STORAGE_LIMIT;
      call.code = known?.code ?? 'bad_request';
      return {
        status_code: err.status_code,
        body: JSON.stringify(failureBody(call.code, known?.message ?? err.body.trim())),
      };
    },
  };
  return new Server({ ...options, datastore: tusStore });
}
