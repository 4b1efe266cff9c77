import { z } from 'zod';
import { identityPolicySchema, seconds, pageUrlSchema, secondFactorGroupsSchema } from './config-parts.js';
import { signinUserKeys } from './config-signin.js';
import { smsOptions } from './config-sms.js';

/**
 * The proof of work of sign-ups, sign-ins, resets and mailed sign-ins (users/proof-of-work.ts,
 * docs/security.md "Proof of work under attack"): `off`, `auto` (while more than `attackThreshold`
 * of those calls come in a minute) or `always`.
 */
const proofOfWorkSchema = z
  .object({
    mode: z.enum(['off', 'auto', 'always']).default('off'),
    /** PBKDF2-SHA-256 iterations of one try. */
    cost: z.number().int().min(1).max(100_000).default(1000),
    /** The tries a client needs lie between these (the secret counter is drawn from them). */
    counterMin: z.number().int().min(0).max(10_000_000).default(1000),
    counterMax: z.number().int().min(1).max(10_000_000).default(5000),
    expiresSeconds: z.number().int().min(10).max(3600).default(300),
    attackThreshold: z.number().int().min(1).default(60),
    attackHoldSeconds: z.number().int().min(1).max(86_400).default(600),
  })
  .strict()
  .refine((p) => p.counterMin <= p.counterMax, { message: 'counterMin must not exceed counterMax' });

/**
 * The breached-password check of every chosen password (users/breached-passwords.ts,
 * docs/security.md "Breached passwords"): off by default.
 */
const breachedPasswordsSchema = z
  .object({
    enabled: z.boolean().default(false),
    rangeUrl: pageUrlSchema.default('https://api.pwnedpasswords.com/range/'),
    minCount: z.number().int().min(1).default(1),
    timeoutMs: z.number().int().min(100).max(30_000).default(3000),
    onUnavailable: z.enum(['allow', 'refuse']).default('allow'),
  })
  .strict();

/** `users` of the boot configuration (core/config.ts): the identity service's settings (docs/configuration.md). */
export const userOptions = z
  .object({
    /** What identifies a user at sign-in, token and reset: the name, the email or either. */
    identityPolicy: identityPolicySchema.default('either'),
    tokenLifetimeSeconds: seconds.default(14 * 24 * 3600),
    /**
     * 32 random bytes, base64 (`openssl rand -base64 32`): seals the second factors' secrets in
     * the database (users/secret-box.ts). The same key for every process; keep it out of backups.
     */
    secretsKey: z
      .string()
      .refine((k) => /^[A-Za-z0-9+/]{43}=$/.test(k) && Buffer.from(k, 'base64').length === 32, {
        message: 'give 32 random bytes as base64 (openssl rand -base64 32)',
      })
      .optional(),
    /** The longest a session lives however much it is used; then its user signs in again. */
    sessionMaxLifetimeSeconds: seconds.default(90 * 24 * 3600),
    /** How long a process may answer from its memory of a session; 0 always asks the database. */
    sessionCacheSeconds: z.number().min(0).max(60).default(2),
    activationLifetimeSeconds: seconds.default(3 * 24 * 3600),
    verifyEmailLifetimeSeconds: seconds.default(24 * 3600),
    resetLifetimeSeconds: seconds.default(3600),
    passwordMinLength: z.number().int().min(4).max(128).default(8),
    /**
     * argon2id's cost for new password hashes (users/passwords.ts): by default OWASP's 19 MiB
     * and 2 passes. A hash made at another cost still verifies and is made anew at the next
     * sign-in.
     */
    passwordHashing: z
      .object({
        memoryKiB: z
          .number()
          .int()
          .min(64)
          .max(4 * 1024 * 1024),
        iterations: z.number().int().min(1).max(100),
      })
      .strict()
      .default({ memoryKiB: 19_456, iterations: 2 }),
    nameMinLength: z.number().int().min(1).max(40).default(3),
    dataMaxLength: z
      .number()
      .int()
      .min(0)
      .max(1024 * 1024)
      .default(10_000),
    /** Pages the mails link to; by default Roost's own pages under `publicUrl`. */
    activationUrl: pageUrlSchema.optional(),
    verifyEmailUrl: pageUrlSchema.optional(),
    resetPasswordUrl: pageUrlSchema.optional(),
    /** Failed sign-ins of one account before it is locked (docs/security.md, "Guessing is slowed"). */
    lockoutThreshold: z.number().int().min(1).default(10),
    /** The first lock; each further lock in a row lasts twice as long, up to `lockoutMaxSeconds`. */
    lockoutSeconds: seconds.default(60),
    lockoutMaxSeconds: seconds.default(15 * 60),
    /** How long a mailed sign-in code and link work (docs/users.md, "Sign-in by mail"). */
    signinCodeLifetimeSeconds: seconds.default(600),
    /** Members of these groups sign in with a second factor (docs/users.md, "Second factor"). */
    secondFactorGroups: secondFactorGroupsSchema.default([]),
    /**
     * The WebAuthn relying party of passkeys (docs/users.md, "Passkeys"): by default the host
     * of `publicUrl`; pages of other origins that register or use passkeys must be under it.
     */
    passkeyRpId: z
      .string()
      .regex(/^[a-z0-9.-]{1,253}$/, 'a host name such as example.com')
      .optional(),
    /** Origins whose pages may use passkeys; by default `publicUrl`'s and `corsOrigins`. */
    passkeyOrigins: z.array(pageUrlSchema).max(50).optional(),
    // Sign-in providers, their redirects, linking by email and anonymous accounts (config-signin.ts).
    ...signinUserKeys,
    /**
     * Days a device may skip the second factor after a second step that asked to trust it
     * (users/trusted-devices.ts); 0: no device is trusted.
     */
    trustedDeviceDays: z.number().int().min(0).max(365).default(0),
    /** Mail an account at a sign-in from a device it never signed in from (users/new-device-mail.ts). */
    newDeviceMail: z.boolean().default(false),
    /** The proof of work of sign-ups, sign-ins and resets (users/proof-of-work.ts): off by default. */
    proofOfWork: proofOfWorkSchema.prefault({}),
    /** The breached-password check of chosen passwords (users/breached-passwords.ts): off by default. */
    breachedPasswords: breachedPasswordsSchema.prefault({}),
    /** Codes by SMS (users/signin-methods/sms-code/): off without a sender. */
    sms: smsOptions.prefault({}),
  })
  .strict();

/** A scope word of OAuth (RFC 6749, 3.3): printable ASCII without space, `"` and `\`. */
const scopeWord = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/, 'a scope is printable ASCII without spaces');

/**
 * An application that signs in with Roost accounts (identity-provider/; docs/users.md, "Roost
 * as an identity provider"). With `secret` it is confidential (a server); without, public (a
 * browser or native app), whose only proof is PKCE.
 */
export const idpClientOptions = z
  .object({
    clientId: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, '1-100 characters of A-Z, a-z, 0-9, ., _ and -'),
    /** What the consent page calls it. */
    name: z.string().min(1).max(100),
    secret: z.string().min(32, 'at least 32 characters').max(512).optional(),
    /** Where the code may be sent: compared whole, as registered. */
    redirectUris: z.array(z.url()).min(1).max(20),
    /** Where the end of a session may send the browser back. */
    postLogoutRedirectUris: z.array(z.url()).max(20).default([]),
  })
  .strict();

/** A service that takes Roost's JWT access tokens (RFC 8707 resource indicators): its URL and its scopes. */
const idpResourceOptions = z.object({ uri: z.url(), scopes: z.array(scopeWord).max(50).default([]) }).strict();

/** Roost as an OpenID Connect provider (identity-provider/), under `/oidc`; off by default. */
export const identityProviderOptions = z
  .object({
    enabled: z.boolean().default(false),
    clients: z.array(idpClientOptions).max(500).default([]),
    /** Services that verify signed access tokens against `/oidc/jwks` without calling Roost. */
    resources: z.array(idpResourceOptions).max(50).default([]),
    /** How long an access token (opaque or JWT) lives: a JWT cannot be taken back before (docs/security.md). */
    accessTokenSeconds: z.number().int().min(30).max(3600).default(300),
    /**
     * Whether `email_verified` is true: Roost keeps no proof of an address per account, so only an
     * administrator who knows every address was proven (sign-up by opt-in, no email changes) says so.
     */
    emailVerified: z.boolean().default(false),
  })
  .strict()
  .superRefine((options, ctx) => {
    const ids = options.clients.map((c) => c.clientId);
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i) ctx.addIssue({ code: 'custom', path: ['clients', i, 'clientId'], message: 'twice' });
    });
  });
