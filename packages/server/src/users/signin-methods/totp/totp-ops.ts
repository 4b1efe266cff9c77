import { invalidField, parseInput } from '../../../core/validation.js';
import { challengedUser, factorConfirmed, removeSecondFactor } from '../../signin-challenge.js';
import { userErrors } from '../../user-errors.js';
import { confirmPassword, reauthenticate, requireUser, type Caller, type UserContext } from '../../user-context.js';
import type { Reauthentication } from '../../user-inputs.js';
import { newTotpSecret, totpQrSvg, totpStep, totpUri } from './totp.js';
import { totpInputs, type FactorConfirmation, type TotpEnrolment } from './totp-inputs.js';
import type { TotpRepo } from './totp-repo.js';

/** A new TOTP secret: the link for a QR code, the QR code itself, and the key to type by hand. */
export interface TotpSetup {
  secret: string;
  uri: string;
  qrSvg: string;
}

export type TotpOps = {
  totpEnrol(caller: Caller, input: TotpEnrolment): Promise<TotpSetup>;
  totpConfirm(caller: Caller, input: FactorConfirmation): Promise<{ recoveryCodes: string[] }>;
  totpRemove(caller: Caller, input: Reauthentication): Promise<void>;
};

/**
 * The authenticator app of the own account (signin-challenge.ts has the sign-in that checks it):
 * set up a secret, confirm it with a first code (which answers the recovery codes of
 * signin-methods/recovery/), remove it. Removing a confirmed one asks for the password or a
 * current code again (`reauthenticate`, users/user-context.ts), so a session left open is not
 * enough to take it over.
 */
export function totpOps(ctx: UserContext, repo: TotpRepo): TotpOps {
  const { clock } = ctx;
  return {
    /**
     * A new TOTP secret for the signed-in account, or, with the `enrol` challenge of a sign-in,
     * for the account that must set one up. A confirmed secret is not replaced: remove it first.
     */
    async totpEnrol(caller, input) {
      const { challenge } = parseInput(totpInputs.totpEnrol, input);
      let user = caller.user;
      if (challenge !== undefined) {
        const found = await challengedUser(ctx, challenge);
        if (found?.kind !== 'enrol') throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
        user = found.user;
      }
      user = requireUser({ ...caller, user });
      if ((await repo.of(user.id))?.confirmed != null) throw userErrors.factor_exists();
      const secret = newTotpSecret();
      await repo.put(user.id, secret, clock.now());
      const account = user.email ?? user.name;
      const uri = totpUri(secret, ctx.settings.totpIssuer, account);
      return { secret, uri, qrSvg: await totpQrSvg(uri) };
    },

    /**
     * Confirms the secret being set up with a first code and the password (a session left open
     * must not be enough to bind an attacker's phone); answers the recovery codes, shown this once.
     */
    async totpConfirm(caller, input) {
      const user = requireUser(caller);
      const { code, password } = parseInput(totpInputs.totpConfirm, input);
      const totp = await repo.of(user.id);
      if (!totp || totp.confirmed !== null) throw userErrors.no_factor_pending();
      await confirmPassword(ctx, user, password);
      const step = totpStep(totp.secret, code, clock.now());
      if (step === null || !(await repo.takeStep(user.id, step))) throw invalidField('code', 'invalid');
      await repo.confirm(user.id, clock.now());
      return { recoveryCodes: (await factorConfirmed(ctx, user)).recoveryCodes ?? [] };
    },

    /** Removes the authenticator and with it the second factor (the recovery codes; password or code again). */
    async totpRemove(caller, input) {
      const user = requireUser(caller);
      const totp = await repo.of(user.id);
      if (!totp) throw userErrors.no_factor();
      if (totp.confirmed !== null) await reauthenticate(ctx, user, input);
      await removeSecondFactor(ctx, user);
    },
  };
}
