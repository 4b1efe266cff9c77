import { EVERYONE, NOONE } from '../../../core/permissions.js';
import type { SigninMethod } from '../../signin-method.js';
import { mailCodeInputs } from './mail-code-inputs.js';
import { mailCodeOps, type MailCodeOps } from './mail-code-ops.js';

/**
 * Sign-in by a code or link mailed to the account (docs/users.md, "Sign-in by mail";
 * mail-code-ops.ts tells how) as one sign-in method: two operations, off until an administrator
 * grants `signinMail` (the settings page's switch), and sessions labelled `mail`. It keeps no
 * table of its own (its codes are rows of `user_tokens`), has no figures and is no second step;
 * its error code (`invalid_code`) is the user service's own (users/user-errors.ts), which the
 * second step answers too.
 */
export const mailCodeMethod: SigninMethod<MailCodeOps, 'mail', Record<never, never>, typeof mailCodeInputs> = {
  id: 'mail-code',
  sessionLabels: { mail: 'Code by mail' },
  figures: {},
  inputs: mailCodeInputs,
  errors: { codes: {} },
  permissions: { signinMail: [NOONE], signinMail2: [EVERYONE] },
  create(ctx, { config }) {
    const settings = {
      lifetimeMs: config.users.signinCodeLifetimeSeconds * 1000,
      url: `${config.publicUrl}/users/signin-mail`,
    };
    return { ops: mailCodeOps(ctx, settings), hooks: { id: 'mail-code', figures: async () => ({}) } };
  },
};
