import { z } from 'zod';
import { looseInt } from '../core/validation.js';
import { isMediaType } from './filestore-inputs.js';

/** An upload's token (filestore/direct-ops.ts): 24 random bytes, base64url. */
const UPLOAD_TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** `@directUpload`: the bytes and type the client will send to S3. */
export const directUploadInput = z.object({
  size: looseInt.pipe(z.number().min(0)),
  mime: z.string().refine(isMediaType, { message: 'invalid' }).optional(),
});

/** `@directFinish`: the token `@directUpload` answered. */
export const directFinishInput = z.object({ upload: z.string().regex(UPLOAD_TOKEN, 'invalid') });

/** What a client announces of a direct upload (the type defaults to the name's, else `application/octet-stream`). */
export interface DirectUploadInput {
  size: number | string;
  mime?: string;
}

export interface DirectFinishInput {
  upload: string;
}
