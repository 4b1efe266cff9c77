/** Where the time comes from; tests may pass a clock of their own to `createRoost`. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

const pad = (n: number) => String(n).padStart(2, '0');

/** The seed's time format, `YYYY/MM/DD hh:mm:ss`, in UTC. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/**
 * The time format of everything new (issue 42, item 8: JSON, logs and pages): ISO 8601 in UTC,
 * `2026-11-29T07:30:00.000Z`; null stays null. The original protocol's answers keep `formatTime`.
 */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null): string | null;
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
