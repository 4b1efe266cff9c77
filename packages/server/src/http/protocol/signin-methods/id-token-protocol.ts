import { TOKEN_ANSWER } from '../user-views.js';
import { asInput } from '../wire-values.js';
import type { UserOperation, UserWire } from '../user-wire.js';

/** Sign-in with an app's ID token (users/signin-methods/id-token/). */
export function idTokenOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'signinIdToken',
      answer: TOKEN_ANSWER,
      summary:
        'A token for an ID token an app got on the device from a configured provider (`provider`, `idToken`, ' +
        "the app's `nonce`): signature, issuer, audience, expiry and nonce checked; each token once.",
      signin: true,
      input: i.idTokenSignin,
      call: async (caller, values) => ({ result: true, ...(await users.signinIdToken(caller, asInput(values))) }),
    },
  ];
}
