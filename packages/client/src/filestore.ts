import type {
  Contents,
  DirectUploadAnswer,
  EntriesPage,
  EntryAnswer,
  ListQuery,
  NewEntryAnswer,
  EntryOwnerAnswer,
  LinkAnswer,
  Progress,
  RemoveEntryAnswer,
  SetEntryAnswer,
} from './filestore-types.js';
import { RoostError } from './errors.js';
import type { CallOptions, ConnectorOptions } from './options.js';
import type { AllowedAnswer, DoneAnswer, PermissionChange, PermissionsAnswer, PingAnswer } from './shared-types.js';
import { Connector } from './connector.js';
import type { Deadline } from './transport.js';
import { resumableUpload } from './resumable.js';
import { upload } from './upload.js';

/** Fields of a new entry; small contents may go as JSON (text, or bytes sent base64). */
export interface EntryFields {
  /** `f` (the default) or `d`. */
  type?: 'f' | 'd';
  contents?: string | ArrayBuffer | ArrayBufferView;
  mime?: string;
  /** A Cache-Control value downloads send (`max-age=60`). */
  cache?: string;
}

/** Options of {@link FileStore.write} and {@link FileStore.upload}. */
export interface WriteOptions extends CallOptions<DoneAnswer> {
  /** The file's media type; without it the server picks one from the name or the bytes. */
  mime?: string;
  /** Upload progress (see `upload.ts` for how it is measured in a browser and in Node). */
  onProgress?: (progress: Progress) => void;
}

/** Options of {@link FileStore.upload}. */
export interface UploadOptions extends WriteOptions {
  /** By the tus protocol (docs/filestore.md, "Resumable uploads"): resumed after a cut. */
  resumable?: boolean;
  /** With `resumable`: bytes per request (a smaller part to send again after a cut); all at once by default. */
  chunkSize?: number;
}

/** Options of {@link FileStore.directUpload}. */
export interface DirectUploadOptions extends CallOptions<EntryAnswer> {
  /** The file's media type; by default its own (`file.type`), else `application/octet-stream`. */
  mime?: string;
}

/** What {@link FileStore.read} resolves with, by `as`. */
export interface ReadResults {
  arrayBuffer: ArrayBuffer;
  blob: Blob;
  text: string;
  stream: ReadableStream<Uint8Array>;
}

/** Options of {@link FileStore.read}: the form of the contents, a byte range (inclusive), download progress. */
export interface ReadOptions<A extends keyof ReadResults> extends CallOptions<ReadResults[A]> {
  as?: A;
  start?: number;
  end?: number;
  onProgress?: (progress: Progress) => void;
}

/**
 * A file store, `/<store>/<path>/@<operation>`: one method per operation (docs/filestore.md),
 * plus uploads and downloads. `path` is the file or directory the operation is about, from the
 * store's root (`'docs/a.txt'`; `''` is the root); each segment is percent-encoded, so `?`, `#`
 * and `%` are only part of a name. `newItem` and `list` are called on a directory.
 *
 * @example
 * const files = filestore('files', { baseUrl, token });
 * await files.newItem('', 'docs', { type: 'd' });
 * await files.upload('docs/photo.png', fileInput.files[0], { onProgress: (p) => console.log(p.loaded) });
 * const blob = await files.read('docs/photo.png', { as: 'blob' });
 */
export class FileStore extends Connector {
  constructor(
    readonly name: string,
    options: ConnectorOptions,
  ) {
    super(options);
  }

  /**
   * The address of `path` (a download link: in cookie mode an
   * `<a href>` or `<img src>` works), or of one of its operations.
   */
  url(path = '', operation?: string): string {
    return this.transport.url(this.#location(path, operation));
  }

  /**
   * `/<store>/<segments>/@<operation>`. A `.` or `..` segment is refused here: URL parsing
   * (fetch, XMLHttpRequest) would resolve it, also percent-encoded, and so address another
   * entry, or another service, than the one named.
   */
  #location(path: string, operation?: string): string {
    const names = path.split('/').filter((s) => s !== '');
    if (names.some((name) => name === '.' || name === '..')) {
      throw new RoostError('A name may not be "." or "..".', {
        code: 'invalid_path',
        fields: [['path', 'invalid']],
        operation: operation ?? '',
      });
    }
    const segments = names.map(encodeURIComponent);
    if (operation) segments.push(`@${operation}`);
    return [`/${this.name}`, ...segments].join('/');
  }

  #call<T>(operation: string, path: string, values: object = {}, call?: CallOptions<T>): Promise<T> {
    return this.transport.settle(operation, call, async () =>
      this.transport.request<T>(operation, this.#location(path, operation), values, call),
    );
  }

  // Entries

  /** The entry at `path`. */
  getItem(path: string, call?: CallOptions<EntryAnswer>): Promise<EntryAnswer> {
    return this.#call('getItem', path, {}, call);
  }

  /** Create the file or directory `name` in the directory `path`. For large files use {@link upload}. */
  newItem(
    path: string,
    name: string,
    fields: EntryFields = {},
    call?: CallOptions<NewEntryAnswer>,
  ): Promise<NewEntryAnswer> {
    return this.#call('newItem', path, { ...fields, name, ...contentsField(fields.contents) }, call);
  }

  /** Change a file's contents and/or its `mime` and `cache` (a directory takes `cache` only). */
  setItem(
    path: string,
    fields: Omit<EntryFields, 'type'>,
    call?: CallOptions<SetEntryAnswer>,
  ): Promise<SetEntryAnswer> {
    return this.#call('setItem', path, { ...fields, ...contentsField(fields.contents) }, call);
  }

  /** Move or rename the entry to `newpath` (from the store's root); a directory moves with everything in it. */
  move(path: string, newpath: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('move', path, { newpath }, call);
  }

  /** Remove a file or a directory (one with entries only with `recursive`); `result` counts the removed entries. */
  removeItem(
    path: string,
    options: { recursive?: boolean } = {},
    call?: CallOptions<RemoveEntryAnswer>,
  ): Promise<RemoveEntryAnswer> {
    return this.#call('removeItem', path, options, call);
  }

  /** A page of the entries of the directory `path`. */
  list(path = '', query: ListQuery = {}, call?: CallOptions<EntriesPage>): Promise<EntriesPage> {
    return this.#call('list', path, query, call);
  }

  // Contents

  /**
   * Download a file: as an ArrayBuffer (the default), a Blob, text, or a stream. With `start`
   * and/or `end` only those bytes (inclusive). The timeout restarts with each piece that
   * arrives; a stream is the caller's to read at its own pace (the timeout ends with its headers).
   */
  read<A extends keyof ReadResults = 'arrayBuffer'>(
    path: string,
    options: ReadOptions<A> = {},
  ): Promise<ReadResults[A]> {
    const { as = 'arrayBuffer', start, end, onProgress, ...call } = options;
    return this.transport.settle('read', call as CallOptions<ReadResults[A]>, async () => {
      const headers: Record<string, string> = { accept: '*/*' };
      if (start !== undefined || end !== undefined) headers.range = `bytes=${start ?? 0}-${end ?? ''}`;
      const deadline = this.transport.deadline(call);
      try {
        const response = await this.transport.send(
          'read',
          this.#location(path, 'read'),
          { method: 'GET', headers },
          deadline,
        );
        return (await contentsOf(response, as, deadline, this.options.baseUrl, onProgress)) as ReadResults[A];
      } finally {
        deadline.clear();
      }
    });
  }

  /**
   * New contents for a file (created when missing), sent as the raw body of a PUT: streamed,
   * any size up to the store's `maxFileBytes`. `mime` becomes the file's type.
   */
  write(path: string, contents: Contents, options: WriteOptions = {}): Promise<DoneAnswer> {
    const { mime, onProgress, ...call } = options;
    return this.transport.settle('write', call, async () => {
      const deadline = this.transport.deadline(call);
      try {
        const request = {
          operation: 'write',
          path: this.#location(path, 'write'),
          contents,
          mime: mime ?? 'application/octet-stream',
          onProgress,
        };
        return (await upload(this.transport, request, deadline)) as unknown as DoneAnswer;
      } finally {
        deadline.clear();
      }
    });
  }

  /**
   * {@link write} of a Blob or File, its own type (`file.type`) as the `mime` unless one is given.
   * With `resumable: true` the file goes by the tus protocol (`resumable.ts`): after a dropped
   * connection, and in a browser after a page reload, it goes on where it stopped.
   */
  upload(path: string, file: Blob, options: UploadOptions = {}): Promise<DoneAnswer> {
    const { resumable, chunkSize, ...write } = options;
    const mime = options.mime ?? (file.type || undefined);
    if (!resumable) return this.write(path, file, { ...write, mime });
    const { onProgress, signal, ...call } = write;
    this.#location(path, 'upload');
    return this.transport.settle('upload', call, () =>
      resumableUpload(this.transport, {
        store: this.name,
        path,
        file,
        mime,
        onProgress,
        signal,
        chunkSize,
      }),
    );
  }

  // Direct transfers with the store's S3 bucket (docs/filestore.md, "Direct uploads and downloads (S3)")

  /**
   * Upload a Blob or File straight to the store's bucket: Roost signs a PUT of its size and type
   * (`directUpload`), the bytes go to S3, then Roost checks the object and records the file
   * (`directFinish`), whose entry this resolves with. Only for a store whose `direct` setting
   * takes uploads (else `direct_not_enabled`); the bucket must allow this origin (CORS). A PUT
   * that S3 refuses rejects with the code `storage_refused` and S3's status.
   */
  async directUpload(path: string, file: Blob, options: DirectUploadOptions = {}): Promise<EntryAnswer> {
    const { mime, ...call } = options;
    const type = mime ?? (file.type || 'application/octet-stream');
    const ticket = await this.#call<DirectUploadAnswer>('directUpload', path, { size: file.size, mime: type });
    const deadline = this.transport.deadline(call);
    try {
      let response: Response;
      try {
        response = await fetch(ticket.url, {
          method: ticket.method,
          headers: ticket.headers,
          body: file,
          signal: deadline.signal,
        });
      } catch (err) {
        throw deadline.failure('directUpload', err, new URL(ticket.url).origin);
      }
      await response.arrayBuffer();
      if (!response.ok)
        throw new RoostError(`The bucket refused the upload (${response.status}).`, {
          status: response.status,
          code: 'storage_refused',
          operation: 'directUpload',
        });
    } finally {
      deadline.clear();
    }
    return this.#call('directFinish', path, { upload: ticket.upload }, call);
  }

  /** A short-lived presigned GET of the file, straight from the bucket (a store with `direct.downloads`). */
  link(path: string, call?: CallOptions<LinkAnswer>): Promise<LinkAnswer> {
    return this.#call('link', path, {}, call);
  }

  // Owners, permissions and service

  /** `{result: true, owner}`: the owner's user name. */
  getOwner(path: string, call?: CallOptions<EntryOwnerAnswer>): Promise<EntryOwnerAnswer> {
    return this.#call('getOwner', path, {}, call);
  }

  /** Give the entry to another user (a name or id; administrators). */
  setOwner(path: string, owner: string, call?: CallOptions<DoneAnswer>): Promise<DoneAnswer> {
    return this.#call('setOwner', path, { owner }, call);
  }

  /** Does the caller hold these permissions (under `path`, `sys:owner` counts for its owner)? */
  allowed(permissions: string | string[], path = '', call?: CallOptions<AllowedAnswer>): Promise<AllowedAnswer> {
    return this.#call('allowed', path, { permission: permissions }, call);
  }

  getPermissions(call?: CallOptions<PermissionsAnswer>): Promise<PermissionsAnswer> {
    return this.#call('getPermissions', '', {}, call);
  }

  setPermissions(
    permissions: PermissionChange | PermissionChange[],
    call?: CallOptions<PermissionsAnswer>,
  ): Promise<PermissionsAnswer> {
    return this.#call('setPermissions', '', { permissions }, call);
  }

  /** Health check at `/<store>/api/ping`. */
  ping(call?: CallOptions<PingAnswer>): Promise<PingAnswer> {
    return this.transport.call('ping', `/${this.name}/api/ping`, {}, call);
  }
}

/** Contents as JSON carries them: text as it is, bytes base64 with `decode: true`. */
function contentsField(contents: EntryFields['contents']): object {
  if (contents === undefined || typeof contents === 'string') return {};
  const bytes =
    contents instanceof ArrayBuffer
      ? new Uint8Array(contents)
      : new Uint8Array(contents.buffer, contents.byteOffset, contents.byteLength);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { contents: btoa(binary), decode: true };
}

/** The body of a download in the asked form, counting progress (and restarting the timeout) as it arrives. */
async function contentsOf(
  response: Response,
  as: keyof ReadResults,
  deadline: Deadline,
  baseUrl: string,
  onProgress?: (p: Progress) => void,
): Promise<ReadResults[keyof ReadResults]> {
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && response.headers.has('content-length') ? length : undefined;
  const type = response.headers.get('content-type') ?? '';
  let loaded = 0;
  const counted = response.body?.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        if (as !== 'stream') deadline.touch();
        onProgress?.({ loaded, total });
        controller.enqueue(chunk);
      },
    }),
  );
  if (as === 'stream') return counted ?? new Blob([]).stream();
  let blob: Blob;
  try {
    blob = await new Response(counted ?? null, { headers: { 'content-type': type } }).blob();
  } catch (err) {
    throw deadline.failure('read', err, baseUrl);
  }
  if (total !== undefined && blob.size !== total)
    throw new RoostError(`The download broke off after ${blob.size} of ${total} bytes.`, {
      code: 'network_error',
      operation: 'read',
    });
  if (as === 'blob') return blob;
  return as === 'text' ? blob.text() : blob.arrayBuffer();
}
