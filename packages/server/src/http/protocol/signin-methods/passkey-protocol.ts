import { TOKEN_ANSWER } from '../user-views.js';
import { answerOf, DONE_ANSWER, SCALARS } from '../answer-schemas.js';
import { asInput } from '../wire-values.js';
import { command, type UserOperation, type UserWire } from '../user-wire.js';

const PASSKEY_VIEW = answerOf({
  id: { ...SCALARS.string, description: 'The credential id (base64url).' },
  name: SCALARS.string,
  created: SCALARS.integer,
  lastUsed: { ...SCALARS.integer, description: 'Milliseconds since the epoch; null before the first use.' },
});
const CEREMONY_ANSWER = answerOf({
  result: { const: true },
  options: {
    type: 'object',
    description: 'WebAuthn options as JSON, for startRegistration or startAuthentication of @simplewebauthn/browser.',
  },
});

/** Passkeys (users/signin-methods/passkey/): registering, listing, renaming, removing, signing in. */
export function passkeyOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'passkeyOptions',
      answer: CEREMONY_ANSWER,
      summary:
        'Options to register a new passkey of the signed-in account (navigator.credentials.create); ' +
        'the password or a current code again.',
      input: i.reauthentication,
      call: async (caller, values) => ({ result: true, options: await users.passkeyOptions(caller, asInput(values)) }),
    },
    {
      op: 'passkeyRegister',
      answer: answerOf({ result: { const: true }, passkey: PASSKEY_VIEW }),
      summary: "Register the browser's answer to passkeyOptions as a passkey, with an optional name.",
      input: i.passkeyRegistration,
      call: async (caller, values) => ({ result: true, passkey: await users.passkeyRegister(caller, asInput(values)) }),
    },
    {
      op: 'passkeys',
      answer: answerOf({ result: { const: true }, passkeys: { type: 'array', items: PASSKEY_VIEW } }),
      summary: 'The passkeys of the own account.',
      read: true,
      call: async (caller) => ({ result: true, passkeys: await users.passkeys(caller) }),
    },
    {
      op: 'renamePasskey',
      answer: DONE_ANSWER,
      summary: 'Give one of the own passkeys another name.',
      input: i.passkeyRename,
      call: command(users.renamePasskey),
    },
    {
      op: 'removePasskey',
      answer: DONE_ANSWER,
      summary: 'Remove one of the own passkeys (the password or a current code again).',
      del: true,
      input: i.passkeyRemoval,
      call: command(users.removePasskey),
    },
    {
      op: 'passkeySigninOptions',
      answer: CEREMONY_ANSWER,
      summary:
        'Options to sign in with a passkey, no name needed (navigator.credentials.get); with a challenge, for token2.',
      limited: true,
      input: i.passkeySigninStart,
      call: async (caller, values) => ({
        result: true,
        options: await users.passkeySigninOptions(caller, asInput(values)),
      }),
    },
    {
      op: 'passkeyToken',
      answer: TOKEN_ANSWER,
      summary: "A token for the browser's answer to passkeySigninOptions: the passkey names the account.",
      signin: true,
      input: i.passkeyAssertion,
      call: async (caller, values) => ({ result: true, ...(await users.passkeyToken(caller, asInput(values))) }),
    },
    {
      op: 'passkeySignin',
      answer: DONE_ANSWER,
      sameOrigin: true,
      summary: 'As passkeyToken, and sets the HttpOnly cookie auth.',
      signin: true,
      input: i.passkeyAssertion,
      call: async (caller, values) => users.passkeySignin(caller, asInput(values)),
      after: wire.intoCookie,
    },
  ];
}
