import { invalidField, parseInput } from '../core/validation.js';
import { hashRecoveryCodes, newRecoveryCodes } from './recovery-codes.js';
import { challengedUser, confirmTotp, factorRequired } from './signin-challenge.js';
import { newTotpSecret, totpQrSvg, totpStep, totpUri } from './totp.js';
import { userErrors } from './user-errors.js';
import {
  confirmPassword,
  namedAccount,
  reauthenticate,
  requireUser,
  type Caller,
  type UserContext,
} from './user-context.js';
import type { FactorConfirmation, IdentityInput, Reauthentication, TotpEnrolment } from './user-inputs.js';
import type { User } from './user-repo.js';
import type { MethodFigures } from './signin-methods/index.js';

/** What an account has of the second factor (`secondFactor`, `userFactors`), and the methods' figures. */
export interface FactorState extends MethodFigures {
  /** A confirmed TOTP secret. */
  totp: boolean;
  recoveryCodes: number;
  /** An administrator requires a factor of the account (runtime setting `secondFactorGroups`). */
  required: boolean;
  /** The sign-in providers linked to the account, by id (provider-ops.ts). */
  providers: string[];
}

/** A new TOTP secret: the link for a QR code, the QR code itself, and the key to type by hand. */
export interface TotpSetup {
  secret: string;
  uri: string;
  qrSvg: string;
}

/**
 * The second factor of the own account (signin-challenge.ts has the sign-in that checks it):
 * set up a TOTP secret, confirm it with a first code (which answers the recovery codes), make
 * the recovery codes anew, remove the factor. Changing or removing a confirmed factor asks for
 * the password or a current code again (`reauthenticate`, user-context.ts), so a session left
 * open is not enough to take it over.
 */
export function secondFactorOps(ctx: UserContext) {
  const { factors, clock } = ctx;

  async function stateOf(user: User): Promise<FactorState> {
    const totp = await factors.totpOf(user.id);
    // The methods' figures (a count of passkeys) follow, so the answer keeps its order of members.
    const state: FactorState = Object.assign(
      {
        totp: totp?.confirmed != null,
        recoveryCodes: await factors.recoveryCodesLeft(user.id),
        required: await factorRequired(ctx, user),
        providers: (await ctx.links.linksOf(user.id)).map((l) => l.provider),
      },
      ...(await Promise.all(ctx.methods.map((m) => m.figures(user)))),
    );
    return state;
  }

  return {
    secondFactor: async (caller: Caller): Promise<FactorState> => stateOf(requireUser(caller)),

    /**
     * A new TOTP secret for the signed-in account, or, with the `enrol` challenge of a sign-in,
     * for the account that must set one up. A confirmed secret is not replaced: remove it first.
     */
    async totpEnrol(caller: Caller, input: TotpEnrolment): Promise<TotpSetup> {
      const { challenge } = parseInput(ctx.inputs.totpEnrol, input);
      let user = caller.user;
      if (challenge !== undefined) {
        const found = await challengedUser(ctx, challenge);
        if (found?.kind !== 'enrol') throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
        user = found.user;
      }
      user = requireUser({ ...caller, user });
      if ((await factors.totpOf(user.id))?.confirmed != null) throw userErrors.factor_exists();
      const secret = newTotpSecret();
      await factors.putTotp(user.id, secret, clock.now());
      const account = user.email ?? user.name;
      const uri = totpUri(secret, ctx.settings.totpIssuer, account);
      return { secret, uri, qrSvg: await totpQrSvg(uri) };
    },

    /**
     * Confirms the secret being set up with a first code and the password (a session left open
     * must not be enough to bind an attacker's phone); answers the recovery codes, shown this once.
     */
    async totpConfirm(caller: Caller, input: FactorConfirmation): Promise<{ recoveryCodes: string[] }> {
      const user = requireUser(caller);
      const { code, password } = parseInput(ctx.inputs.totpConfirm, input);
      const totp = await factors.totpOf(user.id);
      if (!totp || totp.confirmed !== null) throw userErrors.no_factor_pending();
      await confirmPassword(user, password);
      const step = totpStep(totp.secret, code, clock.now());
      if (step === null || !(await factors.takeTotpStep(user.id, step))) throw invalidField('code', 'invalid');
      return { recoveryCodes: await confirmTotp(ctx, user) };
    },

    /** New recovery codes in place of the old ones (password or code again). */
    async recoveryCodes(caller: Caller, input: Reauthentication): Promise<{ recoveryCodes: string[] }> {
      const user = requireUser(caller);
      if ((await factors.totpOf(user.id))?.confirmed == null) throw userErrors.no_factor();
      await reauthenticate(ctx, user, input);
      const codes = newRecoveryCodes();
      await factors.replaceRecoveryCodes(user.id, clock.now(), await hashRecoveryCodes(codes));
      return { recoveryCodes: codes };
    },

    /** Removes the TOTP secret and the recovery codes (password or code again). */
    async totpRemove(caller: Caller, input: Reauthentication): Promise<void> {
      const user = requireUser(caller);
      const totp = await factors.totpOf(user.id);
      if (!totp) throw userErrors.no_factor();
      if (totp.confirmed !== null) await reauthenticate(ctx, user, input);
      await factors.removeFactors(user.id);
    },

    /** For administrators: an account's second factor. */
    async userFactors(_caller: Caller, input: IdentityInput): Promise<FactorState> {
      return stateOf(await adminTarget(ctx, input));
    },

    /** For administrators: removes an account's second factor (a lost phone); its sessions stay. */
    async resetSecondFactor(_caller: Caller, input: IdentityInput): Promise<void> {
      const user = await adminTarget(ctx, input);
      await factors.removeFactors(user.id);
    },
  };
}

/** The account an administrator names in `input` (name, email or id), or `unknown_user`. */
export async function adminTarget(ctx: UserContext, input: IdentityInput): Promise<User> {
  return namedAccount(ctx, parseInput(ctx.inputs.identity, input).identity);
}
