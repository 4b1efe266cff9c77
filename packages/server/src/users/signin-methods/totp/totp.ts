import { Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time passwords (RFC 6238) through `otpauth` (docs/decisions.md, "Second
 * factor"): 6 digits, 30-second steps, SHA-1, the parameters every authenticator app reads from
 * an `otpauth://` link. A code is taken from the step before, the current one or the one after
 * (clocks drift), and each step once (totp-repo.ts `takeStep`).
 */
const PERIOD = 30;
const DIGITS = 6;
const WINDOW = 1;

/** A new secret: 20 random bytes, as base32 (the manual key an app accepts typed in). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secret), period: PERIOD, digits: DIGITS });
}

/** The `otpauth://` link an authenticator app reads from a QR code. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totpOf(secret, issuer, account).toString();
}

/** The link as an SVG QR code, to put into a page as it is. */
export async function totpQrSvg(uri: string): Promise<string> {
  // Loaded when a second factor is set up, not at every start (57 modules; CONTRIBUTING.md, "Test time").
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** The time step `code` belongs to, or null when it is no code of the secret around `now`. */
export function totpStep(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp: now }) + delta;
}

/** The code of the secret at `now` (for tests and for programs that hold the secret themselves). */
export function totpCode(secret: string, now: number): string {
  return totpOf(secret).generate({ timestamp: now });
}
