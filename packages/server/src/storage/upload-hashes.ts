import { createHash, type Hash } from 'node:crypto';
import { pipeline, type Readable, Transform, Writable } from 'node:stream';
import { pipeline as piped } from 'node:stream/promises';
import type { DataStore } from '@tus/utils';
import { blobMeter, HEAD_BYTES, type StoredBlob } from './blob-store.js';

/** What an upload's bytes came to so far, in this process: its hash runs on as PATCHes follow. */
interface Running {
  hash: Hash;
  size: number;
  head: Buffer;
  touched: number;
}

/**
 * A blob's SHA-256 and head (blob-store.ts `StoredBlob`) taken as a resumable upload's bytes
 * arrive, so that the finished upload need not be read again (storage/partial-uploads.ts
 * `adopt`): the tus data store's `write` is wrapped, and each write from the offset the running
 * hash stands at carries it on. A write from elsewhere (another process took the upload, or this
 * one restarted) or one whose bytes the store did not all keep forgets it: then `adopt` reads the
 * file once, as before. Only what the store kept is ever counted.
 */
export function hashedWrites(store: DataStore): {
  datastore: DataStore;
  /** The running hash of upload `id` if it covers exactly `size` bytes (then it is forgotten). */
  take(id: string, size: number): Omit<StoredBlob, 'id'> | null;
  /** Forget the hashes of uploads untouched since `before` (ms): abandoned ones. */
  forgetUntouched(before: number): void;
} {
  const running = new Map<string, Running>();

  async function write(stream: Readable, id: string, offset: number): Promise<number> {
    const known = running.get(id);
    running.delete(id);
    const state: Running | undefined =
      offset === 0
        ? { hash: createHash('sha256'), size: 0, head: Buffer.alloc(0), touched: Date.now() }
        : known?.size === offset
          ? known
          : undefined;
    if (!state) return store.write(stream, id, offset);
    let seen = 0;
    const tee = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        state.hash.update(chunk);
        if (state.head.length < HEAD_BYTES)
          state.head = Buffer.concat([state.head, chunk.subarray(0, HEAD_BYTES - state.head.length)]);
        done(null, chunk);
      },
    });
    // A failing source fails the tee, so the store's write ends (and the hash is not kept).
    pipeline(stream, tee, () => {});
    const reached = await store.write(tee, id, offset);
    if (reached - offset === seen) running.set(id, { ...state, size: reached, touched: Date.now() });
    return reached;
  }

  const datastore = new Proxy(store, {
    get(target, property) {
      if (property === 'write') return write;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    datastore,
    take(id, size) {
      const state = running.get(id);
      running.delete(id);
      if (!state || state.size !== size) return null;
      return { size, hash: state.hash.digest('base64url'), head: state.head };
    },
    forgetUntouched(before) {
      for (const [id, state] of running) if (state.touched < before) running.delete(id);
    },
  };
}

/** A sink that keeps nothing: the meter is what reads the bytes. */
const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** The SHA-256 and head of an upload's bytes read once (at most `maxBytes`), when no running hash covers them. */
export async function metered(source: Readable, maxBytes: number): Promise<Omit<StoredBlob, 'id'>> {
  const meter = blobMeter(maxBytes);
  await piped(source, meter.stream, discard());
  return meter.result();
}
