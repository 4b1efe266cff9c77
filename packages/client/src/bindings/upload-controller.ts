import type { RoostError } from '../errors.js';
import type { FileStore, WriteOptions } from '../filestore.js';
import type { Progress } from '../filestore-types.js';
import { Latest, Observable } from './observable.js';

export interface UploadState {
  uploading: boolean;
  /** Bytes sent so far, of how many (`null` before the first upload). */
  progress: Progress | null;
  /** `progress` as a fraction from 0 to 1 (0 while the size is unknown). */
  fraction: number;
  /** The path of the last upload that finished. */
  done: string | null;
  error: RoostError | null;
}

/** Uploads into a file store with their progress, one at a time: a new upload aborts the running one. */
export class UploadController {
  readonly state = new Observable<UploadState>({
    uploading: false,
    progress: null,
    fraction: 0,
    done: null,
    error: null,
  });
  readonly #latest = new Latest();

  constructor(readonly files: FileStore) {}

  /** Upload `file` to `path`; resolves `true` when it is stored. */
  readonly upload = async (
    path: string,
    file: Blob,
    options: Omit<WriteOptions, 'onProgress' | 'signal'> = {},
  ): Promise<boolean> => {
    const signal = this.#latest.next();
    this.state.set({ uploading: true, progress: { loaded: 0, total: file.size }, fraction: 0, error: null });
    const onProgress = (progress: Progress) => {
      if (!signal.aborted)
        this.state.set({ progress, fraction: progress.total ? progress.loaded / progress.total : 0 });
    };
    try {
      await this.files.upload(path, file, { ...options, signal, onProgress });
      this.state.set({ uploading: false, fraction: 1, done: path });
      return true;
    } catch (error) {
      this.state.set({ uploading: false, error: error as RoostError });
      return false;
    }
  };

  /** Stop the running upload (its failure shows as `aborted`). */
  readonly abort = (): void => {
    this.#latest.abort();
  };

  dispose(): void {
    this.#latest.abort();
  }
}
