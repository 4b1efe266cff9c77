import { DONE_ANSWER } from '../answer-schemas.js';
import { TOKEN_ANSWER } from '../user-views.js';
import { asInput } from '../wire-values.js';
import { command, type UserOperation, type UserWire } from '../user-wire.js';

/** Sign-in by a mailed code or link (users/signin-methods/mail-code/). */
export function mailCodeOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'signinMail',
      answer: DONE_ANSWER,
      summary: 'Sign-in by mail: mails a one-time code and link; answers the same whether or not the account exists.',
      limited: true,
      input: i.identity,
      call: command(users.signinMail),
    },
    {
      op: 'signinMail2',
      answer: TOKEN_ANSWER,
      summary: 'A token for the mailed link token, or for the identity with the mailed code.',
      signin: true,
      input: i.mailedSignin,
      call: async (caller, values) => ({ result: true, ...(await users.signinMail2(caller, asInput(values))) }),
    },
  ];
}
