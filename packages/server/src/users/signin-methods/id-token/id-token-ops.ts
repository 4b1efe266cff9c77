import { hashToken } from '../../../core/ids.js';
import { parseInput } from '../../../core/validation.js';
import { providerAccount } from '../../provider-ops.js';
import { startSession, type IssuedToken } from '../../sessions.js';
import { challengeIfNeeded } from '../../signin-challenge.js';
import { signinHooked } from '../../user-hooks.js';
import { userErrors } from '../../user-errors.js';
import { upgradedByNewWayIn, type Caller, type UserContext } from '../../user-context.js';
import type { User } from '../../user-repo.js';
import type { ProviderConfig } from '../../../core/config.js';
import type { ProviderProfile } from '../../provider-clients.js';
import { idTokenErrors } from './id-token-errors.js';
import { idTokenInputs, type IdTokenSignin } from './id-token-inputs.js';
import type { IdTokenVerifier } from './id-token-verify.js';

export type IdTokenOps = {
  /** A session for an ID token an app got from a configured provider on the device. */
  signinIdToken(caller: Caller, input: IdTokenSignin): Promise<IssuedToken>;
};

/** How long a used ID token is remembered: longer than any provider's tokens live (Google's and Apple's: an hour). */
const USED_TOKEN_WINDOW_MS = 24 * 3600_000;

/**
 * Sign-in with an ID token obtained on the device (docs/users.md, "ID tokens from apps"): a
 * native app signs the person in with the platform's own sign-in (Sign in with Apple, Google's
 * Credential Manager, any OpenID Connect provider's SDK), passing a nonce of its own, and sends
 * Roost the provider's id, the ID token and that nonce. id-token-verify.ts checks the token;
 * each token signs in once (its hash is counted in `throttle_counts` for a day, user-repo.ts
 * `countAttempt`). The provider account then signs in as after the browser's flow: the account
 * it is linked to, or one made or joined by the sign-up policies (provider-ops.ts
 * `providerAccount`), with the second factor asked for as after a password. An anonymous caller
 * (signin-methods/anonymous/) is linked instead and so becomes a full account.
 */
export function idTokenOps(ctx: UserContext, verify: IdTokenVerifier): IdTokenOps {
  async function enabled(id: string): Promise<ProviderConfig> {
    const provider = (await ctx.runtime()).providers.find((p) => p.id === id);
    if (!provider) throw userErrors.unknown_provider({ fields: [['provider', 'unknown']] });
    return provider;
  }

  /** Counts the token's use: true the first time. */
  async function firstUse(idToken: string): Promise<boolean> {
    const now = ctx.clock.now();
    return (await ctx.repo.countAttempt(`idtoken:${hashToken(idToken)}`, now, now - USED_TOKEN_WINDOW_MS)) === 1;
  }

  /** The anonymous caller's account, joined to the provider account (it is then a full one). */
  async function linkAnonymous(user: User, provider: ProviderConfig, profile: ProviderProfile): Promise<User> {
    const joined = await ctx.links.link({
      provider: provider.id,
      subject: profile.subject,
      userId: user.id,
      email: profile.email,
      created: ctx.clock.now(),
    });
    if (!joined && (await ctx.links.linkOf(provider.id, profile.subject))?.userId !== user.id)
      throw userErrors.provider_linked();
    await upgradedByNewWayIn(ctx, user.id);
    return (await ctx.repo.byId(user.id)) ?? user;
  }

  return {
    async signinIdToken(caller, input) {
      const { provider: id, idToken, nonce } = parseInput(idTokenInputs.idTokenSignin, input);
      const provider = await enabled(id);
      const client = await ctx.providerClients(provider);
      const { profile } = await verify(provider, client, idToken, nonce, ctx.clock.now());
      if (!(await firstUse(idToken))) throw idTokenErrors.invalid_id_token({ fields: [['idToken', 'used']] });
      // The sign-in's hooks (user-hooks.ts) see the address the provider vouches for, as after the browser's flow.
      await signinHooked(ctx, caller.principal, 'idToken', 'finish', profile.email ?? '');
      const user = caller.user?.anonymous
        ? await linkAnonymous(caller.user, provider, profile)
        : await providerAccount(ctx, caller, provider, profile);
      if (user.state === 'pending') throw idTokenErrors.account_pending();
      if (user.state !== 'active') throw userErrors.account_disabled();
      await challengeIfNeeded(ctx, user, caller);
      return startSession(ctx, caller, user, 'idToken');
    },
  };
}
