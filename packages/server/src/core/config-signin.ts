import { z } from 'zod';
import { pageUrlSchema } from './config-parts.js';

/*
 * The sign-in providers' and anonymous accounts' parts of the configuration's schema (config.ts
 * `users`; the providers are runtime settings too, core/runtime-settings.ts), apart from
 * config-parts.ts, which holds the other parts.
 */

/**
 * The kinds of sign-in provider: `oidc` (any issuer), `github`, and the presets of
 * users/provider-presets.ts (one declaration each; its unit test checks the two lists agree).
 */
const PROVIDER_KINDS = [
  'oidc',
  'github',
  'google',
  'microsoft',
  'gitlab',
  'apple',
  'linkedin',
  'slack',
  'twitch',
  'keycloak',
  'okta',
  'auth0',
  'authentik',
  'zitadel',
  'discord',
  'facebook',
  'x',
  'spotify',
  'bitbucket',
] as const;
/** The kinds whose issuer is the team's own: a Keycloak realm, an Okta or Auth0 tenant, an instance. */
const OWN_ISSUER_KINDS: readonly string[] = ['oidc', 'keycloak', 'okta', 'auth0', 'authentik', 'zitadel'];
/**
 * A sign-in provider (users/provider-clients.ts): `oidc` is any OpenID Connect provider found by
 * discovery at `issuer`, as are the presets of the team's own issuer (`keycloak`, `okta`, `auth0`,
 * `authentik`, `zitadel`); the other presets fill the issuer or the OAuth2 endpoints in
 * (users/provider-presets.ts: `microsoft` with `tenant`, `common` by default; `gitlab` with
 * `issuer` for a self-managed one; an OAuth2 preset's `issuer` moves its endpoints to that
 * origin); `github` is OAuth2 with GitHub's user API (`issuer`: a GitHub Enterprise server).
 * `signup` picks the sign-up policy of a first sign-in; `auto` takes the first one open
 * (docs/users.md, "Providers").
 */
const providerSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case letters, digits and -, starting with a letter'),
    kind: z.enum([...PROVIDER_KINDS]),
    name: z.string().min(1).max(60).optional(),
    clientId: z.string().min(1).max(500),
    clientSecret: z.string().min(1).max(2000).optional(),
    /**
     * More client ids whose ID tokens an app may sign in with (`signinIdToken`: the iOS, Android
     * and web clients of one app each have their own); `clientId` is always one.
     */
    clientIds: z.array(z.string().min(1).max(500)).max(20).optional(),
    /**
     * Sign in with Apple's client secret, a JWT made from the team's key (users/provider-clients.ts):
     * the team id, the key's id and the key itself (PEM, PKCS #8, as Apple hands it out).
     */
    apple: z
      .object({
        teamId: z.string().regex(/^[A-Z0-9]{10}$/, 'the ten characters of the team id'),
        keyId: z.string().regex(/^[A-Z0-9]{10}$/, 'the ten characters of the key id'),
        privateKey: z.string().min(1).max(4000).includes('PRIVATE KEY'),
      })
      .strict()
      .optional(),
    issuer: pageUrlSchema.pipe(z.string().max(2000)).optional(),
    tenant: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,100}$/)
      .optional(),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/))
      .max(30)
      .optional(),
    signup: z.enum(['auto', 'signupDirect', 'signupOptin', 'signupReview', 'off']).default('auto'),
  })
  .strict()
  .refine((p) => !OWN_ISSUER_KINDS.includes(p.kind) || p.issuer !== undefined, {
    message: 'this provider needs its issuer (a realm, a tenant, an instance)',
    path: ['issuer'],
  });
export type ProviderConfig = z.output<typeof providerSchema>;
export const providersSchema = z
  .array(providerSchema)
  .max(20)
  .refine((list) => new Set(list.map((p) => p.id)).size === list.length, { message: 'two providers share an id' });
/**
 * Anonymous accounts (users/signin-methods/anonymous/; docs/users.md, "Anonymous accounts"): how many
 * one client address may make per window, how many may exist at once, and after how many days
 * without use one is swept. Whether they can be made at all is the permission `signinAnonymous`.
 */
const anonymousUsersOptions = z
  .object({
    perAddress: z.number().int().min(1).default(10),
    windowSeconds: z.number().int().min(1).default(3600),
    max: z.number().int().min(1).default(100_000),
    sweepDays: z.number().int().min(1).max(3650).default(30),
  })
  .strict();
/** Where a provider sign-in may end besides Roost's own pages: a URL, or a prefix ending in `/`. */
export const providerRedirectsSchema = z.array(pageUrlSchema.pipe(z.string().max(2000))).max(50);

/** The `users` keys of the sign-in providers and anonymous accounts (config.ts spreads them into `users`). */
export const signinUserKeys = {
  /** Sign-in providers: OpenID Connect and OAuth2 (docs/users.md, "Providers"). */
  providers: providersSchema.default([]),
  /** Apps a provider sign-in may return to, with a one-time grant (docs/users.md, "Providers"). */
  providerRedirects: providerRedirectsSchema.default([]),
  /**
   * A first provider sign-in whose email the provider says is verified joins the account of
   * that email, instead of being refused as taken. Off by default.
   */
  linkProvidersByEmail: z.boolean().default(false),
  anonymous: anonymousUsersOptions.prefault({}),
};
