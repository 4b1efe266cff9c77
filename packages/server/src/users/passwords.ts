import { hash, verify } from '@node-rs/argon2';

/** argon2id's cost: memory in KiB and passes over it (`users.passwordHashing` of core/config.ts). */
export interface PasswordHashing {
  memoryKiB: number;
  iterations: number;
}

/**
 * OWASP's argon2id settings (Password Storage Cheat Sheet), equally strong: a setting at least as
 * costly as one of them in both memory and passes is as strong or stronger. The default is the
 * second, about 20 ms a hash here.
 */
const OWASP_ARGON2ID: readonly PasswordHashing[] = [
  { memoryKiB: 47_104, iterations: 1 },
  { memoryKiB: 19_456, iterations: 2 },
  { memoryKiB: 12_288, iterations: 3 },
  { memoryKiB: 9_216, iterations: 4 },
  { memoryKiB: 7_168, iterations: 5 },
];

/** Whether `cost` is below every setting OWASP recommends (the start says so in the log: roost.ts). */
export function belowOwasp(cost: PasswordHashing): boolean {
  return !OWASP_ARGON2ID.some((s) => cost.memoryKiB >= s.memoryKiB && cost.iterations >= s.iterations);
}

/** Passwords (and recovery codes) as stored: argon2id hashes in PHC form, with their salt and cost. */
export interface Passwords {
  hash(password: string): Promise<string>;
  /** Whether `password` matches the stored hash, whatever cost it was made with; false for a malformed one. */
  verify(stored: string, password: string): Promise<boolean>;
  /** The work of a `verify`, for a sign-in of no account: a wrong name costs as long as a wrong password. */
  burn(password: string): Promise<void>;
  /** Whether `stored` was made at another cost than this one (a sign-in then hashes it anew: sessions.ts). */
  outdated(stored: string): boolean;
}

/** The hashes made at `cost`: one per process, from the configuration (users/user-service.ts). */
export function createPasswords(cost: PasswordHashing): Passwords {
  // 2 is Algorithm.Argon2id; the package declares it as a const enum, which isolated modules cannot read.
  const params = { algorithm: 2, memoryCost: cost.memoryKiB, timeCost: cost.iterations, parallelism: 1 } as const;
  const own = `$argon2id$v=19$m=${cost.memoryKiB},t=${cost.iterations},p=1$`;
  let dummyHash: Promise<string> | undefined;
  const passwords: Passwords = {
    hash: (password) => hash(password, params),
    async verify(stored, password) {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
    async burn(password) {
      dummyHash ??= passwords.hash('roost-timing-equaliser');
      await passwords.verify(await dummyHash, password);
    },
    outdated: (stored) => !stored.startsWith(own),
  };
  return passwords;
}

const PASSWORD_ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A generated password for `signupSendpw`: 14 characters without look-alikes (about 81 bits). */
export function generatePassword(randomBytes: (n: number) => Uint8Array): string {
  let out = '';
  const limit = 256 - (256 % PASSWORD_ALPHABET.length);
  while (out.length < 14) {
    for (const b of randomBytes(28))
      if (b < limit && out.length < 14) out += PASSWORD_ALPHABET[b % PASSWORD_ALPHABET.length];
  }
  return out;
}
