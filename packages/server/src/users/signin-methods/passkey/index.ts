import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { AUTHENTICATED, EVERYONE } from '../../../core/permissions.js';
import { isRoostError } from '../../../core/errors.js';
import type { SigninMethod } from '../../signin-method.js';
import { verifiedAssertion } from './passkey-assertion.js';
import { passkeySettings, type PasskeyEnv } from './passkey-env.js';
import { passkeyErrors } from './passkey-errors.js';
import { passkeyInputs, webauthnResponse } from './passkey-inputs.js';
import { passkeyOps, type PasskeyOps } from './passkey-ops.js';
import { createPasskeyRepo } from './passkey-repo.js';

/**
 * Passkeys as one sign-in method (docs/users.md, "Passkeys"; passkey-ops.ts tells how): the
 * tables `passkeys` and `passkey_challenges` (migration storage/migrations/2026-11-28-02-passkeys.ts)
 * behind passkey-repo.ts, eight operations, sessions labelled `passkey`, and a second step: an
 * account with a passkey may answer a sign-in's challenge with one (`passkey` in `token2`), and
 * needs no authenticator app to be enrolled.
 */
export const passkeyMethod: SigninMethod<PasskeyOps, 'passkey', { passkeys: number }, typeof passkeyInputs> = {
  id: 'passkey',
  sessionLabels: { passkey: 'A passkey' },
  figures: { passkeys: { label: 'Passkeys', description: 'How many passkeys the account has.' } },
  inputs: passkeyInputs,
  errors: passkeyErrors,
  permissions: {
    passkeyOptions: [AUTHENTICATED],
    passkeyRegister: [AUTHENTICATED],
    passkeys: [AUTHENTICATED],
    renamePasskey: [AUTHENTICATED],
    removePasskey: [AUTHENTICATED],
    passkeySigninOptions: [EVERYONE],
    passkeyToken: [EVERYONE],
    passkeySignin: [EVERYONE],
  },
  secondStepInput: { passkey: webauthnResponse },
  create(ctx, { db, config }) {
    const env: PasskeyEnv = { repo: createPasskeyRepo(db), settings: passkeySettings(config) };
    return {
      ops: passkeyOps(ctx, env),
      hooks: {
        id: 'passkey',
        secondStep: {
          field: 'passkey',
          label: 'passkey',
          // A passkey is a second factor too: an account with one needs no enrolment.
          has: async (user) => (await env.repo.of(user.id)).length > 0,
          async verify(user, answer) {
            try {
              await verifiedAssertion(ctx, env, answer as AuthenticationResponseJSON, user.id);
              return true;
            } catch (err) {
              if (isRoostError(err) && err.code === 'invalid_passkey') return false;
              throw err;
            }
          },
        },
        figures: async (user) => ({ passkeys: (await env.repo.of(user.id)).length }),
        purgeExpired: (now) => env.repo.purgeExpired(now),
      },
    };
  },
};
