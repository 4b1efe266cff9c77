import { createChallenge, randomInt, verifySolution, type Challenge, type Payload } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Clock } from '../core/clock.js';
import { administers } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import { userErrors } from './user-errors.js';

/**
 * A self-hosted proof-of-work challenge on sign-up, sign-in, password reset and sign-in by mail
 * (issue 45, item 6; docs/security.md "Proof of work under attack"): ALTCHA's scheme over
 * altcha-lib, no third party and no internet. The server hands out a challenge signed with an HMAC
 * key every process shares (signin-key-repo.ts); the client finds the counter whose PBKDF2 key
 * starts with the challenge's prefix (about `counterMax / 2` derivations of `cost` iterations
 * each) and sends the solution with the guarded call; the server checks the signature, the expiry,
 * the key, and that the challenge was not spent before, in one statement every process shares
 * (throttle-repo.ts `countAttempt`, so two parallel uses of one solution cannot both pass).
 *
 * `always` asks it of every guarded call; `auto` only while the server is under attack: when more
 * than `attackThreshold` guarded calls (any outcome; a flood of sign-ups succeeds) came within a
 * minute, counted in the database across processes, each process asks it for `attackHoldSeconds`.
 */
export interface ProofOfWorkOptions {
  mode: 'off' | 'auto' | 'always';
  /** PBKDF2-SHA-256 iterations per derivation. */
  cost: number;
  /** The secret counter is drawn from [counterMin, counterMax]: the client's work. */
  counterMin: number;
  counterMax: number;
  expiresSeconds: number;
  attackThreshold: number;
  attackHoldSeconds: number;
}

/** What the guard needs of the database (user-repo.ts, which joins throttle-repo.ts and signin-key-repo.ts). */
export interface ProofOfWorkStore {
  countAttempt(key: string, now: number, windowStart: number): Promise<number>;
  key(name: string, now: number): Promise<string>;
}

/** A new signed challenge, and whether the guarded calls ask for a solved one now. */
export interface IssuedChallenge {
  challenge: Challenge;
  required: boolean;
}

export interface ProofOfWork {
  challenge(): Promise<IssuedChallenge>;
  /**
   * Before a guarded call: counts it toward "under attack" (in `auto`), and when a solution is
   * asked for (never of an administrator: an administrator's page sends a user's reset mail),
   * throws `challenge_required` without `proof` and `challenge_failed` for one that is malformed,
   * forged, expired, wrong or spent.
   */
  demand(caller: { principal: Principal; proof?: string | undefined }): Promise<void>;
}

const KEY_NAME = 'proof-of-work';
const ALGORITHM = 'PBKDF2/SHA-256';
/** The longest proof read: a solved challenge is about 600 bytes of JSON, base64. */
const PROOF_MAX = 4096;
const MINUTE = 60_000;

export function createProofOfWork(options: ProofOfWorkOptions, store: ProofOfWorkStore, clock: Clock): ProofOfWork {
  let attackUntil = 0;
  let secret: Promise<{ signature: string; key: string }> | undefined;
  // One key in the table; two HMAC secrets from it (the challenge's signature and the derived key's).
  const secrets = () => {
    secret ??= store.key(KEY_NAME, clock.now()).then(
      (k) => ({ signature: `${k}:challenge`, key: `${k}:key` }),
      (err) => {
        secret = undefined;
        throw err;
      },
    );
    return secret;
  };

  async function underAttack(): Promise<boolean> {
    if (options.mode === 'always') return true;
    if (options.mode === 'off') return false;
    const now = clock.now();
    const calls = await store.countAttempt('powcalls:all', now, now - MINUTE);
    if (calls > options.attackThreshold) attackUntil = now + options.attackHoldSeconds * 1000;
    return now < attackUntil;
  }

  return {
    async challenge() {
      const { signature, key } = await secrets();
      const challenge = await createChallenge({
        algorithm: ALGORITHM,
        cost: options.cost,
        counter: randomInt(options.counterMin, options.counterMax),
        deriveKey,
        expiresAt: Math.floor(clock.now() / 1000) + options.expiresSeconds,
        hmacSignatureSecret: signature,
        hmacKeySignatureSecret: key,
      });
      const required = options.mode === 'always' || (options.mode === 'auto' && clock.now() < attackUntil);
      return { challenge, required };
    },

    async demand({ principal, proof }) {
      if (administers(principal) || !(await underAttack())) return;
      if (proof === undefined || proof === '') throw userErrors.challenge_required();
      const payload = parseProof(proof);
      if (!payload) throw userErrors.challenge_failed();
      const { signature, key } = await secrets();
      let verified = false;
      try {
        const result = await verifySolution({
          challenge: payload.challenge,
          solution: payload.solution,
          deriveKey,
          hmacSignatureSecret: signature,
          hmacKeySignatureSecret: key,
        });
        verified = result.verified && payload.challenge.parameters.algorithm === ALGORITHM;
      } catch {
        // altcha-lib throws on parameters it cannot use (an unknown algorithm, a bad prefix): not a solution.
      }
      // altcha-lib compares the expiry with the system's time; Roost's clock decides (core/clock.ts).
      const expiresAt = payload.challenge.parameters.expiresAt;
      if (!verified || typeof expiresAt !== 'number' || expiresAt * 1000 <= clock.now()) {
        throw userErrors.challenge_failed();
      }
      // Spent once: the nonce is the challenge's, signed; its record lasts as long as the challenge could.
      const now = clock.now();
      const uses = await store.countAttempt(
        `powspent:${payload.challenge.parameters.nonce}`,
        now,
        now - options.expiresSeconds * 1000,
      );
      if (uses > 1) throw userErrors.challenge_failed();
    },
  };
}

/** The widget's payload (base64 of `{challenge, solution}`) or the same JSON as it is; null when neither. */
function parseProof(proof: string): Payload | null {
  if (proof.length > PROOF_MAX) return null;
  let value: unknown;
  try {
    const text = proof.trimStart().startsWith('{') ? proof : Buffer.from(proof, 'base64').toString('utf8');
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { challenge, solution } = value as Partial<Payload>;
  const parameters = challenge?.parameters;
  if (typeof parameters?.nonce !== 'string' || typeof parameters.algorithm !== 'string') return null;
  if (typeof solution?.counter !== 'number' || typeof solution.derivedKey !== 'string') return null;
  return value as Payload;
}
