import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets the server must read back (TOTP seeds: a code is checked against the seed itself; the
 * identity provider's signing and cookie keys, identity-provider/idp-keys.ts) sealed with
 * `users.secretsKey` when one is configured: AES-256-GCM with a random 96-bit IV per value,
 * stored as `v1.<iv>.<tag>.<ciphertext>` (base64url). A stolen database then holds no seed
 * without the key, which lives in the configuration, not the database. Without a key values are
 * stored as they are (docs/security.md, "Known limits"); a value stored plain stays readable
 * after a key is set, and is sealed when it is next written. Base32 seeds never hold a `.`, and
 * JSON starts with `{` or `[`, so the two forms cannot be confused.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(stored: string): string;
}

const PREFIX = 'v1.';

export function createSecretBox(base64Key: string | undefined): SecretBox {
  const key = base64Key === undefined ? null : Buffer.from(base64Key, 'base64');
  return {
    seal(plain) {
      if (!key) return plain;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      if (!key)
        throw new Error(
          'a secret is sealed (a second-factor seed, a key of the identity provider), but users.secretsKey is not set',
        );
      const [iv, tag, sealed] = stored
        .slice(PREFIX.length)
        .split('.')
        .map((p) => Buffer.from(p, 'base64url'));
      if (!iv || !tag || !sealed) throw new Error('a sealed secret is damaged');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
      } catch (cause) {
        throw new Error('a sealed secret does not open with users.secretsKey (another key?)', { cause });
      }
    },
  };
}
