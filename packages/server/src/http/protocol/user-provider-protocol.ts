import { answerOf, DONE_ANSWER, SCALARS } from './answer-schemas.js';
import { TOKEN_ANSWER } from './user-views.js';
import { asInput } from './wire-values.js';
import { command, type UserOperation, type UserWire } from './user-wire.js';

const PROVIDERS_ANSWER = answerOf({
  result: { const: true },
  providers: {
    type: 'array',
    items: answerOf({ id: SCALARS.string, label: { ...SCALARS.string, description: 'Sign in with this.' } }),
  },
});
const LINKS_ANSWER = answerOf({
  result: { const: true },
  providers: {
    type: 'array',
    items: answerOf({
      provider: SCALARS.string,
      label: SCALARS.string,
      email: { ...SCALARS.string, description: 'The email the provider gave when it was linked.' },
      created: SCALARS.integer,
    }),
  },
});

/** Sign-in providers and their links to accounts (users/provider-ops.ts). */
export function providerOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'providers',
      answer: PROVIDERS_ANSWER,
      summary:
        'The enabled sign-in providers. A browser signs in with one at /users/providers/ID/start?redirect=ADDRESS.',
      read: true,
      call: async (caller) => ({ result: true, providers: await users.providers(caller) }),
    },
    {
      op: 'signinProvider2',
      answer: TOKEN_ANSWER,
      summary: 'A token for the one-time grant a provider sign-in handed to the app in its address.',
      signin: true,
      input: i.providerGrant,
      call: async (caller, values) => ({ result: true, ...(await users.signinProvider2(caller, asInput(values))) }),
    },
    {
      op: 'providerLinks',
      answer: LINKS_ANSWER,
      summary: 'The sign-in providers linked to the own account (link one on the account page).',
      read: true,
      call: async (caller) => ({ result: true, providers: await users.providerLinks(caller) }),
    },
    {
      op: 'unlinkProvider',
      answer: DONE_ANSWER,
      summary: 'Unlink a sign-in provider from the own account (the password or a current code again).',
      del: true,
      input: i.providerUnlink,
      call: command(users.unlinkProvider),
    },
  ];
}
