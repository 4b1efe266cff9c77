/* Uploads kept between a reply with errors and the next submit, as deform's tmpstore does: the
   browser cannot send a file input back filled, so the form keeps the file under a token that
   the page carries in a hidden input (`<id>$kept`, fields/file-widget.ts). */
import { randomUUID } from 'node:crypto';
import type { UploadedFile } from './form-request.js';

/**
 * Where kept uploads wait. `keep` stores a file and names it by a token nobody can guess; `take`
 * gives it back (or nothing once expired or unknown). Give your own (e.g. on disk or in Redis)
 * as the form option `uploadStash` when several processes serve one form.
 */
export interface UploadStash {
  keep(file: UploadedFile): string | Promise<string>;
  take(token: string): UploadedFile | undefined | Promise<UploadedFile | undefined>;
}

/**
 * A stash in this process's memory: at most `maxFiles` files, each for `maxAgeMs` (oldest
 * dropped first). The default of every form.
 *
 * @example
 * const form = new HTMLForm({ fields, uploadStash: memoryUploadStash({ maxAgeMs: 600_000 }) });
 */
export function memoryUploadStash({ maxAgeMs = 3_600_000, maxFiles = 100 } = {}): UploadStash {
  const files = new Map<string, { file: UploadedFile; until: number }>();
  const prune = (now: number) => {
    for (const [token, kept] of files) if (kept.until < now || files.size > maxFiles) files.delete(token);
  };
  return {
    keep(file) {
      const now = Date.now();
      const token = randomUUID();
      files.set(token, { file, until: now + maxAgeMs });
      prune(now);
      return token;
    },
    take(token) {
      const kept = files.get(token);
      return kept && kept.until >= Date.now() ? kept.file : undefined;
    },
  };
}

/** The stash forms use when their `uploadStash` option is not set. */
export const defaultUploadStash: UploadStash = memoryUploadStash();
