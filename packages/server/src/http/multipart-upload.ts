import { PassThrough, type Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { isRoostError, RoostError } from '../core/errors.js';
import type { Upload } from '../filestore/index.js';

/**
 * A multipart body for an operation that takes an upload (`runWithBody` of http/file-uploads.ts):
 * the fields before the first file part are the operation's values and the file part its upload,
 * streamed; a body without a file part runs the operation with all its fields at its end.
 *
 * Two rules keep a broken body (no boundary, cut short, a field with a NUL) from being half
 * done, each learnt from test/security/multipart-cuts.test.ts:
 * - The upload ends only when the whole body has. Busboy finds a body cut short where it ends,
 *   which may be after the file part (in a field after it, or in the closing delimiter); an upload
 *   that had ended with its part was stored, and the request answered 400 over a stored write.
 * - Whether the body failed is what @fastify/multipart's iteration of the parts says, never an
 *   'error' event of the file part's stream: busboy may fail that stream before the part reaches
 *   this module (a small body is parsed in one go; under load a cut-short `@write` on S3 was
 *   answered 500 with busboy's error as the operation's own).
 * The operation reads `upload`, a stream of this module's: only the body's end ends it, and only
 * a failure of the body (or a refusal of a field) fails it.
 */

/** An operation run with its values, and with its upload when it takes one. */
export type RunWithValues = (values: Record<string, unknown>, upload?: Upload) => Promise<object>;

/** The operation, once the first file part has started it. */
interface Started {
  /** The file part as busboy gives it. */
  file: Readable;
  /** What the operation reads: the file part's bytes, ended once the whole body is in. */
  upload: PassThrough;
  outcome: Promise<{ result: object } | { failed: unknown }>;
  /** Settles only if the operation fails before the body's end. */
  failure: Promise<{ failed: unknown }>;
}

export async function runWithMultipart(
  request: FastifyRequest,
  values: Record<string, unknown>,
  maxFileBytes: number,
  run: RunWithValues,
): Promise<object> {
  const parts = request.parts({ limits: { fileSize: maxFileBytes + 1 } });
  let started: Started | undefined;
  for (;;) {
    const next = parts.next().then(
      (step) => ({ step }),
      (bodyError: unknown) => ({ bodyError }),
    );
    const got = await (started ? Promise.race([next, started.failure]) : next);
    if ('failed' in got) {
      // The operation refused or failed on its own while the body was still coming (it never
      // sees the body's failures but through `upload`): it reads no more, so neither does busboy.
      started?.file.destroy();
      throw got.failed;
    }
    if ('bodyError' in got) {
      await abandon(started, got.bodyError);
      throw bodyFailure(got.bodyError);
    }
    if (got.step.done) break;
    const part: Multipart = got.step.value;
    if (part.type === 'file') {
      // Only the first file counts; the others are read and dropped, or the parts after them never come.
      if (started) part.file.resume();
      else started = start(run, { ...values }, part.file, part.mimetype);
    } else if (typeof part.value === 'string') {
      if (part.value.includes('\u0000')) {
        const refusal = new RoostError('malformed', 'nul_character', 'Text may not contain the NUL character.');
        await abandon(started, refusal);
        throw refusal;
      }
      values[part.fieldname] = part.value;
    }
  }
  if (!started) return run(values);
  started.upload.end();
  const outcome = await started.outcome;
  if ('failed' in outcome) throw outcome.failed;
  return outcome.result;
}

function start(run: RunWithValues, values: Record<string, unknown>, file: Readable, mime: string): Started {
  const upload = new PassThrough({ highWaterMark: 256 * 1024 });
  // Its failure (`abandon`) is reported by the operation's read of it; an operation that did not
  // read it has nothing to hear it, and an unheard 'error' ends the process.
  upload.on('error', () => {});
  file.pipe(upload, { end: false });
  // Async, so that a refusal thrown before the operation's first await (a bad path) is a failure like the others.
  const running = (async () => run(values, { stream: upload, mime }))();
  const outcome = running.then(
    (result) => {
      // An operation that did not want the file leaves it unread: drain it, or the parts after it never come.
      upload.resume();
      return { result };
    },
    (failed: unknown) => ({ failed }),
  );
  const failure = outcome.then((settled) => ('failed' in settled ? settled : new Promise<never>(() => {})));
  return { file, upload, outcome, failure };
}

/**
 * The body failed: the operation's upload fails with it, and the answer waits for the operation
 * to give up, so that what it had begun to store is gone by then (the blob stores remove a blob
 * whose source failed).
 */
async function abandon(started: Started | undefined, cause: unknown): Promise<void> {
  if (!started) return;
  started.file.destroy();
  started.upload.destroy(cause instanceof Error ? cause : new Error(String(cause)));
  await started.outcome;
}

/** Errors of @fastify/multipart's own limits carry their status (413 and the like). */
const hasClientStatus = (err: unknown) => {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
};

/** What busboy throws about the body (no boundary, cut short) is the client's malformed request. */
function bodyFailure(err: unknown): unknown {
  if (isRoostError(err) || hasClientStatus(err)) return err;
  return new RoostError(
    'malformed',
    'malformed_multipart',
    'The multipart body is malformed (no boundary, or cut short).',
    {
      cause: err,
    },
  );
}
