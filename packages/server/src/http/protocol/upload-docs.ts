import { FAILURE_ANSWER } from './answer-schemas.js';

/**
 * The resumable uploads' part of /openapi.json (tus 1.0; docs/filestore.md "Resumable uploads
 * (tus)"): `/<store>/@uploads` and `/<store>/@uploads/{id}`. Their routes take no route schema
 * (http/routes/upload-routes.ts hands the raw request to `@tus/server`), so their documentation
 * is written here, beside the file stores' (filestore-docs.ts). The codes of the refusals are
 * those of http/tus-uploads.ts `TUS_CODES` and upload-routes.ts (docs/errors.md, "Resumable uploads").
 */

const integer = { type: 'integer', minimum: 0 } as const;
const header = (description: string, schema: object = { type: 'string' }) => ({ description, schema });

const TUS_RESUMABLE = {
  name: 'Tus-Resumable',
  in: 'header',
  required: true,
  description: 'The protocol version: `1.0.0` (else 412 `tus_resumable_required`).',
  schema: { type: 'string', const: '1.0.0' },
};
const UPLOAD_CHECKSUM = {
  name: 'Upload-Checksum',
  in: 'header',
  required: false,
  description:
    "The checksum extension: `<sha1|sha256|md5> <base64 digest>` of this request's bytes. A chunk that does not " +
    'match is not kept (460 `checksum_mismatch`); such a chunk is at most 16 MiB.',
  schema: { type: 'string' },
};
/**
 * The store of an upload's URL, a parameter: the URLs of one store's uploads,
 * `/files/@uploads/{id}`, would be ambiguous beside its operations' `/files/{path}/@getItem`
 * (Redocly's `no-ambiguous-paths`: each has a variable where the other has a word), though Roost
 * is not: `@` begins no file's name (filestore/file-paths.ts), so `@uploads` is never a path.
 */
const storeParameter = (stores: readonly string[]) => ({
  name: 'store',
  in: 'path',
  required: true,
  description: 'The file store the upload was created in.',
  schema: { type: 'string', enum: [...stores] },
});
const ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The upload's id: the last segment of the `Location` its creation answered.",
  schema: { type: 'string', format: 'uuid' },
};

const ANSWER_TUS_RESUMABLE = header('`1.0.0`.');
const ANSWER_OFFSET = header('How many bytes the server holds of the upload.', integer);
const ANSWER_EXPIRES = header(
  'When the upload expires if not complete (RFC 9110 date): 410 `upload_expired` after it.',
);

/** A refusal: Roost's failure body (a HEAD's has none), with the codes the statuses carry. */
const failures = (codes: string, body = true) => ({
  '4XX': {
    description: `Refused: the code says why (docs/errors.md, "Resumable uploads"). ${codes}`,
    ...(body ? { content: { 'application/json': { schema: FAILURE_ANSWER } } } : {}),
  },
  '5XX': {
    description: 'Not served now: try again later.',
    ...(body ? { content: { 'application/json': { schema: FAILURE_ANSWER } } } : {}),
  },
});

const BYTES = {
  description: "The upload's bytes from `Upload-Offset`.",
  content: {
    'application/offset+octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
  },
};

function creation(store: string) {
  return {
    operationId: `${store}_uploadCreate`,
    tags: ['file store'],
    summary: 'Create a resumable upload (tus)',
    description:
      'Creates an upload of `Upload-Length` bytes (or `Upload-Defer-Length: 1`), checked as `@write` checks it: ' +
      "`write` on an existing file, `newItem` in the directory of a new one, and the store's `maxFileBytes`. " +
      "The file is named by the metadata `path` (from the store's root), or `filename` in the directory `dir`; " +
      '`filetype` is its media type. With `Content-Type: application/offset+octet-stream` the body carries the ' +
      'first bytes (creation-with-upload). The entry exists once the last byte arrived. `OPTIONS` on this path ' +
      'says what the server supports (`Tus-Version`, `Tus-Extension`, `Tus-Max-Size`, `Tus-Checksum-Algorithm`).',
    parameters: [
      TUS_RESUMABLE,
      {
        name: 'Upload-Length',
        in: 'header',
        required: false,
        description:
          "The file's size in bytes; required unless `Upload-Defer-Length: 1` (400 `upload_length_required`).",
        schema: integer,
      },
      {
        name: 'Upload-Defer-Length',
        in: 'header',
        required: false,
        description: '`1`: the size is told by a later PATCH (creation-defer-length).',
        schema: { type: 'string', const: '1' },
      },
      {
        name: 'Upload-Metadata',
        in: 'header',
        required: true,
        description:
          'Comma-separated `key base64(value)` pairs: `path`, or `filename` (and `dir`); `filetype`. ' +
          'Not valid tus metadata: 400 `invalid_metadata`; no name: 422 `validation_failure`.',
        schema: { type: 'string', examples: ['path ZG9jcy9ub3Rlcy50eHQ=,filetype dGV4dC9wbGFpbg=='] },
      },
      UPLOAD_CHECKSUM,
    ],
    requestBody: { required: false, ...BYTES },
    responses: {
      201: {
        description: "Created: `Location` is the upload's URL (a path on this server).",
        headers: {
          Location: header('The upload: `/<store>/@uploads/<id>`.'),
          'Tus-Resumable': ANSWER_TUS_RESUMABLE,
          'Upload-Offset': header('With first bytes in the body: how many were kept.', integer),
          'Upload-Expires': ANSWER_EXPIRES,
        },
      },
      ...failures(
        '401 `not_signed_in`, 403 `not_allowed`, 404 `not_found` (no such directory), 412 ' +
          '`tus_resumable_required`, 413 `storage_limit`, 422 `invalid_path` or `validation_failure`.',
      ),
    },
  };
}

function offset(stores: readonly string[]) {
  return {
    operationId: 'uploads_offset',
    tags: ['file store'],
    summary: 'Where a resumable upload stands (tus)',
    description:
      "The offset to send the rest from, after a cut. An upload is its creator's: anyone else's request, like " +
      'one for an upload completed, removed or never made, answers 404 (no body: a HEAD).',
    parameters: [storeParameter(stores), ID_PARAMETER, TUS_RESUMABLE],
    responses: {
      200: {
        description: 'The upload, not complete yet.',
        headers: {
          'Tus-Resumable': ANSWER_TUS_RESUMABLE,
          'Upload-Offset': ANSWER_OFFSET,
          'Upload-Length': header("The upload's size (absent while deferred).", integer),
          'Upload-Metadata': header('The metadata given at creation (and `roost_path`, `roost_owner`).'),
          'Cache-Control': header('`no-store`.'),
        },
      },
      ...failures('404 `not_found`, 410 `upload_expired`, 412 `tus_resumable_required`.', false),
    },
  };
}

function patch(stores: readonly string[]) {
  return {
    operationId: 'uploads_patch',
    tags: ['file store'],
    summary: "Send a resumable upload's bytes (tus)",
    description:
      'Bytes from `Upload-Offset`, which must be where the upload stands (409 `offset_mismatch` else). The ' +
      'request that brings the last byte writes the file by the same `write` as `@write` (hooks, events, ' +
      'webhooks); its refusal is this answer. One request at a time on an upload: 423 `upload_busy`.',
    parameters: [
      storeParameter(stores),
      ID_PARAMETER,
      TUS_RESUMABLE,
      {
        name: 'Upload-Offset',
        in: 'header',
        required: true,
        description: 'Where these bytes start: the offset HEAD answers (403 `offset_required` without it).',
        schema: integer,
      },
      {
        name: 'Upload-Length',
        in: 'header',
        required: false,
        description: 'The size, once, for an upload created with `Upload-Defer-Length: 1`.',
        schema: integer,
      },
      UPLOAD_CHECKSUM,
    ],
    requestBody: { required: true, ...BYTES },
    responses: {
      204: {
        description: 'Kept: the new offset (the file is written when it is the length).',
        headers: {
          'Tus-Resumable': ANSWER_TUS_RESUMABLE,
          'Upload-Offset': ANSWER_OFFSET,
          'Upload-Expires': ANSWER_EXPIRES,
        },
      },
      ...failures(
        '403 `offset_required` or `content_type_required`, 404 `not_found`, 409 `offset_mismatch`, 410 ' +
          '`upload_expired`, 413 `upload_length_exceeded` or `storage_limit`, 423 `upload_busy`, 460 ' +
          "`checksum_mismatch`; the file's own refusals (`not_allowed`, a hook's) on the last bytes.",
      ),
    },
  };
}

function termination(stores: readonly string[]) {
  return {
    operationId: 'uploads_terminate',
    tags: ['file store'],
    summary: 'Give up a resumable upload (tus)',
    description:
      'Removes the upload and its bytes (termination); a complete upload is a file, removed by `@removeItem`.',
    parameters: [storeParameter(stores), ID_PARAMETER, TUS_RESUMABLE],
    responses: {
      204: { description: 'Removed.', headers: { 'Tus-Resumable': ANSWER_TUS_RESUMABLE } },
      ...failures('400 `upload_complete`, 404 `not_found`, 412 `tus_resumable_required`, 423 `upload_busy`.'),
    },
  };
}

/** The documented tus paths of the file stores named (those that take resumable uploads). */
export function uploadDocPaths(stores: readonly string[]): Record<string, object> {
  const paths: Record<string, object> = {};
  for (const store of stores) paths[`/${store}/@uploads`] = { post: creation(store) };
  if (stores.length)
    paths['/{store}/@uploads/{id}'] = { head: offset(stores), patch: patch(stores), delete: termination(stores) };
  return paths;
}
