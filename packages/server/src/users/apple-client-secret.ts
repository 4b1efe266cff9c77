import { importPKCS8, SignJWT } from 'jose';
import type { ClientAuth } from 'openid-client';
import * as oidc from 'openid-client';

/** Apple's audience of a client secret, whatever the issuer it is sent to. */
const APPLE_AUDIENCE = 'https://appleid.apple.com';
/** How long one secret lives (Apple takes up to six months); a new one is made ten minutes before its end. */
const SECRET_SECONDS = 3600;
const RENEW_BEFORE_MS = 10 * 60_000;

export interface AppleKey {
  teamId: string;
  keyId: string;
  /** The PKCS #8 PEM of the key made in Apple's developer account ("Sign in with Apple" enabled). */
  privateKey: string;
}

/**
 * Sign in with Apple's client secret (developer.apple.com, "Creating a client secret"): not a
 * fixed text but a JWT signed ES256 with the team's key, `kid` the key's id, issued by the team
 * for the client id (`sub`) to Apple (`aud`). Made with jose, renewed before it ends; `auth` is
 * the token request's authentication (`client_secret_post` with the current one), `renew` is
 * awaited before each code exchange (users/provider-ops.ts).
 */
export function appleClientSecret(clientId: string, key: AppleKey, now: () => number = Date.now) {
  let secret = '';
  let renewAt = 0;
  const signingKey = importPKCS8(key.privateKey, 'ES256');
  const auth: ClientAuth = (as, client, body, headers) => oidc.ClientSecretPost(secret)(as, client, body, headers);
  return {
    auth,
    /** The current secret, made anew when it is near its end. */
    async renew(): Promise<string> {
      if (now() < renewAt) return secret;
      const issued = Math.floor(now() / 1000);
      secret = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: key.keyId })
        .setIssuer(key.teamId)
        .setSubject(clientId)
        .setAudience(APPLE_AUDIENCE)
        .setIssuedAt(issued)
        .setExpirationTime(issued + SECRET_SECONDS)
        .sign(await signingKey);
      renewAt = (issued + SECRET_SECONDS) * 1000 - RENEW_BEFORE_MS;
      return secret;
    },
  };
}
