import { hasDemandedFactor } from '../../signin-challenge.js';
import { userErrors } from '../../user-errors.js';
import { reauthenticate, requireUser, type Caller, type UserContext } from '../../user-context.js';
import type { Reauthentication } from '../../user-inputs.js';
import { hashRecoveryCodes, newRecoveryCodes } from './recovery-codes.js';
import type { RecoveryRepo } from './recovery-repo.js';

export type RecoveryOps = {
  recoveryCodes(caller: Caller, input: Reauthentication): Promise<{ recoveryCodes: string[] }>;
};

/** New codes for the account in place of the old ones: answered this once, kept as hashes. */
export async function replaceCodes(ctx: UserContext, repo: RecoveryRepo, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await repo.replace(userId, ctx.clock.now(), await hashRecoveryCodes(ctx.passwords, codes));
  return codes;
}

/** The own recovery codes: made anew (the password or a code again) while a demanded factor stands. */
export function recoveryOps(ctx: UserContext, repo: RecoveryRepo): RecoveryOps {
  return {
    async recoveryCodes(caller, input) {
      const user = requireUser(caller);
      if (!(await hasDemandedFactor(ctx, user))) throw userErrors.no_factor();
      await reauthenticate(ctx, user, input);
      return { recoveryCodes: await replaceCodes(ctx, repo, user.id) };
    },
  };
}
