import { AUTHENTICATED, EVERYONE, NOONE } from '../../../core/permissions.js';
import type { SigninMethod } from '../../signin-method.js';
import { smsCode, smsCodeInputs } from './sms-code-inputs.js';
import { smsCodeOps, type SmsCodeOps } from './sms-code-ops.js';
import { createSmsRepo } from './sms-code-repo.js';
import { takeCode, type SmsEnv } from './sms-codes.js';
import { smsErrors } from './sms-errors.js';

/**
 * Codes by SMS as one sign-in method (docs/users.md, "Codes by SMS"; sms-code-ops.ts tells how):
 * the tables `sms_phones` and `sms_codes` behind sms-code-repo.ts, seven operations, sessions
 * labelled `sms` (a first factor) and `smsStep` (a second step), and the second step a confirmed
 * phone demands: the code `smsChallenge` sent, as `smsCode` in `token2`. The texts go through
 * the `SmsQueue` the service is handed (core/sms.ts; sms/: the HTTP sender on the job queue);
 * without `users.sms.sender` every operation that sends answers `sms_unavailable`.
 */
export const smsCodeMethod: SigninMethod<SmsCodeOps, 'sms' | 'smsStep', { sms: boolean }, typeof smsCodeInputs> = {
  id: 'sms-code',
  sessionLabels: { sms: 'Code by SMS', smsStep: 'Password and code by SMS' },
  figures: { sms: { label: 'Phone for codes by SMS', description: 'A confirmed phone number.', flag: true } },
  inputs: smsCodeInputs,
  errors: smsErrors,
  permissions: {
    smsAdd: [AUTHENTICATED],
    smsConfirm: [AUTHENTICATED],
    smsRemove: [AUTHENTICATED],
    smsPhone: [AUTHENTICATED],
    smsSignin: [NOONE],
    smsSignin2: [EVERYONE],
    smsChallenge: [EVERYONE],
  },
  secondStepInput: { smsCode },
  create(ctx, { db, config, sms }) {
    const s = config.users.sms;
    const env: SmsEnv = {
      repo: createSmsRepo(db),
      sms,
      settings: {
        lifetimeMs: s.codeLifetimeSeconds * 1000,
        maxTries: s.maxTries,
        resendMs: s.resendSeconds * 1000,
        windowMs: s.windowSeconds * 1000,
        perNumber: s.perNumber,
        perAccount: s.perAccount,
        perAddress: s.perAddress,
        text: s.text,
      },
    };
    const confirmedPhone = async (userId: string) => (await env.repo.phoneOf(userId))?.phone ?? null;
    return {
      ops: smsCodeOps(ctx, env, { countries: s.countries, defaultCountry: s.defaultCountry }),
      hooks: {
        id: 'sms-code',
        secondStep: {
          field: 'smsCode',
          label: 'smsStep',
          demanded: true,
          has: async (user) => (await confirmedPhone(user.id)) !== null,
          async verify(user, answer) {
            const phone = await confirmedPhone(user.id);
            return typeof answer === 'string' && phone !== null && takeCode(ctx, env, user.id, 'step', answer, phone);
          },
        },
        resetFactor: (user) => env.repo.remove(user.id),
        figures: async (user) => ({ sms: (await confirmedPhone(user.id)) !== null }),
        purgeExpired: (now) => env.repo.purgeExpired(now),
      },
    };
  },
};
