import type { JobQueue } from '../core/job-queue.js';
import type { QueuingMailer } from '../core/mailer.js';
import type { Collections } from '../collections/index.js';
import type { DataStores } from '../datastore/index.js';
import type { FileStores } from '../filestore/index.js';
import type { UserService } from '../users/index.js';

/**
 * The services a hook may ask (docs/hooks.md): each operation takes its caller, so a hook asks
 * as the write's `caller` (it sees what that caller may see) or, saying so, as `system`
 * (extend/hooks.ts). `mail` queues a mail on the durable job queue (mail/mail-queue.ts).
 */
export interface HookServices {
  readonly collections: Collections;
  readonly dataStores: DataStores;
  readonly fileStores: FileStores;
  readonly users: UserService;
  readonly mail: QueuingMailer;
  readonly jobs: JobQueue;
}
