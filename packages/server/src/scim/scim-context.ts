import { setTimeout as sleep } from 'node:timers/promises';
import { ZodError } from 'zod';
import { isoTime, type Clock } from '../core/clock.js';
import { isRoostError } from '../core/errors.js';
import { DuplicateUserError, type Caller, type User, type UserService } from '../users/index.js';
import { invalidSyntax, invalidValue, ScimError, uniqueness } from './scim-errors.js';
import type { ScimRepo } from './scim-repo.js';

/** What the SCIM operations share: the accounts (through the user service), the SCIM tables, the clock. */
export interface ScimContext {
  users: UserService;
  repo: ScimRepo;
  clock: Clock;
  /**
   * The user service's caller for the accounts' changes: a program caller that administers
   * (users/user-context.ts `programCaller`), made once the key's `scim` scope was checked
   * (scim-routes.ts), named after the key so that the audit log shows which connection acted.
   */
  caller: Caller;
  /** The absolute URL of `/scim/v2`, for `meta.location` and `$ref`. */
  base: string;
  /** One change of an account at a time per account in this process (`oneChangeAtATime`). */
  queues: Map<string, Promise<unknown>>;
}

/** `meta` of a resource (RFC 7643 §3.1): the version is the ETag (RFC 7644 §3.14). */
export function metaOf(
  resourceType: 'User' | 'Group',
  location: string,
  row: { created: number; modified: number; version: number },
) {
  return {
    resourceType,
    created: isoTime(row.created),
    lastModified: isoTime(row.modified),
    location,
    version: etagOf(row.version),
  };
}

export const etagOf = (version: number) => `W/"${version}"`;

/** The account of an id, or null (a removed one; `findUser` also matches names, so the id is compared). */
export async function accountOf(ctx: ScimContext, id: string): Promise<User | null> {
  const account = await ctx.users.findUser(id);
  return account && account.id === id ? account : null;
}

/** How long a process may hold an account's changes (a crashed holder's lease ends so), and how long another waits. */
const LEASE_MS = 30_000;
const LEASE_WAIT_MS = 20_000;

/** Runs `work` under the account's lease in `scim_users`, waiting for another process's to end. */
async function underLease<T>(ctx: ScimContext, userId: string, work: () => Promise<T>): Promise<T> {
  const waitUntil = Date.now() + LEASE_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    const now = ctx.clock.now();
    const until = now + LEASE_MS;
    if (await ctx.repo.claimUser(userId, now, until)) {
      try {
        return await work();
      } finally {
        await ctx.repo.releaseUser(userId, until);
      }
    }
    // No row, no lease (another process deleted the User): nothing is left to change one at a
    // time, and the work finds the account gone (404, or no groups to change).
    if (!(await ctx.repo.userById(userId))) return work();
    if (Date.now() > waitUntil) throw new ScimError(503, 'Another process is changing this account; try again.');
    await sleep(Math.min(200, 10 * attempt));
  }
}

/**
 * Runs one change of a provisioned account at a time: queued in this process, and under a lease
 * in `scim_users` between processes (PostgreSQL; on SQLite one process owns the file and the
 * queue suffices, the lease costs an UPDATE). An account's groups are read and written whole
 * (`setUser`), so two changes at once would lose one: a membership taken away would stay, with its
 * permissions. A PUT or PATCH writes the account before its row's version, so two at once would
 * leave the account as the loser made it and the row as the winner did (scim-routes.ts `userWrite`).
 */
export function oneChangeAtATime<T>(ctx: ScimContext, userId: string, work: () => Promise<T>): Promise<T> {
  const before = ctx.queues.get(userId) ?? Promise.resolve();
  const run = before.then(() => underLease(ctx, userId, work));
  const settled = run.catch(() => undefined);
  ctx.queues.set(userId, settled);
  void settled.then(() => {
    if (ctx.queues.get(userId) === settled) ctx.queues.delete(userId);
  });
  return run;
}

/** Changes an account's Roost groups (permissions follow: core/grants.ts reads them), one change at a time. */
export function changeGroups(
  ctx: ScimContext,
  userId: string,
  change: (groups: readonly string[]) => string[],
): Promise<void> {
  return oneChangeAtATime(ctx, userId, async () => {
    const account = await accountOf(ctx, userId);
    if (!account) return;
    const groups = change(account.groups);
    if (groups.length === account.groups.length && groups.every((g, i) => g === account.groups[i])) return;
    await ctx.users.setUser(ctx.caller, { identity: userId, values: { groups } });
  });
}

/**
 * A body's check failure or the user service's refusal as SCIM's error: a name or email taken is
 * `uniqueness` (409), another field's problem `invalidValue`, the body's shape `invalidSyntax`.
 */
export function asScimError(err: unknown): unknown {
  if (err instanceof ScimError) return err;
  // `createUser` meets the unique index itself (users/user-repo.ts), as parallel creates of one userName do.
  if (err instanceof DuplicateUserError) return uniqueness(`An account with this ${err.field} exists.`);
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    const path = issue?.path.join('.') || 'the body';
    if (issue?.code === 'unrecognized_keys')
      return invalidSyntax(`Unknown attribute ${issue.keys.map((k) => `"${k}"`).join(', ')} at ${path}.`);
    return invalidValue(`${path}: ${issue?.message ?? 'invalid'}.`);
  }
  if (isRoostError(err)) {
    const taken = err.fields.find(([, problem]) => problem === 'exists');
    if (taken) return uniqueness(`An account with this ${taken[0] === 'email' ? 'email' : 'name'} exists.`);
    if (err.kind === 'malformed') return invalidSyntax(err.message);
    if (err.kind === 'invalid')
      return invalidValue(
        `${err.message}${err.fields.length ? ` (${err.fields.map(([f, p]) => `${f}: ${p}`).join(', ')})` : ''}`,
      );
  }
  return err;
}
