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

let lastMillis = 0;
let sequence = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit sequence within the
 * millisecond and 62 random bits. Its text sorts in creation order within one process (the
 * sequence, "method 1" of the RFC), so a collection's records page by id (issue 39, item 2).
 */
export function newSortableId(now = Date.now()): string {
  if (now > lastMillis) {
    lastMillis = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    // 4 096 ids in one millisecond: borrow the next one, as the RFC allows, to stay in order.
    lastMillis += 1;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  const millis = lastMillis;
  bytes[0] = Math.floor(millis / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(millis / 2 ** 32) & 0xff;
  bytes[2] = (millis >>> 24) & 0xff;
  bytes[3] = (millis >>> 16) & 0xff;
  bytes[4] = (millis >>> 8) & 0xff;
  bytes[5] = millis & 0xff;
  bytes[6] = 0x70 | (sequence >>> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
