import type { z } from 'zod';
import {
  listInput,
  moveInput,
  newItemInput,
  removeItemInput,
  setItemInput,
  setOwnerInput,
  writeInput,
} from '../../filestore/index.js';
import { allowedInput, setPermissionsInput } from '../../core/validation.js';
import { jsonSchemaOf } from '../openapi.js';
import {
  ALLOWED_ANSWER,
  answerOf,
  DONE_ANSWER,
  FAILURE_ANSWER,
  ONE_ANSWER,
  PAGE_MEMBERS,
  PERMISSIONS_ANSWER,
  SCALARS,
} from './answer-schemas.js';

/**
 * The file stores' part of /openapi.json: every operation under its own path,
 * `/<store>/{path}/@<op>`. Their routes are catch-alls (http/routes/filestore-routes.ts), which
 * no route schema can describe one operation at a time; this says what filestore-protocol.ts
 * answers.
 */

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

interface FileOpDoc {
  summary: string;
  input?: z.ZodType;
  answer: object;
  /** Takes the file: a multipart part (or, for `@write`, the raw body by PUT). */
  upload?: boolean;
}

const FILE_OPS: Record<string, FileOpDoc> = {
  getItem: {
    summary: 'The entry at the path: file or directory, size, type, times.',
    answer: answerOf({ result: { const: true }, ...(ENTRY.properties as object) }),
  },
  newItem: {
    summary:
      'Create a file (contents as text, base64 or a file part) or a directory (`type: d`) in the directory at the path.',
    input: newItemInput,
    upload: true,
    answer: answerOf({ result: { const: 1 }, success: SCALARS.strings }),
  },
  setItem: {
    summary: 'New contents, type or cache header of the file at the path (or the cache header of a directory).',
    input: setItemInput,
    upload: true,
    answer: ONE_ANSWER,
  },
  write: {
    summary:
      'New contents of the file at the path (created if missing): the raw body by PUT, or text, base64 or a file part.',
    input: writeInput,
    upload: true,
    answer: DONE_ANSWER,
  },
  move: { summary: 'Move or rename the entry at the path to `newpath`.', input: moveInput, answer: DONE_ANSWER },
  removeItem: {
    summary: 'Remove the file or directory at the path (a directory with entries only with `recursive`).',
    input: removeItemInput,
    answer: answerOf({ result: { ...SCALARS.integer, description: 'How many entries were removed.' } }),
  },
  list: {
    summary: 'A page of the entries of the directory at the path: `type`, `sort`, `order`, `start`, `size`.',
    input: listInput,
    answer: answerOf({ result: { const: true }, items: { type: 'array', items: ENTRY }, ...PAGE_MEMBERS }),
  },
  allowed: {
    summary: 'Does the caller hold these permissions (at this path)?',
    input: allowedInput,
    answer: ALLOWED_ANSWER,
  },
  getPermissions: { summary: 'The permission entries of this store.', answer: PERMISSIONS_ANSWER },
  setPermissions: {
    summary: 'Add, replace or revoke groups of permission entries.',
    input: setPermissionsInput,
    answer: PERMISSIONS_ANSWER,
  },
  getOwner: {
    summary: "The entry's owner (a user name; empty when none).",
    answer: answerOf({ result: { const: true }, owner: SCALARS.string }),
  },
  setOwner: { summary: 'Give the entry to `owner` (name, email or id).', input: setOwnerInput, answer: DONE_ANSWER },
  ping: { summary: 'Health check: answers `result: 1`.', answer: ONE_ANSWER },
};

const PATH_PARAMETER = {
  name: 'path',
  in: 'path',
  required: true,
  description:
    "The entry's path inside the store, its segments percent-encoded (`docs/a%20b.txt`); empty for the root.",
  schema: { type: 'string' },
};

const json = (schema: object) => ({ 'application/json': { schema } });
const FAILURES = {
  '4XX': { description: 'Refused: the code says why (docs/errors.md).', content: json(FAILURE_ANSWER) },
  '5XX': { description: 'Not served now: try again later.', content: json(FAILURE_ANSWER) },
};
const FILE_BYTES = {
  description: 'The file, with its type, length, ETag and Last-Modified; ranges answer 206.',
  content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};

function operation(store: string, op: string, doc: FileOpDoc, method: string) {
  const body = doc.input ? jsonSchemaOf(doc.input) : { type: 'object' };
  return {
    operationId: `${store}_${op}${method === 'post' ? '' : `_${method}`}`,
    tags: ['file store'],
    summary: doc.summary,
    description:
      'Also under `/<store>/api/<path>/@<op>`; the operations that change nothing also answer GET with the parameters in the query.',
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
    responses: { 200: { description: 'Success.', content: json(doc.answer) }, ...FAILURES },
  };
}

/** The documented paths of the file stores named. */
export function fileStoreDocPaths(stores: readonly string[]): Record<string, object> {
  const paths: Record<string, object> = {};
  for (const store of stores) {
    for (const [op, doc] of Object.entries(FILE_OPS)) {
      paths[`/${store}/{path}/@${op}`] = {
        post: operation(store, op, doc, 'post'),
        ...(op === 'write' ? { put: operation(store, op, doc, 'put') } : {}),
      };
    }
    const download = (op: string, summary: string) => ({
      get: {
        operationId: `${store}_${op}`,
        tags: ['file store'],
        summary,
        parameters: [PATH_PARAMETER],
        responses: { 200: FILE_BYTES, 206: { ...FILE_BYTES, description: 'The range asked for.' }, ...FAILURES },
      },
    });
    paths[`/${store}/{path}/@read`] = download('read', 'The contents of the file at the path (also HEAD).');
    paths[`/${store}/{path}`] = download('download', 'Download the file at the path (also HEAD); `Range` for a part.');
  }
  return paths;
}
