import { verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { hashToken } from '../core/ids.js';
import { userErrors } from './user-errors.js';
import type { UserContext } from './user-context.js';
import type { User } from './user-repo.js';

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
 * The account and verification of a sign-in's assertion (passkey-ops.ts, and the second step of
 * signin-challenge.ts), or `invalid_passkey` whatever is wrong: an unknown credential, another
 * account's, a used, expired or foreign challenge, a wrong origin, RP ID or signature, a counter
 * that did not move forward. `expectedUser`: the account a second step names (null: any).
 */
export async function verifiedAssertion(
  ctx: UserContext,
  response: AuthenticationResponseJSON,
  expectedUser: string | null,
): Promise<{ user: User; userVerified: boolean }> {
  const { passkeys, clock, settings } = ctx;
  const refused = () => userErrors.invalid_passkey();
  const challenge = challengeOf(response.response.clientDataJSON);
  const owner = await passkeys.takeChallenge(hashToken(challenge), 'signin', clock.now());
  if (owner === undefined || owner !== expectedUser) throw refused();
  const stored = await passkeys.byId(response.id);
  if (!stored || (expectedUser !== null && stored.userId !== expectedUser)) throw refused();
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: settings.passkeyOrigins,
      expectedRPID: settings.passkeyRpId,
      credential: {
        id: stored.id,
        publicKey: Buffer.from(stored.publicKey, 'base64url'),
        counter: stored.counter,
        transports: stored.transports,
      },
      requireUserVerification: false,
    });
  } catch (err) {
    throw userErrors.invalid_passkey({ cause: err });
  }
  if (!verification.verified) throw refused();
  if (!(await passkeys.used(stored.id, verification.authenticationInfo.newCounter, clock.now()))) throw refused();
  const user = await ctx.repo.byId(stored.userId);
  if (user?.state !== 'active') throw refused();
  return { user, userVerified: verification.authenticationInfo.userVerified };
}
