import type { Config } from '../../../core/config.js';
import type { PasskeyRepo } from './passkey-repo.js';

/** The WebAuthn relying party: its id (a host), its name, and the origins whose pages may use passkeys. */
export interface PasskeySettings {
  rpId: string;
  rpName: string;
  origins: string[];
}

/** What the passkey operations share beside the user service's context: their repository and settings. */
export interface PasskeyEnv {
  repo: PasskeyRepo;
  settings: PasskeySettings;
}

/** `users.passkeyRpId` and `users.passkeyOrigins` (docs/configuration.md), or the public url's and the CORS origins. */
export function passkeySettings(config: Config): PasskeySettings {
  const u = config.users;
  const publicUrl = new URL(config.publicUrl);
  return {
    rpId: u.passkeyRpId ?? publicUrl.hostname,
    rpName: `Roost at ${publicUrl.host}`,
    origins: u.passkeyOrigins?.map((o) => new URL(o).origin) ?? [
      publicUrl.origin,
      ...config.corsOrigins.map((o) => new URL(o).origin),
    ],
  };
}
