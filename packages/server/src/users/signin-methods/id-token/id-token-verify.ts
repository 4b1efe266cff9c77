import { createHash } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { ProviderConfig } from '../../../core/config.js';
import type { RoostError } from '../../../core/errors.js';
import type { ProviderClient, ProviderProfile } from '../../provider-clients.js';
import { userErrors } from '../../user-errors.js';
import { idTokenErrors } from './id-token-errors.js';

/** Algorithms an ID token may be signed with when discovery names none (OpenID Connect's default). */
const DEFAULT_ALGORITHMS = ['RS256'];

const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/**
 * What a nonce in the token must be: the app's nonce itself, or for Apple its SHA-256 in hex,
 * since Apple's SDKs hand Apple the hash and the app keeps the nonce
 * (developer.apple.com, "Authenticating users with Sign in with Apple").
 */
function expectedNonce(provider: ProviderConfig, nonce: string): string {
  return provider.kind === 'apple' ? createHash('sha256').update(nonce).digest('hex') : nonce;
}

/** A jose failure as Roost's: the provider's keys out of reach, or a token that fails a check. */
function verifyFailure(err: unknown): RoostError {
  if (err instanceof errors.JWKSTimeout || err instanceof TypeError)
    return userErrors.provider_unavailable({ cause: err });
  const reason = err instanceof errors.JWTExpired ? 'expired' : 'invalid';
  return idTokenErrors.invalid_id_token({ cause: err, fields: [['idToken', reason]] });
}

/**
 * Checks ID tokens that apps got from a provider on the device (Sign in with Apple, Google's
 * Credential Manager, any OpenID Connect issuer) with jose (docs/decisions.md, "ID tokens from
 * apps"): the signature against the provider's published keys (its discovered `jwks_uri`, fetched
 * and cached by `createRemoteJWKSet`), only the algorithms its discovery lists (never `none` nor
 * a shared secret), the issuer, an audience among the provider's client ids (`clientId` and
 * `clientIds`: an app's iOS, Android and web clients), the expiry against Roost's clock, and
 * the nonce.
 */
export function createIdTokenVerifier() {
  const keySets = new WeakMap<ProviderClient, JWTVerifyGetKey>();

  function keysOf(client: ProviderClient): JWTVerifyGetKey {
    let keys = keySets.get(client);
    if (!keys) {
      const uri = client.config.serverMetadata().jwks_uri;
      if (!uri) throw userErrors.provider_unavailable({ message: 'The provider publishes no keys (jwks_uri).' });
      keys = createRemoteJWKSet(new URL(uri));
      keySets.set(client, keys);
    }
    return keys;
  }

  return async function verify(
    provider: ProviderConfig,
    client: ProviderClient,
    idToken: string,
    nonce: string,
    now: number,
  ): Promise<{ profile: ProviderProfile; claims: JWTPayload }> {
    if (!client.openId)
      throw idTokenErrors.invalid_id_token({
        message: 'This provider issues no ID tokens.',
        fields: [['provider', 'invalid']],
      });
    const metadata = client.config.serverMetadata();
    const advertised = metadata.id_token_signing_alg_values_supported;
    const algorithms = (advertised?.length ? advertised : DEFAULT_ALGORITHMS).filter(
      (alg) => alg !== 'none' && !alg.startsWith('HS'),
    );
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(idToken, keysOf(client), {
        issuer: metadata.issuer,
        audience: [provider.clientId, ...(provider.clientIds ?? [])],
        algorithms,
        currentDate: new Date(now),
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      throw verifyFailure(err);
    }
    if (claims.nonce !== expectedNonce(provider, nonce))
      throw idTokenErrors.invalid_id_token({ fields: [['nonce', 'invalid']] });
    const subject = text(claims.sub);
    if (!subject) throw idTokenErrors.invalid_id_token({ fields: [['idToken', 'invalid']] });
    return {
      claims,
      profile: {
        subject,
        email: text(claims.email),
        // Apple sends it as the text "true".
        emailVerified: claims.email_verified === true || claims.email_verified === 'true',
        username: text(claims.preferred_username) ?? text(claims.nickname),
        realname: text(claims.name),
      },
    };
  };
}

export type IdTokenVerifier = ReturnType<typeof createIdTokenVerifier>;
