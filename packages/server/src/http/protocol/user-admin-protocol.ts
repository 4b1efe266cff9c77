import { answerOf, DONE_ANSWER, PAGE_MEMBERS, PERMISSIONS_ANSWER } from './answer-schemas.js';
import { asInput } from './wire-values.js';
import { command, type UserOperation, type UserWire } from './user-wire.js';
import {
  identityView,
  adminView,
  pageBody,
  IDENTITY_ANSWER,
  ADMIN_VIEW,
  ADMIN_ANSWER,
  SESSIONS_ANSWER,
  FACTORS_ANSWER,
} from './user-views.js';
import { permissionsBody } from './permission-answers.js';
import { setPermissionsInput } from '../../core/validation.js';

/** Administrators' operations on accounts and the service's permissions (users/admin-ops.ts). */
export function adminOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'review',
      answer: DONE_ANSWER,
      summary: 'Review a pending sign-up: accept, optin, activate, reject, disable.',
      admin: true,
      input: i.review,
      call: command(users.review),
    },
    {
      op: 'getUser',
      answer: ADMIN_ANSWER,
      summary: 'A user profile, by name, email or id.',
      admin: true,
      read: true,
      input: i.identity,
      call: async (caller, values) => ({ result: true, ...adminView(await users.getUser(caller, asInput(values))) }),
    },
    {
      op: 'setUser',
      answer: DONE_ANSWER,
      summary: 'Change a user (`values`: realname, email, name, notify, data, groups, password, active).',
      admin: true,
      input: i.setUser,
      call: command(users.setUser),
    },
    {
      op: 'removeUser',
      answer: DONE_ANSWER,
      summary: 'Remove a user.',
      admin: true,
      input: i.identity,
      call: command(users.removeUser),
    },
    {
      op: 'list',
      answer: answerOf({ users: { type: 'array', items: ADMIN_VIEW }, ...PAGE_MEMBERS }),
      summary: 'Users with their profiles: search, paging, sort.',
      admin: true,
      read: true,
      input: i.list,
      call: async (caller, values) => pageBody(await users.list(caller, asInput(values)), adminView),
    },
    {
      op: 'identities',
      answer: answerOf({ users: { type: 'array', items: IDENTITY_ANSWER }, ...PAGE_MEMBERS }),
      summary: 'Users as identities: search, paging, sort.',
      admin: true,
      read: true,
      input: i.list,
      call: async (caller, values) => pageBody(await users.identities(caller, asInput(values)), identityView),
    },
    {
      op: 'userFactors',
      answer: FACTORS_ANSWER,
      summary: "A user's second factor, by name, email or id.",
      admin: true,
      read: true,
      input: i.identity,
      call: async (caller, values) => ({ result: true, ...(await users.userFactors(caller, asInput(values))) }),
    },
    {
      op: 'resetSecondFactor',
      answer: DONE_ANSWER,
      summary: "Remove a user's authenticator and recovery codes (a lost phone).",
      admin: true,
      input: i.identity,
      call: command(users.resetSecondFactor),
    },
    {
      op: 'userSessions',
      answer: SESSIONS_ANSWER,
      summary: "A user's sessions, by name, email or id.",
      admin: true,
      read: true,
      input: i.identity,
      call: async (caller, values) => ({ result: true, sessions: await users.userSessions(caller, asInput(values)) }),
    },
    {
      op: 'revokeUserSessions',
      answer: DONE_ANSWER,
      summary: 'End one session of a user, or all of them.',
      admin: true,
      input: i.userSessionRef,
      call: command(users.revokeUserSessions),
    },
    {
      op: 'getPermissions',
      answer: PERMISSIONS_ANSWER,
      summary: 'The permission entries of the user service.',
      admin: true,
      read: true,
      call: async (caller) => permissionsBody(await users.permissionEntries(caller)),
    },
    {
      op: 'setPermissions',
      answer: PERMISSIONS_ANSWER,
      summary: 'Add, replace or revoke groups of permission entries.',
      admin: true,
      input: setPermissionsInput,
      call: async (caller, values) => permissionsBody(await users.changePermissions(caller, asInput(values))),
    },
  ];
}
