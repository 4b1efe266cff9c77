import type { Readable } from 'node:stream';

/**
 * Where file contents live, apart from their metadata (which is in the database). Blobs are
 * immutable: new contents are a new blob, and the old one is deleted once the metadata points
 * to the new one, so a reader never sees half a file. The local-disk store is the default; an
 * S3-compatible store implements the same three calls.
 */
export interface BlobStore {
  /**
   * Store the whole stream as a new blob, atomically: either every byte is stored under the
   * returned id, or nothing is left behind (the promise rejects).
   */
  put(source: Readable, options: { maxBytes: number }): Promise<StoredBlob>;
  /** The contents, or the inclusive byte range of them. Rejects when the blob is gone. */
  get(id: string, range?: ByteRange): Promise<Readable>;
  /** Remove a blob; removing one that is gone is not an error. */
  delete(id: string): Promise<void>;
}

export interface StoredBlob {
  id: string;
  size: number;
  /** SHA-256 of the contents, base64url. */
  hash: string;
  /** The first bytes (up to `HEAD_BYTES`), for content sniffing without a second read. */
  head: Buffer;
}

/** Inclusive byte offsets, as HTTP ranges count them. */
export interface ByteRange {
  start: number;
  end: number;
}

export const HEAD_BYTES = 512;

/** The source held more than `maxBytes`; nothing was stored. */
export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`blob larger than ${maxBytes} bytes`);
  }
}
