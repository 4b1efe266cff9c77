import { AUTHENTICATED, EVERYONE } from '../../../core/permissions.js';
import type { User } from '../../user-repo.js';
import { createSecretBox } from '../../secret-box.js';
import type { SigninMethod } from '../../signin-method.js';
import { totpStep } from './totp.js';
import { totpCode, totpInputs } from './totp-inputs.js';
import { totpOps, type TotpOps } from './totp-ops.js';
import { createTotpRepo, type TotpRepo } from './totp-repo.js';

/** A code of the confirmed secret (or, `enrolling`, of the one being set up), each time step once. */
async function codeProves(repo: TotpRepo, user: User, code: unknown, now: number, enrolling = false) {
  const totp = await repo.of(user.id);
  if (!totp || typeof code !== 'string' || enrolling === (totp.confirmed !== null)) return false;
  const step = totpStep(totp.secret, code, now);
  return step !== null && (await repo.takeStep(user.id, step));
}

/**
 * An authenticator app (TOTP) as one sign-in method (docs/users.md, "Second factor";
 * totp-ops.ts tells how): the table `totp_factors` behind totp-repo.ts (the secret sealed with
 * `users.secretsKey`), three operations, sessions labelled `totp`, and the second step that
 * makes a second factor needed: the app's `code` in `token2`, set up during a sign-in when an
 * administrator requires a factor (the `enrol` challenge), and the `code` of a re-authentication.
 * Its error codes (`factor_exists`, `no_factor_pending`, `no_factor`) are the user service's own
 * (users/user-errors.ts): they came before the methods and keep their place in docs/errors.md.
 */
export const totpMethod: SigninMethod<TotpOps, 'totp', { totp: boolean }, typeof totpInputs> = {
  id: 'totp',
  sessionLabels: { totp: 'Password and app code' },
  figures: {
    totp: { label: 'Authenticator app', description: 'A confirmed authenticator app.', flag: true, leads: true },
  },
  inputs: totpInputs,
  errors: { codes: {} },
  permissions: { totpEnrol: [EVERYONE], totpConfirm: [AUTHENTICATED], totpRemove: [AUTHENTICATED] },
  secondStepInput: { code: totpCode },
  create(ctx, { db, config }) {
    const repo = createTotpRepo(db, createSecretBox(config.users.secretsKey));
    const now = () => ctx.clock.now();
    return {
      ops: totpOps(ctx, repo),
      hooks: {
        id: 'totp',
        secondStep: {
          field: 'code',
          label: 'totp',
          demanded: true,
          has: async (user) => (await repo.of(user.id))?.confirmed != null,
          verify: (user, code, enrolling) => codeProves(repo, user, code, now(), enrolling),
          enrol: (user) => repo.confirm(user.id, now()),
        },
        reauthentication: { field: 'code', verify: (user, code) => codeProves(repo, user, code, now()) },
        resetFactor: (user) => repo.remove(user.id),
        figures: async (user) => ({ totp: (await repo.of(user.id))?.confirmed != null }),
      },
    };
  },
};
