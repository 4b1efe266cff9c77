import type { IncomingMessage } from 'node:http';
import Provider, {
  errors,
  interactionPolicy,
  type AccountClaims,
  type Configuration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Config } from '../core/config.js';
import { AUTH_COOKIE, type RequestCaller } from '../http/auth.js';
import type { User, UserService } from '../users/index.js';
import { idpAdapterFactory } from './idp-adapter.js';
import { clientMetadata, type ClientRegistry } from './idp-clients.js';
import { signinState } from './idp-accounts.js';
import type { IdpKeys } from './idp-keys.js';
import type { IdpRepo } from './idp-repo.js';
import type { Clock } from '../core/clock.js';

/** Where the provider is mounted under Roost's public URL (the issuer is `<publicUrl>/oidc`). */
export const IDP_PATH = '/oidc';

/** The claims of each scope (docs/users.md, "Roost as an identity provider"). */
const CLAIMS = {
  openid: ['sub'],
  profile: ['name', 'preferred_username'],
  email: ['email', 'email_verified'],
  groups: ['groups'],
};

export type IdpOptions = Config['identityProvider'];

export interface IdpProviderDeps {
  options: IdpOptions;
  publicUrl: string;
  trustProxy: boolean;
  users: UserService;
  repo: IdpRepo;
  /** The applications of the admin page, found through the adapter (idp-clients.ts). */
  clients: ClientRegistry;
  keys: IdpKeys;
  clock: Clock;
  /** The account of a `sub`, when it may still sign in (idp-accounts.ts `accountReader`). */
  account: (id: string) => Promise<User | null>;
  /** The Roost caller of a request the mount handed the provider (idp-routes.ts). */
  callerOf: (req: IncomingMessage) => Promise<RequestCaller>;
  /** The page of an error the provider cannot send back to the application (a wrong redirect_uri). */
  errorPage: (title: string, message: string) => string;
  /** The page that asks whether to sign out of Roost too (its `form` is the library's, the buttons submit it). */
  logoutPage: (form: string, clientName: string | undefined) => string;
}

/**
 * The login prompt's own check: the browser's Roost session (idp-accounts.ts `signinState`) is
 * the provider's sign-in. The library keeps a session of its own; without this check it would
 * issue codes after Roost's sign-out, to whoever signed in first in the browser, or without the
 * second factor a group came to require.
 */
function roostSessionCheck(deps: IdpProviderDeps): interactionPolicy.Check {
  return new interactionPolicy.Check('roost_session', 'The Roost sign-in is required', async (ctx) => {
    const state = await signinState(deps.users, await deps.callerOf(ctx.req));
    const same = state.kind === 'ready' && state.user.id === ctx.oidc.session?.accountId;
    return same ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
  });
}

/**
 * A consent the account gave the client before (idp_consents), as the grant of this request:
 * consent is remembered per account and client, not per browser session, and the table is what
 * counts: a consent taken back asks again even where the provider's session still holds a grant.
 * Scopes asked beyond the grant bring the consent page again (the library's consent prompt).
 */
async function loadExistingGrant(repo: IdpRepo, ctx: KoaContextWithOIDC) {
  const { oidc } = ctx;
  const client = oidc.client;
  const accountId = oidc.session?.accountId;
  if (!client || !accountId) return undefined;
  const consent = await repo.consentOf(accountId, client.clientId);
  if (!consent) return undefined;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(client.clientId);
  const held = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  if (held?.accountId === accountId) return held;
  const grant = new oidc.provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(consent.scope);
  for (const [resource, scope] of Object.entries(consent.resources)) grant.addResourceScope(resource, scope);
  await grant.save();
  return grant;
}

/** The JWT access tokens' servers (RFC 8707): a configured resource, else `invalid_target`. */
function resourceIndicators(options: IdpOptions): NonNullable<Configuration['features']>['resourceIndicators'] {
  if (options.resources.length === 0) return { enabled: false };
  return {
    enabled: true,
    defaultResource: () => undefined,
    useGrantedResource: () => false,
    getResourceServerInfo: (_ctx, resource) => {
      const server = options.resources.find((r) => r.uri === resource);
      if (!server) throw new errors.InvalidTarget('this resource is not one of Roost’s resource servers');
      return {
        scope: server.scopes.join(' '),
        audience: server.uri,
        accessTokenTTL: options.accessTokenSeconds,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      };
    },
  };
}

function claimsOf(user: User, options: IdpOptions): AccountClaims {
  return {
    sub: user.id,
    name: user.realname || user.name,
    preferred_username: user.name,
    ...(user.email ? { email: user.email, email_verified: options.emailVerified } : {}),
    groups: user.groups,
  };
}

/**
 * The OpenID Connect provider (npm `oidc-provider`; docs/decisions.md): the registered
 * applications of the configuration, authorization code with PKCE (S256) for every client, the
 * claims of `CLAIMS`, its models in Roost's database (idp-adapter.ts) and its keys made once
 * (idp-keys.ts). Sign-in and consent are Roost's pages (idp-routes.ts `interactions`).
 */
export function createIdpProvider(deps: IdpProviderDeps): Provider {
  const { options, repo } = deps;
  const policy = interactionPolicy.base();
  policy.get('login')?.checks.add(roostSessionCheck(deps));
  const provider = new Provider(`${deps.publicUrl}${IDP_PATH}`, {
    adapter: idpAdapterFactory(repo, deps.clock, deps.clients),
    clients: options.clients.map(clientMetadata),
    jwks: deps.keys.jwks,
    cookies: { keys: deps.keys.cookieKeys },
    claims: CLAIMS,
    scopes: Object.keys(CLAIMS),
    // The scopes' claims in the ID token too: an application that reads only it sees the groups.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: {
      AccessToken: options.accessTokenSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Grant: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource(ctx, form) {
          ctx.body = deps.logoutPage(form, ctx.oidc.client?.clientName);
        },
      },
      resourceIndicators: resourceIndicators(options),
    },
    interactions: { url: (_ctx, interaction) => `${IDP_PATH}/interaction/${interaction.uid}`, policy },
    loadExistingGrant: (ctx) => loadExistingGrant(repo, ctx),
    async findAccount(_ctx, id) {
      const user = await deps.account(id);
      if (!user) return undefined;
      return { accountId: id, claims: () => claimsOf(user, options) };
    },
    // The account's groups in JWT access tokens too, for services that decide by them.
    async extraTokenClaims(_ctx, token) {
      if (!('accountId' in token) || !token.resourceServer) return undefined;
      const user = await deps.account(token.accountId);
      return user ? { groups: user.groups } : undefined;
    },
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = deps.errorPage(
        'The application’s request cannot be served',
        typeof out.error_description === 'string' ? out.error_description : out.error,
      );
    },
  });
  provider.proxy = deps.trustProxy;
  // The library's own pages (an error, the end of a session, its self-submitting forms) bypass
  // Roost's headers (http/security-headers.ts): never framed, like every page of Roost.
  provider.use(async (ctx, next) => {
    await next();
    if (!ctx.response.is('html')) return;
    ctx.set('x-frame-options', 'DENY');
    ctx.set('content-security-policy', "frame-ancestors 'none'");
  });
  endRoostSessionOnLogout(provider, deps);
  return provider;
}

/**
 * An application's end of the session (RP-initiated logout) where the person chose "sign out of
 * Roost too" (`logout=yes`, the logout page) ends the browser's Roost session as well, and its
 * cookie, before the answer leaves: else the next authorization would sign the same person in
 * again at once (the login check reads the Roost session). Only for the account the provider's
 * session held; without one the library asks nothing, and a link from anywhere must not sign
 * anybody out of Roost.
 */
function endRoostSessionOnLogout(provider: Provider, deps: IdpProviderDeps): void {
  const confirmed = new WeakSet<KoaContextWithOIDC>();
  provider.on('end_session.success', (ctx: KoaContextWithOIDC) => {
    if (ctx.oidc.params?.logout && ctx.oidc.session?.accountId) confirmed.add(ctx);
  });
  provider.use(async (ctx, next) => {
    await next();
    if (!confirmed.has(ctx as KoaContextWithOIDC)) return;
    const caller = await deps.callerOf(ctx.req);
    if (caller.user?.id !== (ctx as KoaContextWithOIDC).oidc.session?.accountId) return;
    await deps.users.signout(caller);
    ctx.cookies.set(AUTH_COOKIE, null, { path: '/', httpOnly: true, sameSite: 'lax' });
  });
}
