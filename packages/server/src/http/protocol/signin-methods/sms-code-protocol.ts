import { RECOVERY_CODES, TOKEN_ANSWER } from '../user-views.js';
import { answerOf, DONE_ANSWER, SCALARS } from '../answer-schemas.js';
import { asInput } from '../wire-values.js';
import { command, type UserOperation, type UserWire } from '../user-wire.js';

const EXPIRES = { ...SCALARS.integer, description: 'When the code stops working, in milliseconds since the epoch.' };
const DELIVERY = {
  enum: ['sent', 'retrying', 'failed'],
  description:
    '`sent`: the gateway took the text; `retrying`: it failed, and the text is tried again (job queue); ' +
    '`failed`: it failed with no try left.',
};
const NUMBER = { ...SCALARS.string, description: 'A phone number in E.164 (+491701234567).' };
const OR_NULL = { anyOf: [NUMBER, { type: 'null' }] };

/** Codes by SMS (users/signin-methods/sms-code/): adding a phone, a sign-in by number, a second step. */
export function smsCodeOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'smsAdd',
      answer: answerOf({ result: { const: true }, phone: NUMBER, expires: EXPIRES, delivery: DELIVERY }),
      summary: 'Sends a code to a phone number being added to the own account (the password again).',
      limited: true,
      input: i.smsAdd,
      call: async (caller, values) => ({ result: true, ...(await users.smsAdd(caller, asInput(values))) }),
    },
    {
      op: 'smsConfirm',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      summary: 'Confirms the phone number being added with its code; answers new recovery codes.',
      input: i.smsConfirm,
      call: async (caller, values) => ({ result: true, ...(await users.smsConfirm(caller, asInput(values))) }),
    },
    {
      op: 'smsRemove',
      answer: DONE_ANSWER,
      summary: "Removes the own account's phone number (the password or a current app code again).",
      del: true,
      input: i.reauthentication,
      call: command(users.smsRemove),
    },
    {
      op: 'smsPhone',
      answer: answerOf({ result: { const: true }, phone: OR_NULL, pending: OR_NULL }),
      summary: "The own account's confirmed phone number and the one being added.",
      read: true,
      call: async (caller) => ({ result: true, ...(await users.smsPhone(caller, {})) }),
    },
    {
      op: 'smsSignin',
      answer: DONE_ANSWER,
      summary:
        'Sign-in by SMS: a code to the account of a confirmed number (off until smsSignin is granted); ' +
        'answers the same whether or not an account has the number.',
      limited: true,
      input: i.smsSignin,
      call: command(users.smsSignin),
    },
    {
      op: 'smsSignin2',
      answer: TOKEN_ANSWER,
      summary: 'A token for the phone number with the code it was sent.',
      signin: true,
      input: i.smsSignin2,
      call: async (caller, values) => ({ result: true, ...(await users.smsSignin2(caller, asInput(values))) }),
    },
    {
      op: 'smsChallenge',
      answer: answerOf({ result: { const: true }, expires: EXPIRES, delivery: DELIVERY }),
      summary: "Sends a second step's code to the challenged account's phone (then token2 with smsCode).",
      limited: true,
      input: i.smsChallenge,
      call: async (caller, values) => ({ result: true, ...(await users.smsChallenge(caller, asInput(values))) }),
    },
  ];
}
