import { z } from 'zod';
import { AUTHENTICATED, NOONE } from '../../../core/permissions.js';
import type { SigninMethod } from '../../signin-method.js';
import { anonymousErrors } from './anonymous-errors.js';
import { anonymousOps, type AnonymousOps } from './anonymous-ops.js';
import { createAnonymousRepo } from './anonymous-repo.js';

/** `signinAnonymous` takes no fields: an app calls it without a form. */
const anonymousInputs = { anonymousSignin: z.object({}) };

/**
 * Anonymous accounts (anonymous-ops.ts tells how; docs/users.md, "Anonymous accounts") as one
 * sign-in method: off until an administrator grants `signinAnonymous`; `upgradeAnonymous` for
 * any signed-in caller (it refuses a full account). Sessions labelled `anonymous`; no figures,
 * no second step; its sweep is the hourly purge's (`purgeExpired`).
 */
export const anonymousMethod: SigninMethod<AnonymousOps, 'anonymous', Record<never, never>, typeof anonymousInputs> = {
  id: 'anonymous',
  sessionLabels: { anonymous: 'Anonymous account' },
  figures: {},
  inputs: anonymousInputs,
  errors: anonymousErrors,
  permissions: { signinAnonymous: [NOONE], upgradeAnonymous: [AUTHENTICATED] },
  create(ctx, { db, config }) {
    const a = config.users.anonymous;
    const { ops, sweep } = anonymousOps(ctx, createAnonymousRepo(db), {
      perAddress: a.perAddress,
      windowMs: a.windowSeconds * 1000,
      max: a.max,
      sweepAfterMs: a.sweepDays * 86_400_000,
    });
    return { ops, hooks: { id: 'anonymous', figures: async () => ({}), purgeExpired: sweep } };
  },
};
