import { isoTime } from '../../core/clock.js';
import { directFinishInput, directUploadInput, type FileEntry } from '../../filestore/index.js';
import { answerOf, SCALARS } from './answer-schemas.js';
import type { FileOperation } from './filestore-protocol.js';
import { asInput } from './wire-values.js';

/**
 * The direct uploads and downloads of a file store whose `direct` setting asks for them
 * (filestore/direct-ops.ts, docs/filestore.md "Direct uploads and downloads (S3)"), as rows of the
 * file store's table (filestore-protocol.ts `fileOperations`), which hands in how an entry is shown.
 */
export function directOperations(shown: { entry: object; view: (entry: FileEntry) => object }): FileOperation[] {
  return [
    {
      op: 'directUpload',
      direct: 'uploads',
      summary:
        'A presigned PUT to the bucket for new contents of the file at the path, of `size` bytes of type `mime`; ' +
        'send the bytes there, then call `@directFinish` with `upload`.',
      input: directUploadInput,
      answer: answerOf({
        result: { const: true },
        upload: { ...SCALARS.string, description: 'The token to finish the upload with.' },
        method: { const: 'PUT' },
        url: { ...SCALARS.string, description: 'Where to send the bytes (presigned, short-lived).' },
        headers: {
          type: 'object',
          additionalProperties: SCALARS.string,
          description: 'Headers to send with the bytes, as they are.',
        },
        expires: { ...SCALARS.string, description: 'When the URL and the token expire (ISO 8601).' },
      }),
      call: async (store, caller, path, values) => {
        const ticket = await store.directUpload(caller, path, asInput(values));
        return {
          result: true,
          upload: ticket.upload,
          method: ticket.request.method,
          url: ticket.request.url,
          headers: ticket.request.headers,
          expires: isoTime(ticket.expires),
        };
      },
    },
    {
      op: 'directFinish',
      direct: 'uploads',
      summary:
        'Record the object sent to `@directUpload`’s URL as the file at the path, once its size and type ' +
        'are checked; the entry.',
      input: directFinishInput,
      answer: answerOf({ result: { const: true }, ...((shown.entry as { properties: object }).properties ?? {}) }),
      call: async (store, caller, path, values) => ({
        result: true,
        ...shown.view(await store.directFinish(caller, path, asInput(values))),
      }),
    },
    {
      op: 'link',
      direct: 'downloads',
      readOnly: true,
      summary: 'A presigned GET of the file at the path, straight from the bucket (short-lived).',
      answer: answerOf({
        result: { const: true },
        url: SCALARS.string,
        expires: { ...SCALARS.string, description: 'When the URL expires (ISO 8601).' },
      }),
      call: async (store, caller, path) => {
        const { url, expires } = await store.link(caller, path);
        return { result: true, url, expires: isoTime(expires) };
      },
    },
  ];
}
