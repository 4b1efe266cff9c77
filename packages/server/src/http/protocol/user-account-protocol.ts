import type { Caller, SignupPolicy } from '../../users/index.js';
import type { WireValues } from './wire-values.js';
import { ALLOWED_ANSWER, answerOf, DONE_ANSWER, SCALARS } from './answer-schemas.js';
import { allowedBody } from './permission-answers.js';
import { allowedInput } from '../../core/validation.js';
import { asInput } from './wire-values.js';
import { command, done, DONE, type UserOperation, type UserWire } from './user-wire.js';
import { identityView, profileView, IDENTITY_ANSWER, PROFILE_ANSWER } from './user-views.js';

/** A sign-up by one of the five policies: signupUid's name is made by Roost, the caller learns it here only. */
const signup = (users: UserWire['users'], policy: SignupPolicy) => async (caller: Caller, values: WireValues) => {
  const user = await users.signup(caller, policy, asInput(values));
  return policy === 'signupUid' ? { result: true, name: user.name } : DONE;
};

/** The own account: who it is, sign-up, changes, mails, its end (users/account-ops.ts, signup-ops.ts). */
export function accountOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'signout',
      answer: DONE_ANSWER,
      summary: 'Revoke the token of this request and clear the cookie.',
      call: (caller) => done(users.signout(caller)),
      after: wire.clearCookie,
    },
    {
      op: 'identity',
      answer: IDENTITY_ANSWER,
      summary: 'The signed-in user: name, realname, email, id (and `reference`).',
      read: true,
      call: async (caller) => identityView(await users.identity(caller)),
    },
    {
      op: 'name',
      answer: answerOf({ name: SCALARS.string, realname: SCALARS.string }),
      summary: 'Name (or email, by the identity policy) and realname.',
      read: true,
      call: (caller) => users.name(caller),
    },
    {
      op: 'profile',
      answer: PROFILE_ANSWER,
      summary: 'The profile of the signed-in user.',
      read: true,
      call: async (caller) => profileView(await users.profile(caller)),
    },
    {
      op: 'authenticated',
      answer: answerOf({ result: SCALARS.boolean }),
      summary: 'Signed in (and, with `groups`, member of one of them)?',
      read: true,
      input: i.authenticated,
      call: async (caller, values) => ({ result: await users.authenticated(caller, asInput(values)) }),
    },
    {
      op: 'allowed',
      answer: ALLOWED_ANSWER,
      summary: 'Does the caller hold these permissions?',
      read: true,
      input: allowedInput,
      call: async (caller, values) => allowedBody(await users.allowed(caller, asInput(values))),
    },
    {
      op: 'signupDirect',
      answer: DONE_ANSWER,
      summary: 'Sign up: active at once.',
      limited: true,
      input: i.signup,
      call: signup(users, 'signupDirect'),
    },
    {
      op: 'signupOptin',
      answer: DONE_ANSWER,
      summary: 'Sign up: pending until the mailed activation token is used.',
      limited: true,
      input: i.signup,
      call: signup(users, 'signupOptin'),
    },
    {
      op: 'signupReview',
      answer: DONE_ANSWER,
      summary: 'Sign up: pending until an administrator reviews it.',
      limited: true,
      input: i.signup,
      call: signup(users, 'signupReview'),
    },
    {
      op: 'signupSendpw',
      answer: DONE_ANSWER,
      summary: 'Sign up: active, with a generated password sent by mail.',
      limited: true,
      input: i.signupSendpw,
      call: signup(users, 'signupSendpw'),
    },
    {
      op: 'signupUid',
      answer: answerOf({ result: { const: true }, name: SCALARS.string }),
      summary: 'Sign up: active, with a generated 30-character name returned as `name`.',
      limited: true,
      input: i.signupUid,
      call: signup(users, 'signupUid'),
    },
    {
      op: 'activate',
      answer: DONE_ANSWER,
      summary: 'Activate a pending account with its mailed token.',
      limited: true,
      input: i.token,
      call: command(users.activate),
    },
    {
      op: 'update',
      answer: DONE_ANSWER,
      summary: 'Change realname, notify or data.',
      input: i.update,
      call: command(users.update),
    },
    {
      op: 'updatePassword',
      answer: DONE_ANSWER,
      summary: 'Change the password (needs the current one).',
      input: i.updatePassword,
      call: command(users.updatePassword),
    },
    {
      op: 'updateEmail',
      answer: DONE_ANSWER,
      aliases: ['updateMail'],
      summary: 'Change the email at once, without verification (permission-guarded).',
      input: i.email,
      call: command(users.updateEmail),
    },
    {
      op: 'verifyEmail',
      answer: DONE_ANSWER,
      summary: 'Mail a verification token to a new address.',
      input: i.email,
      call: command(users.verifyEmail),
    },
    {
      op: 'verifyEmail2',
      answer: DONE_ANSWER,
      summary: 'Take the new address with its verification token.',
      limited: true,
      input: i.token,
      call: command(users.verifyEmail2),
    },
    {
      op: 'resetPassword',
      answer: DONE_ANSWER,
      summary: 'Mail a reset token; answers the same whether or not the account exists.',
      limited: true,
      input: i.identity,
      call: command(users.resetPassword),
    },
    {
      op: 'resetPassword2',
      answer: DONE_ANSWER,
      summary: 'Set a new password with the reset token.',
      limited: true,
      input: i.resetPassword2,
      call: command(users.resetPassword2),
    },
    {
      op: 'message',
      answer: DONE_ANSWER,
      summary: 'Mail a message (at most 5000 characters) to the administrator.',
      input: i.message,
      call: command(users.message),
    },
    {
      op: 'disable',
      answer: DONE_ANSWER,
      summary: 'Disable the own account and sign out.',
      del: true,
      call: (caller) => done(users.disable(caller)),
      after: wire.clearCookie,
    },
    {
      op: 'delete',
      answer: DONE_ANSWER,
      summary: 'Remove the own account for good.',
      del: true,
      call: (caller) => done(users.delete(caller)),
      after: wire.clearCookie,
    },
  ];
}
