import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addValue, type FormRequest, type FormValues } from '@roost/forms';
import { RoostError } from '../../core/errors.js';

/**
 * Request bodies of the pages, turned into the form library's `FormRequest`. The forms post
 * `multipart/form-data` (the library's enctype), or urlencoded fields without it. A file part
 * goes to a temporary file (never into memory) that is removed when the answer is done, so a
 * form is validated, and its CSRF token checked, before any store sees the upload.
 */

export interface PageBodyLimits {
  /** Largest text field, in bytes. */
  fieldBytes: number;
  /** Largest file: 0 for pages that take none. */
  fileBytes: number;
  /** Where temporary upload files go. */
  uploadDir: string;
}

/** Install the multipart parser in this (encapsulated) plugin: the pages' routes only. */
export async function installPageBodies(app: FastifyInstance, fieldBytes: number): Promise<void> {
  await app.register(multipart, { limits: { fields: 100, fieldSize: fieldBytes, files: 1, parts: 102 } });
}

const tooLarge = (message: string) => new RoostError('too_large', 'body_too_large', message);

function checkText(value: string): string {
  if (value.includes('\u0000'))
    throw new RoostError('malformed', 'nul_character', 'Text may not contain the NUL character.');
  return value;
}

/** Query string values as form values (repeated keys stay lists). */
function fromParsed(parsed: unknown): FormValues {
  const out: FormValues = {};
  if (parsed === null || typeof parsed !== 'object') return out;
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    for (const one of Array.isArray(value) ? value : [value])
      if (typeof one === 'string') addValue(out, key, checkText(one));
  }
  return out;
}

/**
 * The form request of a page request: query, body (fields and at most one file) and headers.
 * Temporary files are deleted once the reply is closed, whatever happened.
 */
export async function readFormRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  limits: PageBodyLimits,
): Promise<FormRequest> {
  const query = fromParsed(request.query);
  const headers = request.headers as Record<string, string | string[] | undefined>;
  if (request.method !== 'POST') return { method: request.method, query, headers };
  if (!request.isMultipart()) return { method: 'POST', query, body: fromParsed(request.body), headers };

  const body: FormValues = {};
  const temporary: string[] = [];
  reply.raw.once('close', () => void Promise.all(temporary.map((p) => rm(p, { force: true }))));
  try {
    await readParts(request, limits, body, temporary);
  } catch (err) {
    // The parser's own limits, in words a page can show.
    const code = (err as { code?: unknown }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw tooLarge(`The file is larger than this store allows (${limits.fileBytes} bytes).`);
    if (code === 'FST_FILES_LIMIT') throw new RoostError('malformed', 'bad_request', 'This form takes no file.');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw tooLarge('The form has too many fields.');
    throw err;
  }
  return { method: 'POST', query, body, headers };
}

/**
 * What the parts' iteration throws about the body itself (no boundary, cut short: busboy's errors,
 * which have no code) is the client's malformed request; @fastify/multipart's own (its limits, a
 * client gone) keep their codes for `readFormRequest`.
 */
const bodyFailure = (err: unknown) =>
  (err as { code?: unknown } | null)?.code === undefined
    ? new RoostError('malformed', 'malformed_multipart', 'The form is malformed (no boundary, or cut short).', {
        cause: err,
      })
    : err;

async function readParts(
  request: FastifyRequest,
  limits: PageBodyLimits,
  body: FormValues,
  temporary: string[],
): Promise<void> {
  const parts = request.parts({ limits: { fileSize: limits.fileBytes + 1, files: limits.fileBytes > 0 ? 1 : 0 } });
  for (;;) {
    const step = await parts.next().catch((err: unknown) => {
      throw bodyFailure(err);
    });
    if (step.done) return;
    const part = step.value;
    if (part.type === 'field') {
      if (part.valueTruncated) throw tooLarge(`A field is longer than ${limits.fieldBytes} bytes.`);
      addValue(body, part.fieldname, checkText(String(part.value)));
      continue;
    }
    // A file input left empty still sends a part, with no name and no bytes.
    if (part.filename === '') {
      part.file.resume();
      addValue(body, part.fieldname, '');
      continue;
    }
    await mkdir(limits.uploadDir, { recursive: true });
    const path = join(limits.uploadDir, `upload-${randomUUID()}`);
    temporary.push(path);
    let size = 0;
    part.file.on('data', (chunk: Buffer) => (size += chunk.length));
    try {
      await pipeline(part.file, createWriteStream(path));
    } catch (err) {
      // A file part cut short fails with busboy's error, which the iteration gives too (also when
      // busboy failed the part before this read it); otherwise the temporary file failed, and the
      // stopped part ends the iteration.
      await parts.next().catch((bodyError: unknown) => {
        throw bodyFailure(bodyError);
      });
      throw err;
    }
    if (part.file.truncated || size > limits.fileBytes)
      throw tooLarge(`The file is larger than this store allows (${limits.fileBytes} bytes).`);
    addValue(body, part.fieldname, { filename: checkText(part.filename), mime: part.mimetype, size, path });
  }
}
