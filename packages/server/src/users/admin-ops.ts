import { changePermissions, permissionEntries } from '../core/permission-ops.js';
import type { PermissionChange } from '../core/permissions.js';
import { parseInput, invalidField } from '../core/validation.js';
import { userErrors } from './user-errors.js';
import { welcomeMail } from './user-mails.js';
import { DuplicateUserError, type User, type UserChanges } from './user-repo.js';
import { namedAccount, type Caller, type UserContext } from './user-context.js';
import type { IdentityInput, ReviewInput, UserChange, UserQuery } from './user-inputs.js';
import { sendActivation } from './signup-ops.js';
import { sendMail } from './account-ops.js';

/** Default and largest page of `list` and `identities`. */
export const USER_PAGE = { default: 20, max: 100 } as const;

export const REVIEW_ACTIONS = ['accept', 'optin', 'activate', 'reject', 'disable'] as const;

/** Administrator functions: review, lookup, update, removal, listing, permissions. */
/** One page of accounts: `start` counts from 1, `total` counts every match. */
export interface UserPage {
  users: User[];
  start: number;
  size: number;
  total: number;
}

export function adminOps(ctx: UserContext) {
  const { repo, inputs } = ctx;

  const target = (identity: string): Promise<User> => namedAccount(ctx, identity);

  async function listing(_caller: Caller, input: UserQuery): Promise<UserPage> {
    const query = parseInput(inputs.list, input);
    const size = Math.min(query.size ?? USER_PAGE.default, USER_PAGE.max);
    const { users, total } = await repo.list(query, size);
    return { users, start: query.start, size, total };
  }

  return {
    /**
     * accept: active, welcome mail; optin: stays pending until the mailed token is used;
     * activate: active, no mail; reject: removed; disable: disabled.
     */
    async review(_caller: Caller, input: ReviewInput): Promise<void> {
      const { identity, action } = parseInput(inputs.review, input);
      if (!(REVIEW_ACTIONS as readonly string[]).includes(action))
        throw userErrors.unknown_action({ fields: [['action', 'invalid']] });
      const user = await target(identity);
      if (user.state !== 'pending') throw userErrors.not_pending();
      switch (action) {
        case 'accept':
          await repo.update(user.id, { state: 'active', pending: null });
          if (user.email) await sendMail(ctx, welcomeMail(user.email, user.name));
          break;
        case 'optin':
          await repo.update(user.id, { pending: 'optin' });
          await sendActivation(ctx, user);
          break;
        case 'activate':
          await repo.update(user.id, { state: 'active', pending: null });
          break;
        case 'reject':
          await repo.remove(user.id);
          break;
        case 'disable':
          await repo.update(user.id, { state: 'disabled', pending: null });
          break;
      }
    },

    /** The account named by name, email or id. */
    async getUser(_caller: Caller, input: IdentityInput): Promise<User> {
      const { identity } = parseInput(inputs.identity, input);
      return target(identity);
    },

    async setUser(_caller: Caller, input: UserChange): Promise<void> {
      const { identity, values } = parseInput(inputs.setUser, input);
      const user = await target(identity);
      const { password, active, pending, ...rest } = values;
      const changes: UserChanges = { ...rest };
      if (password !== undefined) {
        await ctx.breaches.refuseBreached(password, 'password');
        changes.passwordHash = await ctx.passwords.hash(password);
      }
      if (active === true)
        Object.assign(changes, { state: 'active', pending: null, failedSignins: 0, lockedUntil: null, lockouts: 0 });
      if (active === false) Object.assign(changes, { state: 'disabled', pending: null });
      if (pending === true && active !== true) Object.assign(changes, { state: 'pending', pending: 'review' });
      try {
        await repo.update(user.id, changes);
      } catch (err) {
        if (err instanceof DuplicateUserError) throw invalidField(err.field, 'exists');
        throw err;
      }
      // A disabled account, or one whose password was set, keeps no open session.
      if (active === false || pending === true || password !== undefined) await repo.deleteSessions(user.id);
    },

    async removeUser(_caller: Caller, input: IdentityInput): Promise<void> {
      const { identity } = parseInput(inputs.identity, input);
      await repo.remove((await target(identity)).id);
    },

    list: listing,
    /** As `list`, under the `identities` permission (the answers show less of each account). */
    identities: listing,

    getPermissions: (_caller: Caller) => permissionEntries(ctx.permissions),

    setPermissions: (_caller: Caller, input: { permissions: PermissionChange | readonly PermissionChange[] }) =>
      changePermissions(ctx.permissions, input),
  };
}
