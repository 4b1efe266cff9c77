import type { Selectable } from 'kysely';
import type { UsersTable } from '../storage/schema.js';
import type { User } from './user-repo.js';

/** An account of its `users` row (user-repo.ts, and session-repo.ts, which reads it with the session). */
export const toUser = (row: Selectable<UsersTable>): User => ({
  id: row.id,
  name: row.name,
  email: row.email,
  realname: row.realname,
  passwordHash: row.password_hash,
  data: row.data,
  notify: row.notify === 1,
  groups: JSON.parse(row.groups) as string[],
  state: row.state,
  pending: row.pending,
  created: row.created,
  activity: row.activity,
  failedSignins: row.failed_signins,
  lockedUntil: row.locked_until,
  lockouts: row.lockouts,
  anonymous: row.anonymous === 1,
});
