import { answerOf, DONE_ANSWER, SCALARS } from '../answer-schemas.js';
import { asInput } from '../wire-values.js';
import { command, type UserOperation, type UserWire } from '../user-wire.js';

/** Anonymous accounts (users/signin-methods/anonymous/): made without a form, upgraded in place. */
export function anonymousOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'signinAnonymous',
      answer: answerOf({
        result: { const: true },
        token: SCALARS.string,
        expires: { ...SCALARS.integer, description: 'Milliseconds since the epoch.' },
        id: { ...SCALARS.string, description: 'The new account: its user id, which stays after an upgrade.' },
        name: { ...SCALARS.string, description: 'Its generated name (anon-…).' },
      }),
      summary:
        'A new anonymous account and its session, without a form (off until signinAnonymous is granted); ' +
        'limited per client address and in number (users.anonymous).',
      // Counted per client address in the domain (anonymous-ops.ts): it needs the caller's address.
      signin: true,
      input: i.anonymousSignin,
      call: async (caller, values) => ({ result: true, ...(await users.signinAnonymous(caller, asInput(values))) }),
    },
    {
      op: 'upgradeAnonymous',
      answer: DONE_ANSWER,
      summary:
        "The caller's anonymous account becomes a full one with the same id: a name and a password " +
        '(an email, a real name, data as sign-up takes them).',
      input: i.signup,
      call: command(users.upgradeAnonymous),
    },
  ];
}
