import { signinHooked } from './user-hooks.js';
import * as oidc from 'openid-client';
import type { ProviderConfig } from '../core/config.js';
import { isRoostError, type RoostError } from '../core/errors.js';
import { hashToken } from '../core/ids.js';
import { parseInput } from '../core/validation.js';
import { providerLabel, type ProviderProfile } from './provider-clients.js';
import { startSession, type IssuedToken } from './sessions.js';
import { challengeIfNeeded } from './signin-challenge.js';
import { signupByProvider } from './signup-ops.js';
import { userErrors } from './user-errors.js';
import {
  newUserToken,
  reauthenticate,
  requireUser,
  upgradedByNewWayIn,
  type Caller,
  type UserContext,
} from './user-context.js';
import type { ProviderGrant, ProviderRef, ProviderStart, ProviderUnlink } from './user-inputs.js';
import type { PendingReason } from '../storage/schema.js';
import type { User } from './user-repo.js';

/**
 * Sign-in through OpenID Connect and OAuth2 providers (docs/users.md, "Providers"). A sign-in
 * starts with `signinProvider`: a flow is stored by the hash of a random `state`, with the PKCE
 * verifier and the nonce, and the browser is sent to the provider (the transport also puts the
 * state into a cookie of that browser). The provider sends the browser back to the callback;
 * `finishProvider` takes the flow once (a replayed callback finds nothing), checks that the
 * state is the browser's own, lets `openid-client` exchange the code (PKCE, state, the ID
 * token's signature, issuer, audience and nonce) and reads the profile.
 *
 * The provider account then signs into the account it is linked to; a first sign-in makes an
 * account by the sign-up policies (signup-ops.ts, `signupByProvider`), or, when configured,
 * joins the account of a verified email. A sign-in that began on Roost's pages ends with a
 * session; one that began in an app (an address of `providerRedirects`) ends with a one-time
 * grant in the address, which the app trades for a session with `signinProvider2`, so no
 * token ever travels in an address. A second factor is asked for as after a password.
 */

/** How long a provider may take to send the browser back. */
const FLOW_LIFETIME_MS = 10 * 60_000;
/** How long an app has to trade a grant for a session. */
const GRANT_LIFETIME_MS = 2 * 60_000;

/** An enabled provider, as the sign-in pages and the connectors show it. */
export interface ProviderInfo {
  id: string;
  label: string;
}

/** What an account is made or found by: a provider's id and sign-up policy (a SAML connection's too). */
export type AccountSource = Pick<ProviderConfig, 'id' | 'signup'>;

/** A provider account linked to the own account. */
export interface LinkedProvider {
  provider: string;
  label: string;
  email: string | null;
  created: number;
}

/** A started sign-in: where to send the browser, and the state its cookie must carry back. */
export interface StartedProviderSignin {
  url: string;
  state: string;
}

/** The end of a provider sign-in, and where the browser goes next (`redirect`, as started). */
export type ProviderOutcome =
  | { kind: 'session'; session: IssuedToken; redirect: string }
  | { kind: 'grant'; grant: string; redirect: string }
  /** The account needs a second factor: `error` is `second_factor_required` with its challenge. */
  | { kind: 'challenge'; error: RoostError; redirect: string }
  | { kind: 'linked'; provider: string; redirect: string }
  | { kind: 'pending'; reason: PendingReason; redirect: string }
  | { kind: 'failed'; error: RoostError; redirect: string };

/** The callback's query, with the state the browser's cookie carries (null: no cookie). */
export interface ProviderCallback extends ProviderRef {
  query: string;
  browserState: string | null;
}

/** A path of Roost's own pages: `/…`, never `//host` (that would leave Roost). */
export const isLocalRedirect = (redirect: string) => /^\/(?![/\\])[^\s]*$/.test(redirect);

/** Whether `redirect` is an address of the allow-list: equal to an entry, or under one ending in `/`. */
function allowedRedirect(redirect: string, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    return false;
  }
  return allowed.some((entry) => {
    const base = new URL(entry);
    if (url.origin !== base.origin) return false;
    return url.href === base.href || (base.pathname.endsWith('/') && url.pathname.startsWith(base.pathname));
  });
}

/** An `openid-client` failure as Roost's: the provider out of reach, or an answer that fails a check. */
function exchangeFailure(err: unknown): RoostError {
  if (isRoostError(err)) return err;
  if (err instanceof TypeError) return userErrors.provider_unavailable({ cause: err });
  const code = err instanceof oidc.AuthorizationResponseError ? err.error : undefined;
  return userErrors.provider_failed({
    cause: err,
    ...(code ? { message: `The provider refused the sign-in (${code}).` } : {}),
  });
}

/**
 * The account a provider account signs into, made or joined on a first sign-in (signup-ops.ts
 * `signupByProvider`): the browser's flow here, an app's ID token (signin-methods/id-token/) and
 * a SAML connection's assertion (signin-methods/saml/, whose links are kept as `saml:<id>`).
 */
export async function providerAccount(
  ctx: UserContext,
  caller: Caller,
  provider: AccountSource,
  profile: ProviderProfile,
): Promise<User> {
  const linked = await ctx.links.linkOf(provider.id, profile.subject);
  const user = linked ? await ctx.repo.byId(linked.userId) : await signupByProvider(ctx, caller, provider, profile);
  if (!user) throw userErrors.provider_failed();
  return user;
}

/**
 * A signed-in provider account's end on Roost's pages: the session, the second step's challenge
 * (signin-challenge.ts), or the account's pending state. Providers' sign-ins and SAML's end here.
 */
export async function pageSignin(
  ctx: UserContext,
  caller: Caller,
  user: User,
  redirect: string,
  method: 'provider' | 'saml',
): Promise<ProviderOutcome> {
  if (user.state === 'pending') return { kind: 'pending', reason: user.pending ?? 'review', redirect };
  if (user.state !== 'active') throw userErrors.account_disabled();
  try {
    await challengeIfNeeded(ctx, user, caller);
  } catch (err) {
    if (isRoostError(err) && err.code === 'second_factor_required') return { kind: 'challenge', error: err, redirect };
    throw err;
  }
  return { kind: 'session', session: await startSession(ctx, caller, user, method), redirect };
}

export function providerOps(ctx: UserContext) {
  const { links, clock, inputs, repo } = ctx;

  async function enabled(id: string): Promise<ProviderConfig> {
    const provider = (await ctx.runtime()).providers.find((p) => p.id === id);
    if (!provider) throw userErrors.unknown_provider({ fields: [['provider', 'unknown']] });
    return provider;
  }

  const callbackOf = (id: string) => `${ctx.settings.providerCallbackBase}/${id}/callback`;

  /** A linked provider account's sign-in: a session (Roost's pages) or a grant (an app). */
  async function signedIn(caller: Caller, user: User, redirect: string): Promise<ProviderOutcome> {
    if (isLocalRedirect(redirect)) return pageSignin(ctx, caller, user, redirect, 'provider');
    if (user.state === 'pending') return { kind: 'pending', reason: user.pending ?? 'review', redirect };
    if (user.state !== 'active') throw userErrors.account_disabled();
    // Not `newMailedToken`: a grant must not end another device's sign-in under way.
    const grant = await newUserToken(ctx, user.id, 'provider_grant', GRANT_LIFETIME_MS);
    return { kind: 'grant', grant, redirect };
  }

  return {
    async providers(_caller: Caller): Promise<ProviderInfo[]> {
      return (await ctx.runtime()).providers.map((p) => ({ id: p.id, label: providerLabel(p) }));
    },

    async signinProvider(caller: Caller, input: ProviderStart): Promise<StartedProviderSignin> {
      const { provider: id, redirect, link, password, code } = parseInput(inputs.providerStart, input);
      const provider = await enabled(id);
      const runtime = await ctx.runtime();
      if (!isLocalRedirect(redirect) && !allowedRedirect(redirect, runtime.providerRedirects))
        throw userErrors.redirect_not_allowed({ fields: [['redirect', 'not_allowed']] });
      // A linked provider account signs in on its own: the owner proves presence first (ASVS 7.5.1).
      const linkUser = link ? requireUser(caller) : null;
      if (linkUser) await reauthenticate(ctx, linkUser, { password, code });
      const client = await ctx.providerClients(provider);
      const state = oidc.randomState();
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      await links.putFlow({
        stateHash: hashToken(state),
        provider: provider.id,
        verifier,
        nonce,
        redirect,
        linkUser: linkUser?.id ?? null,
        expires: clock.now() + FLOW_LIFETIME_MS,
      });
      const url = oidc.buildAuthorizationUrl(client.config, {
        redirect_uri: callbackOf(provider.id),
        scope: client.scope,
        // A sign-in makes a session: the provider must ask (ASVS 7.6.2). A link is begun by an
        // explicit action already (the account page's link with the CSRF token) and makes none.
        ...(link || client.prompt === null ? {} : { prompt: client.prompt }),
        // Apple posts its answer back (the callback route takes POST too, admin/user-pages/provider-pages.ts).
        ...(client.responseMode ? { response_mode: client.responseMode } : {}),
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        ...(client.openId ? { nonce } : {}),
      });
      return { url: url.href, state };
    },

    async finishProvider(caller: Caller, input: ProviderCallback): Promise<ProviderOutcome> {
      const provider = await enabled(input.provider);
      const query = new URLSearchParams(input.query);
      const state = query.get('state') ?? '';
      // Only the browser that started the sign-in may end it (its cookie): otherwise anybody
      // could hand a victim the end of a sign-in into the attacker's own account (login CSRF).
      if (state === '' || input.browserState !== state) throw userErrors.provider_failed();
      const flow = await links.takeFlow(hashToken(state), clock.now());
      if (flow?.provider !== provider.id) throw userErrors.provider_failed();
      try {
        const client = await ctx.providerClients(provider);
        let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
        try {
          await client.beforeExchange();
          tokens = await oidc.authorizationCodeGrant(client.config, new URL(`${callbackOf(provider.id)}?${query}`), {
            pkceCodeVerifier: flow.verifier,
            expectedState: state,
            ...(client.openId ? { expectedNonce: flow.nonce, idTokenExpected: true } : {}),
          });
        } catch (err) {
          throw exchangeFailure(err);
        }
        const profile = await client.profile(tokens).catch((err: unknown) => {
          throw exchangeFailure(err);
        });
        if (flow.linkUser) {
          const joined = await links.link({
            provider: provider.id,
            subject: profile.subject,
            userId: flow.linkUser,
            email: profile.email,
            created: clock.now(),
          });
          if (!joined && (await links.linkOf(provider.id, profile.subject))?.userId !== flow.linkUser)
            throw userErrors.provider_linked();
          await upgradedByNewWayIn(ctx, flow.linkUser);
          return { kind: 'linked', provider: provider.id, redirect: flow.redirect };
        }
        // The sign-in's hooks (user-hooks.ts) see the address the provider vouches for, before any account is made.
        await signinHooked(ctx, caller.principal, 'provider', 'finish', profile.email ?? '');
        return await signedIn(caller, await providerAccount(ctx, caller, provider, profile), flow.redirect);
      } catch (err) {
        if (!isRoostError(err)) throw err;
        return { kind: 'failed', error: err, redirect: flow.redirect };
      }
    },

    async signinProvider2(caller: Caller, input: ProviderGrant): Promise<IssuedToken> {
      const { grant } = parseInput(inputs.providerGrant, input);
      const taken = await repo.takeToken(hashToken(grant), 'provider_grant', clock.now());
      const user = taken ? await repo.byId(taken.userId) : null;
      if (user?.state !== 'active') throw userErrors.invalid_token({ fields: [['grant', 'invalid']] });
      await challengeIfNeeded(ctx, user, caller);
      return startSession(ctx, caller, user, 'provider');
    },

    async providerLinks(caller: Caller): Promise<LinkedProvider[]> {
      const user = requireUser(caller);
      const configured = (await ctx.runtime()).providers;
      return (await links.linksOf(user.id)).map((l) => {
        const provider = configured.find((p) => p.id === l.provider);
        return {
          provider: l.provider,
          label: provider ? providerLabel(provider) : l.provider,
          email: l.email,
          created: l.created,
        };
      });
    },

    async unlinkProvider(caller: Caller, input: ProviderUnlink): Promise<void> {
      const { provider, password, code } = parseInput(inputs.providerUnlink, input);
      const user = requireUser(caller);
      if (!(await links.linksOf(user.id)).some((l) => l.provider === provider))
        throw userErrors.not_linked({ fields: [['provider', 'unknown']] });
      await reauthenticate(ctx, user, { password, code });
      if (!(await links.unlink(user.id, provider))) throw userErrors.not_linked({ fields: [['provider', 'unknown']] });
    },
  };
}
