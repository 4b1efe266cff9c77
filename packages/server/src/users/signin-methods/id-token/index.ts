import { EVERYONE } from '../../../core/permissions.js';
import type { SigninMethod } from '../../signin-method.js';
import { idTokenErrors } from './id-token-errors.js';
import { idTokenInputs } from './id-token-inputs.js';
import { idTokenOps, type IdTokenOps } from './id-token-ops.js';
import { createIdTokenVerifier } from './id-token-verify.js';

/**
 * Sign-in with a provider's ID token obtained by a native app (id-token-ops.ts tells how;
 * docs/users.md, "ID tokens from apps") as one sign-in method: one operation, open to everybody
 * like the providers' own callback (the configured providers decide who can sign in), sessions
 * labelled `idToken`. It keeps no table: links are the providers' (`provider_links`) and used
 * tokens are counted in `throttle_counts`.
 */
export const idTokenMethod: SigninMethod<IdTokenOps, 'idToken', Record<never, never>, typeof idTokenInputs> = {
  id: 'id-token',
  sessionLabels: { idToken: "A provider's ID token from an app" },
  figures: {},
  inputs: idTokenInputs,
  errors: idTokenErrors,
  permissions: { signinIdToken: [EVERYONE] },
  create(ctx) {
    return { ops: idTokenOps(ctx, createIdTokenVerifier()), hooks: { id: 'id-token', figures: async () => ({}) } };
  },
};
