import { createHash } from 'node:crypto';
import { invalidField } from '../core/validation.js';
import { userErrors } from './user-errors.js';

/**
 * The breached-password check (issue 45, item 6; docs/security.md, "Breached passwords"): a
 * password someone chooses is looked up by k-anonymity in a range API of the shape of Have I Been
 * Pwned's Pwned Passwords (`GET <rangeUrl><first 5 hex of SHA-1>` answers `SUFFIX:COUNT` lines):
 * only five hex characters of the password's SHA-1 leave the server, never the password or its
 * whole hash. Off unless `users.breachedPasswords.enabled` (core/config.ts).
 */
export interface BreachedPasswordOptions {
  enabled: boolean;
  /** The range API, ending where the prefix goes (`https://api.pwnedpasswords.com/range/`). */
  rangeUrl: string;
  /** A password seen at least this often in breaches is refused. */
  minCount: number;
  timeoutMs: number;
  /** When the range API cannot be reached: `allow` the password (the default) or `refuse` the change. */
  onUnavailable: 'allow' | 'refuse';
}

export interface BreachedPasswords {
  /**
   * Throws `validation_failure` naming `field` (reason `breached`) for a password seen in breaches,
   * `breach_check_unavailable` when the API cannot answer and the setting refuses then.
   */
  refuseBreached(password: string, field: string): Promise<void>;
}

/** What every chosen password passes when the check is off. */
const NO_CHECK: BreachedPasswords = { refuseBreached: async () => {} };

export function createBreachedPasswords(options: BreachedPasswordOptions): BreachedPasswords {
  if (!options.enabled) return NO_CHECK;
  return {
    async refuseBreached(password, field) {
      const count = await breachCount(options, password);
      if (count === null) {
        if (options.onUnavailable === 'refuse') throw userErrors.breach_check_unavailable();
        return;
      }
      if (count >= options.minCount) throw invalidField(field, 'breached');
    },
  };
}

/** How often the range API has seen `password`; null when it could not be asked or answered nonsense. */
async function breachCount(options: BreachedPasswordOptions, password: string): Promise<number | null> {
  const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
  const prefix = hash.slice(0, 5);
  const suffix = hash.slice(5);
  let text: string;
  try {
    // Add-Padding: the answer's size does not tell an onlooker of the connection which prefix it was.
    const response = await fetch(`${options.rangeUrl}${prefix}`, {
      headers: { 'Add-Padding': 'true', 'User-Agent': 'Roost' },
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'error',
    });
    if (!response.ok) return null;
    text = await response.text();
  } catch {
    return null;
  }
  let seen = 0;
  let wellFormed = false;
  for (const line of text.split('\n')) {
    const match = /^([0-9A-Fa-f]{35}):(\d+)\s*$/.exec(line);
    if (!match) continue;
    wellFormed = true;
    if (match[1]?.toUpperCase() === suffix) seen = Number(match[2]);
  }
  // An answer without a single well-formed line is not a range API's (a captive portal, an error page).
  return wellFormed ? seen : null;
}
