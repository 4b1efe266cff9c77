import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id with OWASP's first recommended setting (19 MiB, 2 iterations, 1 lane), about 20 ms
 * a hash here: slow for a guesser, fast enough for a sign-in.
 */
// 2 is Algorithm.Argon2id; the package declares it as a const enum, which isolated modules cannot read.
const PARAMS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** Compared against when no account matches, so a wrong name costs as long as a wrong password. */
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('roost-timing-equaliser');
  await verifyPassword(await dummyHash, password);
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
