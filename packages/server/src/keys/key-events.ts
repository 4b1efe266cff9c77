import { kindIn } from '../core/events.js';

/**
 * The event of the API keys (core/events.ts), declared in their own folder: a key revoked
 * (key-service.ts `revoke`), told after the key is forgotten on every process, so that the live
 * streams the key holds end at once on each (realtime/hub.ts), not at their next check.
 */
const KEY_EVENTS = ['key.revoked'] as const;

declare module '../core/events.js' {
  interface RoostEvents {
    'key.revoked': { kind: 'key.revoked'; keyId: string };
  }
}

/** Whether an event is a key's revocation (a type guard: core/events.ts `kindIn`). */
export const isKeyRevoked = kindIn(KEY_EVENTS);
