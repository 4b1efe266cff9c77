import { parseArgs } from 'node:util';
import type { Config } from '../core/config.js';
import { isRoostError } from '../core/errors.js';
import { groupListProblem } from '../core/permissions.js';
import { openServices } from '../services.js';
import { programCaller, type UserValues } from '../users/index.js';

/**
 * `roost user passwd | groups | disable | enable | remove <identity>`: account recovery from the
 * shell (an only administrator who forgot the password, say). Each runs the user service's own
 * administrator operation (`setUser`, `removeUser`) as the CLI, so its rules and effects are
 * the API's: a new password or a disable ends the account's sessions.
 */
const CLI_CALLER = programCaller('roost-cli');

export const USER_CHANGES = ['passwd', 'groups', 'disable', 'enable', 'remove'] as const;
export type UserChange = (typeof USER_CHANGES)[number];

/** The first offending group of `groups`, with the rule, or null (the admin pages check the same). */

/** Where a command worked: the database and the data directory (no password shown). */
export function whereLine(config: Config): string {
  if (!config.databaseUrl) return `database: SQLite in ${config.dataDir}/roost.db; data directory: ${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  return `database: PostgreSQL ${url.host}${url.pathname}; data directory: ${config.dataDir}`;
}

export async function userChange(config: Config, change: UserChange, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { password: { type: 'string' }, group: { type: 'string', multiple: true } },
  });
  if (positionals.length !== 1) {
    console.error(`roost user ${change}: name one account (by name, email or id)`);
    return 2;
  }
  const identity = positionals[0]!;
  let setValues: UserValues | null = null;
  switch (change) {
    case 'passwd':
      if (!values.password) {
        console.error('roost user passwd: missing --password');
        return 2;
      }
      setValues = { password: values.password };
      break;
    case 'groups': {
      const groups = values.group ?? [];
      const problem = groupListProblem(groups);
      if (problem) {
        console.error(`roost user groups: ${problem}`);
        return 2;
      }
      setValues = { groups };
      break;
    }
    case 'disable':
      setValues = { active: false };
      break;
    case 'enable':
      setValues = { active: true };
      break;
    case 'remove':
      break;
  }
  const services = await openServices(config);
  try {
    if (setValues === null) await services.users.removeUser(CLI_CALLER, { identity });
    else await services.users.setUser(CLI_CALLER, { identity, values: setValues });
    console.log(`${DONE[change]} ${identity} (${whereLine(config)})`);
    return 0;
  } catch (err) {
    if (!isRoostError(err)) throw err;
    const fields = err.fields.map(([field, reason]) => `${field.replace(/^values\./, '')} ${reason}`).join(', ');
    const rule = err.fields.some(([field]) => field.endsWith('password'))
      ? `; a password has ${config.users.passwordMinLength} to 256 characters`
      : '';
    console.error(`roost user ${change}: ${err.message}${fields ? ` (${fields}${rule})` : ''} (${whereLine(config)})`);
    return 1;
  } finally {
    await services.close();
  }
}

const DONE: Record<UserChange, string> = {
  passwd: 'new password set for',
  groups: 'groups set for',
  disable: 'disabled (and signed out)',
  enable: 'enabled',
  remove: 'removed',
};
