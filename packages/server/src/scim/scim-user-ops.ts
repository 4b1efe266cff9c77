import { z } from 'zod';
import { randomToken } from '../core/ids.js';
import { accountNameFrom, type User } from '../users/index.js';
import { accountOf, asScimError, metaOf, type ScimContext } from './scim-context.js';
import { ADMINS } from '../core/permissions.js';
import {
  invalidSyntax,
  invalidValue,
  notFound,
  possibleId,
  ScimError,
  uniqueness,
  versionChanged,
} from './scim-errors.js';
import type { ScimGroupRow, ScimUserRow } from './scim-repo.js';
import { ScimTakenError } from './scim-repo.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA, USER_TYPE } from './scim-schemas.js';

/**
 * The SCIM User (RFC 7643 §4.1) over a Roost account: `userName` is the account's name (made to
 * fit Roost's name rule, `accountNameFrom`), the primary email its email, `displayName` (else
 * `name`) its real name, `active` whether it is disabled; the other attributes are kept as given
 * in `scim_users`. `groups` is read only: the SCIM groups whose Roost group the account carries.
 */

/** What is not kept as given: the account's own fields, the server's, and the password (never shown). */
const NOT_KEPT = new Set(['schemas', 'id', 'meta', 'userName', 'externalId', 'active', 'password', 'groups']);
const REALNAME_MAX = 255;

type UserResource = Record<string, unknown> & { id: string; userName: string };

export function userResource(ctx: ScimContext, row: ScimUserRow, account: User, groups: readonly ScimGroupRow[]) {
  const location = `${ctx.base}/Users/${row.userId}`;
  const member = groups.filter((g) => account.groups.includes(g.displayName));
  return {
    schemas: row.attributes[ENTERPRISE_SCHEMA] ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: row.userId,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.userName,
    ...row.attributes,
    active: account.state === 'active',
    ...(member.length
      ? {
          groups: member.map((g) => ({
            value: g.id,
            $ref: `${ctx.base}/Groups/${g.id}`,
            display: g.displayName,
            type: 'direct',
          })),
        }
      : {}),
    meta: metaOf('User', location, row),
  } as UserResource;
}

interface UserValues {
  userName: string;
  externalId: string | null;
  active: boolean;
  password: string | undefined;
  email: string | undefined;
  realname: string;
  attributes: Record<string, unknown>;
}

/** A body (POST, PUT, or a PATCH's result) checked and split into the account's fields and the kept attributes. */
function userValues(body: unknown): UserValues {
  const read = USER_TYPE.read(body);
  const schemas = read.schemas as string[];
  if (!schemas.includes(USER_SCHEMA)) throw invalidSyntax(`"schemas" must list ${USER_SCHEMA}.`);
  const userName = typeof read.userName === 'string' ? read.userName.trim() : '';
  if (!userName) throw invalidValue('userName is required.');
  if (!accountNameFrom(userName).replace(/_/g, ''))
    throw invalidValue('userName needs a letter or a digit (a Roost account name is made from it).');
  const emails = (read.emails ?? []) as { value?: string; primary?: boolean }[];
  const email = (emails.find((e) => e.primary) ?? emails[0])?.value;
  if (email !== undefined && !z.email().safeParse(email).success)
    throw invalidValue(`The email "${email.slice(0, 100)}" is not an email address.`);
  const name = (read.name ?? {}) as Record<string, string | undefined>;
  const realname =
    (read.displayName as string | undefined) ??
    name.formatted ??
    [name.givenName, name.familyName].filter(Boolean).join(' ');
  const attributes = Object.fromEntries(Object.entries(read).filter(([key]) => !NOT_KEPT.has(key)));
  return {
    userName,
    externalId: (read.externalId as string | undefined) ?? null,
    active: (read.active as boolean | undefined) ?? true,
    password: read.password as string | undefined,
    email,
    realname: [...realname].slice(0, REALNAME_MAX).join(''),
    attributes,
  };
}

export function userOps(ctx: ScimContext) {
  const { repo, users, caller, clock } = ctx;

  /** A password the provider sends follows the sign-up's rules (`users.passwordMinLength`, its longest). */
  function checkPassword(password: string | undefined): void {
    if (password === undefined) return;
    const problems = users.checkNewAccount({ name: 'scim', email: 'scim@example.com', password });
    const problem = problems.find(([field]) => field === 'password');
    if (problem) throw invalidValue(`password: ${problem[1]}.`);
  }

  /** The row and account of an id; 404 when either is gone. */
  async function load(id: string): Promise<{ row: ScimUserRow; account: User }> {
    const row = possibleId(id) ? await repo.userById(id) : null;
    const account = row && (await accountOf(ctx, id));
    if (!row || !account) throw notFound('User', id);
    return { row, account };
  }

  async function create(body: unknown): Promise<{ row: ScimUserRow; account: User }> {
    const values = userValues(body);
    const known = await repo.userByName(values.userName);
    if (known) {
      if (await accountOf(ctx, known.userId)) throw uniqueness(`The userName "${values.userName}" is taken.`);
      // Its account was removed in Roost itself (an administrator, `roost user`): the row is left over.
      await repo.removeUser(known.userId);
    }
    checkPassword(values.password);
    let account: User;
    try {
      account = await users.createUser(caller, {
        name: accountNameFrom(values.userName),
        // An account an identity provider makes signs in through it (SAML, OpenID Connect): a
        // password nobody knows unless the provider sends one.
        password: values.password ?? randomToken(),
        ...(values.email !== undefined ? { email: values.email } : {}),
        realname: values.realname,
        state: values.active ? 'active' : 'disabled',
      });
    } catch (err) {
      throw asScimError(err);
    }
    const now = clock.now();
    const row: ScimUserRow = {
      userId: account.id,
      userName: values.userName,
      externalId: values.externalId,
      attributes: values.attributes,
      version: 1,
      created: now,
      modified: now,
    };
    try {
      await repo.insertUser(row);
    } catch (err) {
      // Another create of the same userName won between the check and here: the account made goes again.
      await users.removeUser(caller, { identity: account.id });
      if (err instanceof ScimTakenError) throw uniqueness(`The userName "${values.userName}" is taken.`);
      throw err;
    }
    return { row, account };
  }

  /** PUT, and a PATCH's result: the account's fields through the user service, then the kept attributes. */
  async function replace(current: { row: ScimUserRow; account: User }, body: unknown): Promise<void> {
    const { row, account } = current;
    const id = row.userId;
    const values = userValues(body);
    checkPassword(values.password);
    const emailChanged = values.email !== undefined && values.email !== account.email;
    // A provisioned account an administrator made one in Roost: how it signs in is Roost's, or the
    // provider's key (scope scim:*) would be an administrator's password (docs/users.md "SCIM").
    if (account.groups.includes(ADMINS) && (values.password !== undefined || emailChanged))
      throw new ScimError(
        403,
        'This account is an administrator of Roost: its password and email are changed in Roost, not over SCIM.',
      );
    const other = await repo.userByName(values.userName);
    if (other && other.userId !== id) throw uniqueness(`The userName "${values.userName}" is taken.`);
    const name = accountNameFrom(values.userName);
    const active = account.state === 'active';
    try {
      await users.setUser(caller, {
        identity: id,
        values: {
          ...(name !== account.name ? { name } : {}),
          ...(emailChanged ? { email: values.email } : {}),
          ...(values.password !== undefined ? { password: values.password } : {}),
          ...(values.realname !== account.realname ? { realname: values.realname } : {}),
          // `active: false` disables the account and ends its sessions at once (users/admin-ops.ts `setUser`).
          ...(values.active !== active ? { active: values.active } : {}),
        },
      });
    } catch (err) {
      throw asScimError(err);
    }
    const next: ScimUserRow = {
      ...row,
      userName: values.userName,
      externalId: values.externalId,
      attributes: values.attributes,
      version: row.version + 1,
      modified: clock.now(),
    };
    try {
      if (!(await repo.replaceUser(next, row.version))) throw versionChanged();
    } catch (err) {
      if (err instanceof ScimTakenError) throw uniqueness(`The userName "${values.userName}" is taken.`);
      throw err;
    }
  }

  async function remove(id: string): Promise<void> {
    await load(id);
    await users.removeUser(caller, { identity: id });
    await repo.removeUser(id);
  }

  return { load, create, replace, remove };
}
