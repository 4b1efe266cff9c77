import * as oidc from 'openid-client';
import type { ProviderConfig } from '../core/config.js';
import { userErrors } from './user-errors.js';

/**
 * Sign-in providers as `openid-client` configurations (docs/decisions.md, "Sign-in providers"):
 * the library does discovery, the authorization URL, PKCE, `state`, the code exchange and every
 * check of the ID token (signature, issuer, audience, expiry, nonce); this module only knows
 * where each preset lives and how to read a profile out of what the provider answered.
 */

/** What Roost learns of the provider's account. */
export interface ProviderProfile {
  /** The provider's stable id of the account (`sub`; GitHub's numeric id). */
  subject: string;
  email: string | null;
  /** Only when the provider says so (`email_verified`, GitHub's `verified`). */
  emailVerified: boolean;
  /** A user name the provider suggests (`preferred_username`, GitHub's `login`). */
  username: string | null;
  realname: string | null;
}

/** A provider ready to use. */
export interface ProviderClient {
  id: string;
  /** The button's words: "Sign in with …". */
  label: string;
  config: oidc.Configuration;
  scope: string;
  /**
   * The `prompt` of every authorization request (docs/security.md, "Sign-in providers"): the
   * provider must ask the person (pick the account, or sign in again) even with a live session
   * there, so a GET that any site can send never ends in a Roost session by itself (ASVS 7.6.2).
   */
  prompt: 'select_account' | 'login';
  /** OpenID Connect: an ID token with our nonce is required; GitHub's OAuth2 has none. */
  openId: boolean;
  profile(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): Promise<ProviderProfile>;
}

const LABELS: Record<ProviderConfig['kind'], string> = {
  oidc: '',
  github: 'GitHub',
  google: 'Google',
  microsoft: 'Microsoft',
  gitlab: 'GitLab',
  apple: 'Apple',
};

/**
 * `select_account` where the provider is known to take it (Google, Microsoft, GitHub, or an
 * issuer whose discovery lists it in `prompt_values_supported`): one click on the account; else
 * `login`, which OpenID Connect Core 1.0 section 3.1.2.1 defines for every provider.
 */
function promptOf(kind: ProviderConfig['kind'], advertised: unknown): ProviderClient['prompt'] {
  if (kind === 'google' || kind === 'microsoft' || kind === 'github') return 'select_account';
  return Array.isArray(advertised) && advertised.includes('select_account') ? 'select_account' : 'login';
}

/** The issuer of an OpenID Connect provider: given, or its preset's. */
function issuerOf(p: ProviderConfig): string {
  if (p.kind === 'google') return 'https://accounts.google.com';
  if (p.kind === 'microsoft') return `https://login.microsoftonline.com/${p.tenant ?? 'common'}/v2.0`;
  if (p.kind === 'gitlab') return p.issuer ?? 'https://gitlab.com';
  if (p.kind === 'apple') return p.issuer ?? 'https://appleid.apple.com';
  return p.issuer ?? '';
}

/**
 * Plain http only to this machine (a provider under test, or one beside Roost): anything else
 * would send codes and secrets in the clear.
 */
function insecureAllowed(url: URL): boolean {
  if (url.protocol === 'https:') return false;
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    throw userErrors.provider_unavailable({ message: `The provider ${url.origin} must be reached over https.` });
  return true;
}

export function providerLabel(p: ProviderConfig): string {
  return p.name ?? (LABELS[p.kind] || new URL(issuerOf(p)).hostname);
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

async function openIdClient(p: ProviderConfig): Promise<ProviderClient> {
  const issuer = new URL(issuerOf(p));
  const insecure = insecureAllowed(issuer);
  const config = await oidc.discovery(
    issuer,
    p.clientId,
    undefined,
    p.clientSecret ? oidc.ClientSecretPost(p.clientSecret) : oidc.None(),
    insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );
  return {
    id: p.id,
    label: providerLabel(p),
    config,
    scope: (p.scopes ?? ['openid', 'email', 'profile']).join(' '),
    prompt: promptOf(p.kind, config.serverMetadata().prompt_values_supported),
    openId: true,
    async profile(tokens) {
      const claims = tokens.claims();
      if (!claims) throw userErrors.provider_failed({ message: 'The provider sent no ID token.' });
      let info: Record<string, unknown> = claims;
      // Many providers keep the email and names for the userinfo endpoint.
      if (config.serverMetadata().userinfo_endpoint && claims.email === undefined)
        info = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      return {
        subject: claims.sub,
        email: text(info.email),
        emailVerified: info.email_verified === true,
        username: text(info.preferred_username) ?? text(info.nickname),
        realname: text(info.name),
      };
    },
  };
}

/** GitHub (or a GitHub Enterprise server at `issuer`): OAuth2 with PKCE, then its user API. */
function githubClient(p: ProviderConfig): ProviderClient {
  const server = new URL(p.issuer ?? 'https://github.com');
  const insecure = insecureAllowed(server);
  const api = server.origin === 'https://github.com' ? 'https://api.github.com' : `${server.origin}/api/v3`;
  const config = new oidc.Configuration(
    {
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/login/oauth/authorize`,
      token_endpoint: `${server.origin}/login/oauth/access_token`,
    },
    p.clientId,
    undefined,
    p.clientSecret ? oidc.ClientSecretPost(p.clientSecret) : oidc.None(),
  );
  if (insecure) oidc.allowInsecureRequests(config);
  const get = async (path: string, token: string): Promise<unknown> => {
    const headers = new Headers({ accept: 'application/vnd.github+json' });
    const res = await oidc.fetchProtectedResource(config, token, new URL(`${api}${path}`), 'GET', undefined, headers);
    if (!res.ok) throw userErrors.provider_unavailable({ message: `GitHub answered ${res.status} to ${path}.` });
    return res.json();
  };
  return {
    id: p.id,
    label: providerLabel(p),
    config,
    scope: (p.scopes ?? ['read:user', 'user:email']).join(' '),
    prompt: promptOf(p.kind, undefined),
    openId: false,
    async profile(tokens) {
      const user = (await get('/user', tokens.access_token)) as Record<string, unknown>;
      const emails = (await get('/user/emails', tokens.access_token)) as unknown;
      const primary = Array.isArray(emails)
        ? (emails as Record<string, unknown>[]).find((e) => e.primary === true && typeof e.email === 'string')
        : undefined;
      const id = user.id;
      if (typeof id !== 'number' && typeof id !== 'string')
        throw userErrors.provider_unavailable({ message: 'GitHub sent no user id.' });
      return {
        subject: String(id),
        email: text(primary?.email) ?? text(user.email),
        emailVerified: primary?.verified === true,
        username: text(user.login),
        realname: text(user.name),
      };
    },
  };
}

/**
 * The clients of the configured providers, made on first use and kept while the settings stay
 * the same object (core/runtime-settings.ts hands out one frozen object until a change). A
 * discovery that fails is not kept: the next sign-in tries again.
 */
export function createProviderClients() {
  const made = new WeakMap<ProviderConfig, Promise<ProviderClient>>();
  return function clientOf(p: ProviderConfig): Promise<ProviderClient> {
    let client = made.get(p);
    if (!client) {
      client = (async () => (p.kind === 'github' ? githubClient(p) : openIdClient(p)))().catch((err: unknown) => {
        made.delete(p);
        if (err instanceof Error && err.name === 'RoostError') throw err;
        throw userErrors.provider_unavailable({ cause: err });
      });
      made.set(p, client);
    }
    return client;
  };
}

export type ProviderClients = ReturnType<typeof createProviderClients>;
