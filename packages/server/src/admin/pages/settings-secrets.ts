import type { RuntimeSettings } from '../../core/runtime-settings.js';

/**
 * The secrets of the settings page (admin/pages/settings-page.ts) as it shows them: the SMTP
 * url's password and the providers' client secrets as `****`, never in html; a submitted `****`
 * keeps the stored secret.
 */

/** The SMTP url with its password shown as `****` (the page never puts a password into html). */
export function maskSmtpUrl(url: string | null): string {
  if (!url) return '';
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return '';
  }
}

/** A submitted SMTP url with `****` as password keeps the stored password when user, host and port are the same. */
export function unmaskSmtpUrl(submitted: string, stored: string | null): string {
  if (!stored) return submitted;
  try {
    const s = new URL(submitted);
    const c = new URL(stored);
    if (s.password !== '****' || s.protocol !== c.protocol || s.username !== c.username || s.host !== c.host)
      return submitted;
    s.password = c.password;
    return s.toString();
  } catch {
    return submitted;
  }
}

/** The providers as the page shows them: JSON, each client secret and Apple's key as `****` (never in html). */
export function maskedProviders(providers: RuntimeSettings['providers']): string {
  if (providers.length === 0) return '';
  const shown = providers.map((p) => ({
    ...p,
    ...(p.clientSecret ? { clientSecret: '****' } : {}),
    ...(p.apple ? { apple: { ...p.apple, privateKey: '****' } } : {}),
  }));
  return JSON.stringify(shown, null, 2);
}

/** Submitted providers with `****` as a secret (or Apple's key) keep the stored one of the provider with that id. */
export function unmaskProviders(text: string, stored: RuntimeSettings['providers']): unknown {
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!Array.isArray(parsed)) return parsed;
  return parsed.map((p: unknown) => {
    if (typeof p !== 'object' || p === null) return p;
    const given = p as { id?: unknown; clientSecret?: unknown; apple?: { privateKey?: unknown } };
    const same = stored.find((s) => s.id === given.id);
    const secret = given.clientSecret === '****' ? { clientSecret: same?.clientSecret } : {};
    const key =
      typeof given.apple === 'object' && given.apple !== null && given.apple.privateKey === '****'
        ? { apple: { ...given.apple, privateKey: same?.apple?.privateKey } }
        : {};
    return { ...p, ...secret, ...key };
  });
}
