import { z } from 'zod';
import { pageUrlSchema } from './config-parts.js';
import { isGroupName } from './permissions.js';

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

/** A PEM text of one kind (a certificate, a private key), as the IdP's and the team's tools write them. */
const pemSchema = (label: 'CERTIFICATE' | 'PRIVATE KEY') => z.string().min(1).max(20_000).includes(`${label}-----`);
/** An attribute's name in an assertion (`email`, `urn:oid:0.9.2342.19200300.100.1.3`, a claim URI). */
const attributeName = z.string().min(1).max(500);
/** A mail domain a connection serves, in lower case (`acme.example`). */
const mailDomain = z
  .string()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'a mail domain in lower case');
/**
 * A SAML 2.0 connection (users/signin-methods/saml/; docs/users.md, "SAML single sign-on"): Roost
 * is the service provider of one identity provider (`idp`: its entity id, its single sign-on URL
 * of the HTTP-Redirect binding, its signing certificates; or its metadata XML, which holds them).
 * `sp` names Roost to it (entity id and ACS URL default under `publicUrl`) and may hold a key
 * pair: AuthnRequests are then signed and
 * assertions encrypted to it decrypted. `attributes` says which attributes hold the email, the
 * real name, the user name and the groups; `groups` maps the IdP's group values to Roost groups
 * (only mapped ones are given). `domains` route "sign in with your company" by the mail address
 * and are the domains whose addresses count as verified. `idpInitiated` (off by default) takes
 * answers the IdP sends unasked.
 */
const samlConnectionSchema = z
  .object({
    // At most 26: its links are kept as `saml:<id>` among the providers' (provider_links.provider, 32).
    id: z.string().regex(/^[a-z][a-z0-9-]{0,25}$/, 'lower-case letters, digits and -, starting with a letter'),
    name: z.string().min(1).max(60).optional(),
    // The IdP's three facts, or its metadata XML that holds them
    // (users/signin-methods/saml/saml-metadata.ts).
    idp: z
      .object({
        entityId: z.string().min(1).max(1000).optional(),
        ssoUrl: pageUrlSchema.pipe(z.string().max(2000)).optional(),
        certs: z.array(pemSchema('CERTIFICATE')).min(1).max(5).optional(),
        metadata: z.string().min(1).max(200_000).includes('EntityDescriptor').optional(),
      })
      .strict()
      .refine(
        (idp) =>
          idp.metadata !== undefined
            ? idp.entityId === undefined && idp.ssoUrl === undefined && idp.certs === undefined
            : idp.entityId !== undefined && idp.ssoUrl !== undefined && idp.certs !== undefined,
        { message: 'either entityId, ssoUrl and certs, or metadata alone' },
      ),
    sp: z
      .object({
        entityId: z.string().min(1).max(1000).optional(),
        acsUrl: pageUrlSchema.pipe(z.string().max(2000)).optional(),
        privateKey: pemSchema('PRIVATE KEY').optional(),
        cert: pemSchema('CERTIFICATE').optional(),
      })
      .strict()
      .refine((sp) => (sp.privateKey === undefined) === (sp.cert === undefined), {
        message: 'the key pair needs both privateKey and cert',
      })
      .prefault({}),
    /** Refuse assertions that are not encrypted to `sp`'s key. */
    requireEncryption: z.boolean().default(false),
    attributes: z
      .object({
        email: attributeName.default('email'),
        realname: attributeName.default('displayName'),
        username: attributeName.optional(),
        groups: attributeName.default('groups'),
      })
      .strict()
      .prefault({}),
    groups: z
      .record(z.string().min(1).max(500), z.string().refine(isGroupName, 'a group name'))
      .refine((m) => Object.keys(m).length <= 100, 'at most 100 groups')
      .default({}),
    domains: z.array(mailDomain).max(50).default([]),
    idpInitiated: z.boolean().default(false),
    signup: z.enum(['auto', 'signupDirect', 'signupOptin', 'signupReview', 'off']).default('auto'),
  })
  .strict()
  .refine((c) => !c.requireEncryption || c.sp.privateKey !== undefined, {
    message: 'encrypted assertions need the key pair of sp',
    path: ['requireEncryption'],
  });
export type SamlConnectionConfig = z.output<typeof samlConnectionSchema>;
const samlConnectionsSchema = z
  .array(samlConnectionSchema)
  .max(50)
  .refine((list) => new Set(list.map((c) => c.id)).size === list.length, { message: 'two connections share an id' })
  .refine((list) => new Set(list.flatMap((c) => c.domains)).size === list.flatMap((c) => c.domains).length, {
    message: 'two connections share a domain',
  });

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
  /** SAML 2.0 connections, Roost the service provider (docs/users.md, "SAML single sign-on"). */
  saml: samlConnectionsSchema.default([]),
};
