import { DONE_ANSWER } from './answer-schemas.js';
import { SESSIONS_ANSWER } from './user-views.js';
import { command, done, type UserOperation, type UserWire } from './user-wire.js';

/** The own sessions (users/session-ops.ts). */
export function sessionOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'sessions',
      answer: SESSIONS_ANSWER,
      summary: 'The own sessions: method, device, address, created, last used, and which is this one.',
      read: true,
      call: async (caller) => ({ result: true, sessions: await users.sessions(caller) }),
    },
    {
      op: 'revokeSession',
      answer: DONE_ANSWER,
      summary: 'End one of the own sessions by its id.',
      input: i.sessionRef,
      call: command(users.revokeSession),
    },
    {
      op: 'revokeOtherSessions',
      answer: DONE_ANSWER,
      summary: 'End every own session but this one.',
      call: (caller) => done(users.revokeOtherSessions(caller)),
    },
  ];
}
