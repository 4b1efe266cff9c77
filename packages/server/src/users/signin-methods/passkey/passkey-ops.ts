import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { hashToken } from '../../../core/ids.js';
import { parseInput } from '../../../core/validation.js';
import type { StoredPasskey } from './passkey-repo.js';
import { startSession, type IssuedToken } from '../../sessions.js';
import { challengeIfNeeded, challengedUser } from '../../signin-challenge.js';
import { challengeOf, verifiedAssertion } from './passkey-assertion.js';
import type { PasskeyEnv } from './passkey-env.js';
import { passkeyErrors } from './passkey-errors.js';
import { userErrors } from '../../user-errors.js';
import { signinHooked } from '../../user-hooks.js';
import {
  passkeyInputs as inputs,
  type PasskeyAssertion,
  type PasskeyRegistration,
  type PasskeyRemoval,
  type PasskeyRename,
  type PasskeySigninStart,
} from './passkey-inputs.js';
import { reauthenticate, requireUser, upgradedByNewWayIn, type Caller, type UserContext } from '../../user-context.js';
import type { Reauthentication } from '../../user-inputs.js';
import type { User } from '../../user-repo.js';

/**
 * Passkeys (docs/users.md, "Passkeys"): WebAuthn credentials through `@simplewebauthn/server`,
 * which checks every part of a ceremony (challenge, origin, RP ID, signature, flags); this
 * module keeps the challenges and the credentials. A signed-in user registers passkeys
 * (`passkeyOptions`, then `passkeyRegister`), lists, renames and removes them; registering and
 * removing ask for the password or a current code again (`reauthenticate`, users/user-context.ts):
 * a passkey is a way in of its own, so a stolen or unattended session must not be enough to
 * bind one (OWASP ASVS 5.0, 7.5.1). The registration's challenge is handed out only after that
 * proof and lives `CEREMONY_MS`, so `passkeyRegister` needs no proof of its own. Anybody signs in
 * with one without typing a name (`passkeySigninOptions`, then `passkeyToken` or, with the
 * cookie, `passkeySignin`): the passkey names its account (a discoverable credential). Each
 * challenge is taken once, so an assertion cannot be used twice; the signature counter must
 * move forward (a cloned authenticator's would not). A sign-in whose authenticator verified the
 * user (PIN, biometrics) is two factors in one and needs no second factor; one that only tested
 * presence goes on to the second factor like a password.
 */

/** How long a ceremony may take: the browser's own timeout is a minute or so. */
const CEREMONY_MS = 5 * 60_000;

/** A passkey as its owner sees it. */
interface ListedPasskey {
  id: string;
  name: string;
  created: number;
  lastUsed: number | null;
}

const listed = (p: StoredPasskey): ListedPasskey => ({
  id: p.id,
  name: p.name,
  created: p.created,
  lastUsed: p.lastUsed,
});

/** The passkey operations, each guarded by the permission of its name (index.ts `permissions`). */
export type PasskeyOps = {
  passkeyOptions(caller: Caller, input: Reauthentication): Promise<PublicKeyCredentialCreationOptionsJSON>;
  passkeyRegister(caller: Caller, input: PasskeyRegistration): Promise<ListedPasskey>;
  passkeys(caller: Caller): Promise<ListedPasskey[]>;
  renamePasskey(caller: Caller, input: PasskeyRename): Promise<void>;
  removePasskey(caller: Caller, input: PasskeyRemoval): Promise<void>;
  passkeySigninOptions(caller: Caller, input: PasskeySigninStart): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /** A session for the browser's answer: the passkey names the account. */
  passkeyToken(caller: Caller, input: PasskeyAssertion): Promise<IssuedToken>;
  /** As `passkeyToken`; the transport puts the token into the cookie. */
  passkeySignin(caller: Caller, input: PasskeyAssertion): Promise<IssuedToken>;
};

export function passkeyOps(ctx: UserContext, env: PasskeyEnv): PasskeyOps {
  const { clock } = ctx;
  const { repo: passkeys, settings } = env;

  async function signinWith(caller: Caller, input: PasskeyAssertion): Promise<IssuedToken> {
    const { response } = parseInput(inputs.passkeyAssertion, input);
    const { user, userVerified } = await verifiedAssertion(
      ctx,
      env,
      response as unknown as AuthenticationResponseJSON,
      null,
    );
    // The sign-in's hooks (user-hooks.ts): a passkey names its account only once its assertion is verified.
    await signinHooked(ctx, caller.principal, 'passkey', 'assertion', user.name);
    if (!userVerified) await challengeIfNeeded(ctx, user, caller);
    return startSession(ctx, caller, user, 'passkey');
  }

  async function ownPasskey(user: User, id: string): Promise<StoredPasskey> {
    const found = await passkeys.byId(id);
    if (found?.userId !== user.id) throw passkeyErrors.unknown_passkey({ fields: [['id', 'unknown']] });
    return found;
  }

  return {
    /** Options for `navigator.credentials.create` (startRegistration of @simplewebauthn/browser). */
    async passkeyOptions(caller: Caller, input: Reauthentication): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const user = requireUser(caller);
      await reauthenticate(ctx, user, input);
      const existing = await passkeys.of(user.id);
      const { generateRegistrationOptions } = await webauthn();
      const options = await generateRegistrationOptions({
        rpName: settings.rpName,
        rpID: settings.rpId,
        userName: user.email ?? user.name,
        userDisplayName: user.realname || user.name,
        userID: new TextEncoder().encode(user.id),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({
          id: p.id,
          transports: p.transports,
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      await passkeys.putChallenge(hashToken(options.challenge), 'register', user.id, clock.now() + CEREMONY_MS);
      return options;
    },

    async passkeyRegister(caller: Caller, input: PasskeyRegistration): Promise<ListedPasskey> {
      const user = requireUser(caller);
      const { response, name } = parseInput(inputs.passkeyRegistration, input);
      const registration = response as unknown as RegistrationResponseJSON;
      const challenge = challengeOf(registration.response.clientDataJSON);
      const owner = await passkeys.takeChallenge(hashToken(challenge), 'register', clock.now());
      if (owner !== user.id) throw passkeyErrors.passkey_failed({ fields: [['response', 'invalid']] });
      const { verifyRegistrationResponse } = await webauthn();
      let verification: VerifiedRegistrationResponse;
      try {
        verification = await verifyRegistrationResponse({
          response: registration,
          expectedChallenge: challenge,
          expectedOrigin: settings.origins,
          expectedRPID: settings.rpId,
          requireUserVerification: false,
        });
      } catch (err) {
        throw passkeyErrors.passkey_failed({ cause: err, fields: [['response', 'invalid']] });
      }
      if (!verification.verified) throw passkeyErrors.passkey_failed({ fields: [['response', 'invalid']] });
      const { credential } = verification.registrationInfo;
      const created = clock.now();
      const stored: StoredPasskey = {
        id: credential.id,
        userId: user.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
        name: name || `Passkey of ${new Date(created).toISOString().slice(0, 10)}`,
        created,
        lastUsed: null,
      };
      if (!(await passkeys.add(stored))) throw passkeyErrors.passkey_exists();
      await upgradedByNewWayIn(ctx, user.id);
      return listed(stored);
    },

    async passkeys(caller: Caller): Promise<ListedPasskey[]> {
      return (await passkeys.of(requireUser(caller).id)).map(listed);
    },

    async renamePasskey(caller: Caller, input: PasskeyRename): Promise<void> {
      const user = requireUser(caller);
      const { id, name } = parseInput(inputs.passkeyRename, input);
      await ownPasskey(user, id);
      await passkeys.rename(user.id, id, name);
    },

    async removePasskey(caller: Caller, input: PasskeyRemoval): Promise<void> {
      const user = requireUser(caller);
      const { id, password, code } = parseInput(inputs.passkeyRemoval, input);
      await ownPasskey(user, id);
      await reauthenticate(ctx, user, { password, code });
      if (!(await passkeys.remove(user.id, id))) throw passkeyErrors.unknown_passkey({ fields: [['id', 'unknown']] });
    },

    /**
     * Options for `navigator.credentials.get` (startAuthentication): no credentials listed, so
     * the browser offers every passkey of this site and the chosen one names the account.
     */
    async passkeySigninOptions(
      _caller: Caller,
      input: PasskeySigninStart,
    ): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const { challenge } = parseInput(inputs.passkeySigninStart, input);
      // The second step of a sign-in (`token2` with `passkey`): only that account's passkeys.
      const user = challenge === undefined ? null : (await challengedUser(ctx, challenge))?.user;
      if (user === undefined) throw userErrors.invalid_token({ fields: [['challenge', 'invalid']] });
      const allowCredentials = user
        ? (await passkeys.of(user.id)).map((p) => ({ id: p.id, transports: p.transports }))
        : [];
      const { generateAuthenticationOptions } = await webauthn();
      const options = await generateAuthenticationOptions({
        rpID: settings.rpId,
        userVerification: 'preferred',
        ...(user ? { allowCredentials } : {}),
      });
      await passkeys.putChallenge(hashToken(options.challenge), 'signin', user?.id ?? null, clock.now() + CEREMONY_MS);
      return options;
    },

    passkeyToken: signinWith,
    passkeySignin: signinWith,
  };
}
