import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWK } from 'oidc-provider';
import type { Clock } from '../core/clock.js';
import type { SecretBox } from '../users/index.js';
import type { IdpRepo } from './idp-repo.js';

/** The keys every process of the identity provider uses: they must be the same in each. */
export interface IdpKeys {
  /** The private signing key (RS256) of ID tokens and JWT access tokens; its public half is `/oidc/jwks`. */
  jwks: { keys: JWK[] };
  /** The keys of the library's signed cookies (its session and interaction cookies). */
  cookieKeys: string[];
}

/**
 * The keys, made once by the first process that starts with the identity provider on and
 * stored in `idp_keys` (idp-repo.ts `keyOrMake`: the first stored wins, every process reads it),
 * sealed with `users.secretsKey` (users/secret-box.ts): a copied database gives no signing key
 * without the configuration's key. Not rotated (docs/users.md, "Roost as an identity provider").
 */
export async function loadIdpKeys(repo: IdpRepo, box: SecretBox, clock: Clock): Promise<IdpKeys> {
  const signing = await repo.keyOrMake(
    'signing',
    async () => {
      const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
      const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(12).toString('base64url') };
      return box.seal(JSON.stringify({ ...jwk, alg: 'RS256', use: 'sig' }));
    },
    clock.now(),
  );
  const cookies = await repo.keyOrMake(
    'cookies',
    async () => box.seal(JSON.stringify([randomBytes(32).toString('base64url')])),
    clock.now(),
  );
  return {
    jwks: { keys: [JSON.parse(box.open(signing)) as JWK] },
    cookieKeys: JSON.parse(box.open(cookies)) as string[],
  };
}
