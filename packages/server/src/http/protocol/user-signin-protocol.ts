import { DONE, type UserOperation, type UserWire } from './user-wire.js';
import { TOKEN_ANSWER, RECOVERY_CODES } from './user-views.js';
import { answerOf, DONE_ANSWER, ONE_ANSWER, SCALARS } from './answer-schemas.js';
import { asInput } from './wire-values.js';
import { setTrustedDeviceCookie, startCookieSession } from '../auth.js';
import type { CompletedSignin } from '../../users/index.js';

/** The password sign-in and its second step (users/signin-challenge.ts), and `ping`. */
export function signinOperations(wire: UserWire): UserOperation[] {
  const { users } = wire;
  const i = users.inputs;
  return [
    {
      op: 'ping',
      answer: ONE_ANSWER,
      summary: 'Health check: answers `result: 1`.',
      read: true,
      call: async (caller) => {
        await users.ping(caller);
        return { result: 1 };
      },
    },
    {
      op: 'challenge',
      answer: answerOf({
        result: { const: true },
        required: SCALARS.boolean,
        parameters: { type: 'object' },
        signature: SCALARS.string,
      }),
      summary:
        'A proof-of-work challenge (ALTCHA), and whether sign-ups, sign-ins and resets ask for it now ' +
        '(`users.proofOfWork`): send the solution as `X-Roost-Proof` or the form field `altcha`.',
      read: true,
      call: async (caller) => {
        const { challenge, required } = await users.proofChallenge(caller);
        return { result: true, required, ...challenge };
      },
    },
    {
      op: 'token',
      answer: TOKEN_ANSWER,
      summary: 'Exchange identity and password for a token (send it as `x-auth-token` or `Authorization: Bearer`).',
      signin: true,
      input: i.credentials,
      call: async (caller, values) => ({ result: true, ...(await users.token(caller, asInput(values))) }),
    },
    {
      op: 'signin',
      answer: DONE_ANSWER,
      sameOrigin: true,
      summary: 'Sign in: sets the HttpOnly cookie `auth`.',
      signin: true,
      input: i.credentials,
      call: async (caller, values) => users.signin(caller, asInput(values)),
      after: wire.intoCookie,
    },
    {
      op: 'token2',
      // Recovery codes only when the step confirmed a new factor; the device's token only when it was trusted.
      answer: answerOf(
        { result: { const: true }, token: SCALARS.string, expires: SCALARS.integer },
        {
          properties: {
            result: { const: true },
            token: SCALARS.string,
            expires: SCALARS.integer,
            recoveryCodes: RECOVERY_CODES,
            deviceToken: {
              ...SCALARS.string,
              description: 'With `trustDevice`: send it as `X-Roost-Trusted-Device` to skip the second factor.',
            },
            deviceExpires: SCALARS.integer,
          },
        },
      ),
      summary:
        'Second step of token when it asked for a second factor: the challenge with a TOTP code or a recovery code.',
      signin: true,
      input: i.secondStep,
      call: async (caller, values) => ({ result: true, ...(await users.token2(caller, asInput(values))) }),
    },
    {
      op: 'signin2',
      answer: answerOf({ result: { const: true }, recoveryCodes: RECOVERY_CODES }),
      sameOrigin: true,
      summary: 'Second step of signin: the challenge with a TOTP code or a recovery code; sets the cookie.',
      signin: true,
      input: i.secondStep,
      call: async (caller, values) => users.signin2(caller, asInput(values)),
      async after(request, reply, answer) {
        const { token, recoveryCodes, deviceToken } = answer as CompletedSignin;
        await startCookieSession(request, reply, users, token, wire.config.users.tokenLifetimeSeconds);
        // A trusted device's token stays in an HttpOnly cookie, as the session's does.
        if (deviceToken) setTrustedDeviceCookie(request, reply, deviceToken, wire.config.users.trustedDeviceDays);
        return recoveryCodes ? { ...DONE, recoveryCodes } : DONE;
      },
    },
  ];
}
