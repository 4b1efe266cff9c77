import { EVERYONE } from '../../../core/permissions.js';
import type { SigninMethod } from '../../signin-method.js';
import { samlErrors } from './saml-errors.js';
import { samlInputs } from './saml-inputs.js';
import { samlOps, type SamlOps } from './saml-ops.js';
import { createSamlRepo } from './saml-repo.js';

/**
 * SAML 2.0 single sign-on, Roost the service provider (saml-ops.ts tells how; docs/users.md,
 * "SAML single sign-on") as one sign-in method: its operations open to everybody like the
 * providers' own callback (the configured connections decide who can sign in), sessions labelled
 * `saml`, its flows in `saml_flows` (saml-repo.ts), its links among the providers' as `saml:<id>`.
 * The connections are boot configuration (`users.saml`); the browser's routes are
 * admin/user-pages/saml-pages.ts.
 */
export const samlMethod: SigninMethod<SamlOps, 'saml', Record<never, never>, typeof samlInputs> = {
  id: 'saml',
  sessionLabels: { saml: 'SAML single sign-on' },
  figures: {},
  inputs: samlInputs,
  errors: samlErrors,
  permissions: {
    samlStart: [EVERYONE],
    samlAnswer: [EVERYONE],
    samlFinish: [EVERYONE],
    samlMetadata: [EVERYONE],
    samlConnectionFor: [EVERYONE],
    samlByDomain: [EVERYONE],
  },
  create(ctx, { db, config }) {
    const repo = createSamlRepo(db);
    return {
      ops: samlOps(ctx, repo, config.publicUrl, config.users.saml),
      hooks: { id: 'saml', figures: async () => ({}), purgeExpired: (now) => repo.purgeExpired(now) },
    };
  },
};
