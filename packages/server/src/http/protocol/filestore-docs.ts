import { jsonSchemaOf, plainSummary } from '../openapi.js';
import { FAILURE_ANSWER } from './answer-schemas.js';
import { fileOperations, type FileOperation } from './filestore-protocol.js';

/**
 * The file stores' part of /openapi.json: every operation under its own path,
 * `/<store>/{path}/@<op>`. Their routes are catch-alls (http/routes/filestore-routes.ts), which
 * no route schema can describe one operation at a time; this writes the paths of the operations'
 * table (http/protocol/filestore-protocol.ts).
 */
const PATH_PARAMETER = {
  name: 'path',
  in: 'path',
  required: true,
  description:
    "The entry's path inside the store (`docs/a b.txt`), percent-encoded as a whole (`docs%2Fa%20b.txt`) or " +
    'segment by segment (`docs/a%20b.txt`): an encoded slash separates segments too. Empty for the root.',
  schema: { type: 'string' },
};

/** `?thumb=WxH` of a download (docs/filestore.md, "Thumbnails"; filestore/thumbnails/). */
const THUMB_PARAMETER = {
  name: 'thumb',
  in: 'query',
  required: false,
  description:
    "A thumbnail of an image instead of the file: one of the store's `thumbnails.sizes` (`100x100` a crop, " +
    '`100x100t`/`100x100b` from the top/bottom, `100x100f` fitted inside, `0x100`/`100x0` by the ratio), ' +
    'as AVIF, WebP, or the image kind, by `Accept`.',
  schema: { type: 'string', pattern: '^\\d{1,4}x\\d{1,4}[tbf]?$' },
};

const json = (schema: object) => ({ 'application/json': { schema } });
const failures = (failure: object = FAILURE_ANSWER) => ({
  '4XX': { description: 'Refused: the code says why (docs/errors.md).', content: json(failure) },
  '5XX': { description: 'Not served now: try again later.', content: json(failure) },
});
const FILE_BYTES = {
  description: 'The file, with its type, length, ETag and Last-Modified; ranges answer 206.',
  content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};

function operation(store: string, doc: FileOperation, method: string) {
  const body = doc.input ? jsonSchemaOf(doc.input) : { type: 'object' };
  return {
    operationId: `${store}_${doc.op}${method === 'post' ? '' : `_${method}`}`,
    tags: ['file store'],
    ...plainSummary(
      doc.summary,
      'Also under `/<store>/api/<path>/@<op>`; the operations that change nothing also answer GET with the ' +
        'parameters in the query.',
    ),
    parameters: [PATH_PARAMETER],
    requestBody:
      method === 'put'
        ? {
            content: {
              'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
            },
          }
        : {
            content: {
              ...json(body),
              'application/x-www-form-urlencoded': { schema: body },
              ...(doc.upload ? { 'multipart/form-data': { schema: body } } : {}),
            },
          },
    responses: { 200: { description: 'Success.', content: json(doc.answer) }, ...failures(doc.failure) },
  };
}

/** A file store as its description needs it: its name, and which direct transfers it takes. */
export interface DocumentedFileStore {
  name: string;
  direct?: { uploads: boolean; downloads: boolean } | undefined;
}

/**
 * The documented paths of the file stores: a direct transfer's operations only where the store
 * takes it (elsewhere they answer `direct_not_enabled`, and a generated client should not offer them).
 */
export function fileStoreDocPaths(stores: readonly DocumentedFileStore[]): Record<string, object> {
  const paths: Record<string, object> = {};
  for (const { name: store, direct } of stores) {
    for (const doc of fileOperations) {
      if (doc.call === 'download' || (doc.direct && !direct?.[doc.direct])) continue;
      paths[`/${store}/{path}/@${doc.op}`] = {
        post: operation(store, doc, 'post'),
        ...(doc.op === 'write' ? { put: operation(store, doc, 'put') } : {}),
      };
    }
    const download = (op: string, summary: string) => ({
      get: {
        operationId: `${store}_${op}`,
        tags: ['file store'],
        ...plainSummary(summary, undefined),
        parameters: [PATH_PARAMETER, THUMB_PARAMETER],
        responses: { 200: FILE_BYTES, 206: { ...FILE_BYTES, description: 'The range asked for.' }, ...failures() },
      },
    });
    for (const doc of fileOperations)
      if (doc.call === 'download') paths[`/${store}/{path}/@${doc.op}`] = download(doc.op, doc.summary);
    paths[`/${store}/{path}`] = download('download', 'Download the file at the path (also HEAD); `Range` for a part.');
  }
  return paths;
}
