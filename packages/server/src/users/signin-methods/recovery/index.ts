import type { ZodType } from 'zod';
import { AUTHENTICATED } from '../../../core/permissions.js';
import { requiredText } from '../../../core/validation.js';
import type { SigninMethod } from '../../signin-method.js';
import { matchRecoveryCode } from './recovery-codes.js';
import { recoveryOps, replaceCodes, type RecoveryOps } from './recovery-ops.js';
import { createRecoveryRepo } from './recovery-repo.js';

/**
 * Recovery codes as one sign-in method (docs/users.md, "Second factor"; recovery-codes.ts tells
 * how they are made and kept): the table `recovery_codes` behind recovery-repo.ts, one operation
 * (`recoveryCodes`), sessions labelled `recovery`, and a second step offered beside a demanded
 * factor (`recoveryCode` in `token2`). Ten new codes come with every confirmed factor
 * (`factorConfirmed`), and go with its removal or reset.
 */
export const recoveryMethod: SigninMethod<
  RecoveryOps,
  'recovery',
  { recoveryCodes: number },
  Record<never, ZodType>
> = {
  id: 'recovery',
  sessionLabels: { recovery: 'Password and recovery code' },
  figures: { recoveryCodes: { label: 'Recovery codes left', description: 'Recovery codes left.', leads: true } },
  inputs: {},
  errors: { codes: {} },
  permissions: { recoveryCodes: [AUTHENTICATED] },
  secondStepInput: { recoveryCode: requiredText(40) },
  create(ctx, { db }) {
    const repo = createRecoveryRepo(db);
    return {
      ops: recoveryOps(ctx, repo),
      hooks: {
        id: 'recovery',
        secondStep: {
          field: 'recoveryCode',
          label: 'recovery',
          has: async (user) => (await repo.left(user.id)) > 0,
          async verify(user, typed) {
            if (typeof typed !== 'string') return false;
            const hash = await matchRecoveryCode(ctx.passwords, await repo.hashes(user.id), typed);
            return hash !== null && (await repo.take(user.id, hash));
          },
        },
        factorConfirmed: async (user) => ({ recoveryCodes: await replaceCodes(ctx, repo, user.id) }),
        resetFactor: (user) => repo.remove(user.id),
        figures: async (user) => ({ recoveryCodes: await repo.left(user.id) }),
      },
    };
  },
};
