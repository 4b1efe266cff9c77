import * as oidc from 'openid-client';
import type { ProviderConfig } from '../core/config.js';
import { appleClientSecret } from './apple-client-secret.js';
import {
  endpointAt,
  PROVIDER_PRESETS,
  readProfile,
  type OAuth2Preset,
  type ProviderPreset,
} from './provider-presets.js';
import { userErrors } from './user-errors.js';

/**
 * Sign-in providers as `openid-client` configurations (docs/decisions.md, "Sign-in providers"):
 * the library does discovery, the authorization URL, PKCE, `state`, the code exchange and every
 * check of the ID token (signature, issuer, audience, expiry, nonce); this module makes a client
 * of each kind: any OpenID Connect issuer, the presets declared in provider-presets.ts (an issuer,
 * or an OAuth2 provider's endpoints and where its user API keeps the profile), and GitHub.
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
   * Null for Apple, which takes none and asks the person on every sign-in.
   */
  prompt: 'select_account' | 'login' | 'consent' | null;
  /** `form_post`: the provider posts its answer to the callback (Apple). */
  responseMode: 'form_post' | null;
  /** OpenID Connect: an ID token with our nonce is required; an OAuth2-only provider has none. */
  openId: boolean;
  /** Awaited before each code exchange: a client secret that is a JWT is made anew when due (Apple). */
  beforeExchange(): Promise<void>;
  profile(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): Promise<ProviderProfile>;
}

const presetOf = (kind: ProviderConfig['kind']): ProviderPreset | null =>
  kind === 'oidc' || kind === 'github' ? null : PROVIDER_PRESETS[kind];

/**
 * `select_account` where the preset says the provider takes it, or an issuer whose discovery
 * lists it in `prompt_values_supported`; else `login`, which OpenID Connect Core 1.0 section
 * 3.1.2.1 defines for every provider; none where the preset says so (Apple).
 */
function promptOf(p: ProviderConfig, advertised: unknown): ProviderClient['prompt'] {
  const preset = presetOf(p.kind);
  if (preset && preset.prompt !== undefined) return preset.prompt;
  if (p.kind === 'github') return 'select_account';
  return Array.isArray(advertised) && advertised.includes('select_account') ? 'select_account' : 'login';
}

/** The issuer of an OpenID Connect provider: given, or its preset's. */
function issuerOf(p: ProviderConfig): string {
  const preset = presetOf(p.kind);
  if (p.kind === 'microsoft') return `https://login.microsoftonline.com/${p.tenant ?? 'common'}/v2.0`;
  if (preset?.protocol === 'oidc') return p.issuer ?? preset.issuer ?? '';
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
  if (p.name) return p.name;
  if (p.kind === 'github') return 'GitHub';
  const preset = presetOf(p.kind);
  return preset?.protocol === 'oauth2' ? preset.label : preset?.issuer ? preset.label : new URL(issuerOf(p)).hostname;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
/** A claim that says yes: `true`, or Apple's text `"true"`. */
const yes = (v: unknown): boolean => v === true || v === 'true';
const NO_EXCHANGE_STEP = async () => {};

/** How the client authenticates at the token endpoint: Apple's JWT secret, the configured secret, or PKCE alone. */
function clientAuth(p: ProviderConfig, basic: boolean) {
  if (p.kind === 'apple' && p.apple) {
    const apple = appleClientSecret(p.clientId, p.apple);
    return { auth: apple.auth, beforeExchange: async () => void (await apple.renew()) };
  }
  if (!p.clientSecret) return { auth: oidc.None(), beforeExchange: NO_EXCHANGE_STEP };
  return {
    auth: basic ? oidc.ClientSecretBasic(p.clientSecret) : oidc.ClientSecretPost(p.clientSecret),
    beforeExchange: NO_EXCHANGE_STEP,
  };
}

async function openIdClient(p: ProviderConfig): Promise<ProviderClient> {
  const issuer = new URL(issuerOf(p));
  const insecure = insecureAllowed(issuer);
  const { auth, beforeExchange } = clientAuth(p, false);
  const config = await oidc.discovery(
    issuer,
    p.clientId,
    undefined,
    auth,
    insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );
  const preset = presetOf(p.kind);
  return {
    id: p.id,
    label: providerLabel(p),
    config,
    scope: (p.scopes ?? preset?.scopes ?? ['openid', 'email', 'profile']).join(' '),
    prompt: promptOf(p, config.serverMetadata().prompt_values_supported),
    responseMode: preset?.protocol === 'oidc' && 'formPost' in preset ? 'form_post' : null,
    openId: true,
    beforeExchange,
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
        emailVerified: yes(info.email_verified),
        username: text(info.preferred_username) ?? text(info.nickname),
        realname: text(info.name),
      };
    },
  };
}

/** A GET of a user API with the access token: its JSON, or `provider_unavailable`. */
async function readApi(config: oidc.Configuration, token: string, url: URL, accept: string): Promise<unknown> {
  const headers = new Headers({ accept });
  const res = await oidc.fetchProtectedResource(config, token, url, 'GET', undefined, headers);
  if (!res.ok)
    throw userErrors.provider_unavailable({ message: `The provider answered ${res.status} to ${url.pathname}.` });
  return res.json();
}

/**
 * An OAuth2 provider without OpenID Connect, from its preset's declaration
 * (provider-presets.ts): its endpoints (at `issuer`'s origin when given), the token request's
 * authentication, PKCE and `state` as for every provider, then its user API read by the
 * declared paths.
 */
function oauth2Client(p: ProviderConfig, preset: OAuth2Preset): ProviderClient {
  const at = (endpoint: string) => endpointAt(endpoint, p.issuer);
  const authorization = at(preset.authorization);
  const insecure = insecureAllowed(authorization);
  const { auth, beforeExchange } = clientAuth(p, preset.auth === 'basic');
  const config = new oidc.Configuration(
    {
      issuer: authorization.origin,
      authorization_endpoint: authorization.href,
      token_endpoint: at(preset.token).href,
    },
    p.clientId,
    undefined,
    auth,
  );
  if (insecure) oidc.allowInsecureRequests(config);
  return {
    id: p.id,
    label: providerLabel(p),
    config,
    scope: (p.scopes ?? preset.scopes).join(' '),
    prompt: preset.prompt ?? null,
    responseMode: null,
    openId: false,
    beforeExchange,
    async profile(tokens) {
      const user = await readApi(config, tokens.access_token, at(preset.user), 'application/json');
      const { subject, ...profile } = readProfile(user, preset.profile);
      if (subject === null) throw userErrors.provider_unavailable({ message: `${preset.label} sent no user id.` });
      return { subject, ...profile };
    },
  };
}

const GITHUB_JSON = 'application/vnd.github+json';

/** GitHub (or a GitHub Enterprise server at `issuer`): OAuth2 with PKCE, then its user API and its emails. */
function githubClient(p: ProviderConfig): ProviderClient {
  const server = new URL(p.issuer ?? 'https://github.com');
  const insecure = insecureAllowed(server);
  const api = server.origin === 'https://github.com' ? 'https://api.github.com' : `${server.origin}/api/v3`;
  const { auth, beforeExchange } = clientAuth(p, false);
  const config = new oidc.Configuration(
    {
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/login/oauth/authorize`,
      token_endpoint: `${server.origin}/login/oauth/access_token`,
    },
    p.clientId,
    undefined,
    auth,
  );
  if (insecure) oidc.allowInsecureRequests(config);
  const get = (path: string, token: string) => readApi(config, token, new URL(`${api}${path}`), GITHUB_JSON);
  return {
    id: p.id,
    label: providerLabel(p),
    config,
    scope: (p.scopes ?? ['read:user', 'user:email']).join(' '),
    prompt: promptOf(p, undefined),
    responseMode: null,
    openId: false,
    beforeExchange,
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
      client = (async () => {
        if (p.kind === 'github') return githubClient(p);
        const preset = presetOf(p.kind);
        return preset?.protocol === 'oauth2' ? oauth2Client(p, preset) : openIdClient(p);
      })().catch((err: unknown) => {
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
