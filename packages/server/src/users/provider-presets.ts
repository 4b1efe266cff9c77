import type { ProviderConfig } from '../core/config.js';

/**
 * The providers Roost knows by name, each a declaration over openid-client (provider-clients.ts
 * makes the client; no preset has a flow of its own): an OpenID Connect provider is its issuer
 * (discovery does the rest, and the ID token and userinfo are read the same way for all), an
 * OAuth2-only one its endpoints, how the client authenticates at the token endpoint, the scopes
 * and where the profile's fields are in its user API's answer. docs/users.md, "Providers", lists
 * them; provider-presets.test.ts beside it checks each declaration.
 */

/** Where a profile's fields are in a user API's JSON answer: dot paths (`data.id`). */
export interface ProfilePaths {
  subject: string;
  email?: string;
  /** A true (or `"true"`) value here says the email is verified; absent: never verified. */
  emailVerified?: string;
  username?: string;
  realname?: string;
}

export interface OpenIdPreset {
  protocol: 'oidc';
  label: string;
  /** The issuer (discovery at `<issuer>/.well-known/openid-configuration`); null: the configuration's `issuer`. */
  issuer: string | null;
  scopes: readonly string[];
  /**
   * `prompt` sent with each sign-in (docs/security.md, ASVS 7.6.2): `select_account` where the
   * provider takes it, `login` by OpenID Connect's definition, null where the provider asks the
   * person anyway and takes no `prompt` (Apple).
   */
  prompt?: 'select_account' | null;
  /** `response_mode=form_post`: the provider posts the answer back (Apple, when name or email is asked). */
  formPost?: true;
}

export interface OAuth2Preset {
  protocol: 'oauth2';
  label: string;
  authorization: string;
  token: string;
  /** The user API read with the access token. */
  user: string;
  profile: ProfilePaths;
  /** How the client proves itself at the token endpoint: in the body, or HTTP Basic. */
  auth: 'post' | 'basic';
  scopes: readonly string[];
  prompt?: 'select_account' | 'consent';
}

export type ProviderPreset = OpenIdPreset | OAuth2Preset;

/** An OpenID Connect provider whose issuer is the team's own (a realm, a tenant, an instance). */
const ownIssuer = (label: string): OpenIdPreset => ({
  protocol: 'oidc',
  label,
  issuer: null,
  scopes: ['openid', 'email', 'profile'],
});

/** Every named kind but `oidc` (any issuer) and `github` (its user API and emails, provider-clients.ts). */
export const PROVIDER_PRESETS = {
  google: {
    protocol: 'oidc',
    label: 'Google',
    issuer: 'https://accounts.google.com',
    scopes: ['openid', 'email', 'profile'],
    prompt: 'select_account',
  },
  microsoft: {
    protocol: 'oidc',
    label: 'Microsoft',
    // `{tenant}` is the configuration's `tenant` (provider-clients.ts `issuerOf`).
    issuer: 'https://login.microsoftonline.com/{tenant}/v2.0',
    scopes: ['openid', 'email', 'profile'],
    prompt: 'select_account',
  },
  gitlab: { protocol: 'oidc', label: 'GitLab', issuer: 'https://gitlab.com', scopes: ['openid', 'email', 'profile'] },
  apple: {
    protocol: 'oidc',
    label: 'Apple',
    issuer: 'https://appleid.apple.com',
    scopes: ['openid', 'email', 'name'],
    prompt: null,
    formPost: true,
  },
  linkedin: {
    protocol: 'oidc',
    label: 'LinkedIn',
    issuer: 'https://www.linkedin.com/oauth',
    scopes: ['openid', 'email', 'profile'],
  },
  slack: { protocol: 'oidc', label: 'Slack', issuer: 'https://slack.com', scopes: ['openid', 'email', 'profile'] },
  twitch: {
    protocol: 'oidc',
    label: 'Twitch',
    issuer: 'https://id.twitch.tv/oauth2',
    scopes: ['openid', 'user:read:email'],
  },
  keycloak: ownIssuer('Keycloak'),
  okta: ownIssuer('Okta'),
  auth0: ownIssuer('Auth0'),
  authentik: ownIssuer('Authentik'),
  zitadel: ownIssuer('Zitadel'),
  discord: {
    protocol: 'oauth2',
    label: 'Discord',
    authorization: 'https://discord.com/oauth2/authorize',
    token: 'https://discord.com/api/oauth2/token',
    user: 'https://discord.com/api/users/@me',
    profile: {
      subject: 'id',
      email: 'email',
      emailVerified: 'verified',
      username: 'username',
      realname: 'global_name',
    },
    auth: 'post',
    scopes: ['identify', 'email'],
    prompt: 'consent',
  },
  facebook: {
    protocol: 'oauth2',
    label: 'Facebook',
    authorization: 'https://www.facebook.com/v19.0/dialog/oauth',
    token: 'https://graph.facebook.com/v19.0/oauth/access_token',
    user: 'https://graph.facebook.com/me?fields=id,name,email',
    // Facebook says nothing of whether the address is verified: it never counts as such.
    profile: { subject: 'id', email: 'email', realname: 'name' },
    auth: 'post',
    scopes: ['email', 'public_profile'],
  },
  x: {
    protocol: 'oauth2',
    label: 'X',
    authorization: 'https://x.com/i/oauth2/authorize',
    token: 'https://api.x.com/2/oauth2/token',
    user: 'https://api.x.com/2/users/me',
    // X gives no email address to OAuth2 apps.
    profile: { subject: 'data.id', username: 'data.username', realname: 'data.name' },
    auth: 'basic',
    scopes: ['users.read', 'tweet.read'],
  },
  spotify: {
    protocol: 'oauth2',
    label: 'Spotify',
    authorization: 'https://accounts.spotify.com/authorize',
    token: 'https://accounts.spotify.com/api/token',
    user: 'https://api.spotify.com/v1/me',
    profile: { subject: 'id', email: 'email', realname: 'display_name' },
    auth: 'basic',
    scopes: ['user-read-email'],
  },
  bitbucket: {
    protocol: 'oauth2',
    label: 'Bitbucket',
    authorization: 'https://bitbucket.org/site/oauth2/authorize',
    token: 'https://bitbucket.org/site/oauth2/access_token',
    user: 'https://api.bitbucket.org/2.0/user',
    // Its addresses are another call (`/user/emails`): Roost reads none, the account gets none.
    profile: { subject: 'uuid', username: 'username', realname: 'display_name' },
    auth: 'basic',
    scopes: ['account'],
  },
} as const satisfies Record<Exclude<ProviderConfig['kind'], 'oidc' | 'github'>, ProviderPreset>;

/** The value at a dot path of a JSON answer (`data.id`), or undefined. */
function valueAt(json: unknown, path: string): unknown {
  let at: unknown = json;
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** What a profile holds (provider-clients.ts `ProviderProfile`), read from a user API's answer by the paths. */
export function readProfile(user: unknown, paths: ProfilePaths) {
  const text = (path: string | undefined) => {
    const v = path ? valueAt(user, path) : undefined;
    return typeof v === 'string' && v.length > 0 ? v : null;
  };
  const subject = valueAt(user, paths.subject);
  const verified = paths.emailVerified ? valueAt(user, paths.emailVerified) : false;
  return {
    subject: typeof subject === 'number' || (typeof subject === 'string' && subject !== '') ? String(subject) : null,
    email: text(paths.email),
    emailVerified: verified === true || verified === 'true',
    username: text(paths.username),
    realname: text(paths.realname),
  };
}

/**
 * An OAuth2 preset's endpoint, at the configured `issuer`'s origin when one is given (a proxy in
 * front of the provider, or a stand-in under test); the provider's own address otherwise.
 */
export function endpointAt(endpoint: string, issuer: string | undefined): URL {
  const url = new URL(endpoint);
  if (!issuer) return url;
  const base = new URL(issuer);
  return new URL(`${url.pathname}${url.search}`, base.origin);
}
