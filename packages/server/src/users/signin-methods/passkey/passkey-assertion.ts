import type { AuthenticationResponseJSON, VerifiedAuthenticationResponse } from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { hashToken } from '../../../core/ids.js';
import type { UserContext } from '../../user-context.js';
import type { User } from '../../user-repo.js';
import type { PasskeyEnv } from './passkey-env.js';
import { passkeyErrors } from './passkey-errors.js';

/** The challenge a client sent back, read from its clientDataJSON (base64url JSON). */
export function challengeOf(clientDataJSON: unknown): string {
  try {
    const parsed = JSON.parse(Buffer.from(String(clientDataJSON), 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof parsed.challenge === 'string' ? parsed.challenge : '';
  } catch {
    return '';
  }
}

/**
 * Whether the assertion's user handle names the credential's owner (WebAuthn L2 §7.2 step 6):
 * the handle is the account id Roost gave at registration (`userID` in passkey-ops.ts, its UTF-8
 * bytes in base64url). The signature does not cover the handle, so it is compared here. A sign-in
 * without a name must carry it (the passkey names the account); a second step, whose account is
 * known, may leave it out.
 */
function handleMatches(userHandle: unknown, ownerId: string, required: boolean): boolean {
  if (userHandle === undefined || userHandle === null || userHandle === '') return !required;
  return typeof userHandle === 'string' && Buffer.from(userHandle, 'base64url').equals(Buffer.from(ownerId, 'utf8'));
}

/**
 * The account and verification of a sign-in's assertion (passkey-ops.ts, and the second step of
 * users/signin-challenge.ts), or `invalid_passkey` whatever is wrong: an unknown credential, another
 * account's, a user handle that is not the owner's, a used, expired or foreign challenge, a wrong
 * origin, RP ID or signature, a counter that did not move forward. `expectedUser`: the account a
 * second step names (null: any).
 */
export async function verifiedAssertion(
  ctx: UserContext,
  env: PasskeyEnv,
  response: AuthenticationResponseJSON,
  expectedUser: string | null,
): Promise<{ user: User; userVerified: boolean }> {
  const { clock } = ctx;
  const { repo: passkeys, settings } = env;
  const refused = () => passkeyErrors.invalid_passkey();
  const challenge = challengeOf(response.response.clientDataJSON);
  const owner = await passkeys.takeChallenge(hashToken(challenge), 'signin', clock.now());
  if (owner === undefined || owner !== expectedUser) throw refused();
  const stored = await passkeys.byId(response.id);
  if (!stored || (expectedUser !== null && stored.userId !== expectedUser)) throw refused();
  if (!handleMatches(response.response.userHandle, stored.userId, expectedUser === null)) throw refused();
  const { verifyAuthenticationResponse } = await webauthn();
  let verification: VerifiedAuthenticationResponse;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: settings.origins,
      expectedRPID: settings.rpId,
      credential: {
        id: stored.id,
        publicKey: Buffer.from(stored.publicKey, 'base64url'),
        counter: stored.counter,
        transports: stored.transports,
      },
      requireUserVerification: false,
    });
  } catch (err) {
    throw passkeyErrors.invalid_passkey({ cause: err });
  }
  if (!verification.verified) throw refused();
  if (!(await passkeys.used(stored.id, verification.authenticationInfo.newCounter, clock.now()))) throw refused();
  const user = await ctx.repo.byId(stored.userId);
  if (user?.state !== 'active') throw refused();
  return { user, userVerified: verification.authenticationInfo.userVerified };
}
