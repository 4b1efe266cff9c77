import crypto, { createHash, randomBytes, randomUUID } from 'node:crypto';

/** A secret for the wire: 32 random bytes, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

// Node's one-shot `crypto.hash` (20.12 and later) costs a third of a Hash object's create,
// update and digest; every authenticated request hashes its token. Read off the module
// object, since a named import of it would not even load on an older Node 20.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** Only this hash of a token is stored, so a leaked database holds no usable token. */
export function hashToken(token: string): string {
  return oneShotHash
    ? oneShotHash('sha256', token, 'base64url')
    : createHash('sha256').update(token).digest('base64url');
}

export function newId(): string {
  return randomUUID();
}

const NAME_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of `length` characters from [a-z0-9]; 30 gives the seed's 30-byte user name. */
export function randomName(length: number): string {
  // 252 is the largest multiple of 36 below 256: rejecting bytes above it keeps the draw uniform.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252 && out.length < length) out += NAME_ALPHABET[byte % 36];
    }
  }
  return out;
}
