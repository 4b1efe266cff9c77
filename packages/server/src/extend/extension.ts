/**
 * The team's own code in the server (issue 40, docs/hooks.md): an extension is a function handed
 * this API once at start. It comes from a file of the `hooks/` folder (its default export), from
 * `extend` in roost.config.ts, or from an embedding program (`createRoost(config, { extensions })`),
 * loaded by `extend/load.ts`. Each part has its module and its owner:
 *
 * - `hooks`  (`extend/hooks.ts`):  before and after the writes and sign-in steps the domains name
 *   in `HookPoints` (core/hooks.ts); after-hooks run as jobs of the durable queue.
 * - `routes` (`extend/routes.ts`): routes of your own, signed in, with input checked by a schema,
 *   Roost's failure body and an entry in `/openapi.json`.
 * - `jobs`   (`extend/jobs.ts`):   scheduled jobs (cron, once per tick across processes) and
 *   background jobs (enqueued, retried with backoff), on the durable queue (core/job-queue.ts).
 *
 * Handlers get the services as their caller, or as the system when they ask for it (`asSystem`).
 */

import type { ExtensionHooks } from './hooks.js';
import type { ExtensionJobs } from './jobs.js';
import type { ExtensionRoutes } from './routes.js';

export interface ExtensionApi {
  readonly hooks: ExtensionHooks;
  readonly routes: ExtensionRoutes;
  readonly jobs: ExtensionJobs;
}

/** An extension: registers its hooks, routes and jobs; may be async (it is awaited before Roost listens). */
export type RoostExtension = (roost: ExtensionApi) => void | Promise<void>;

/** Types an extension as it is written (a file of `hooks/` exports it as default). */
export function defineExtension(extension: RoostExtension): RoostExtension {
  return extension;
}
