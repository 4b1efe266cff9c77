import type { Config } from '../core/config.js';

/** The limits and timings of live changes (config `realtime`, docs/configuration.md). */
export interface RealtimeSettings {
  heartbeatMs: number;
  /** How often an open stream's token is checked again besides on its account's events. */
  recheckMs: number;
  maxStreamsPerUser: number;
  maxStreamsPerAddress: number;
  maxTopicsPerStream: number;
  bufferBytes: number;
  replayEvents: number;
  replayMs: number;
}

/** The hub's settings from the configuration's `realtime` section (seconds to milliseconds). */
export function realtimeSettings(config: Config): RealtimeSettings {
  const r = config.realtime;
  return {
    heartbeatMs: r.heartbeatSeconds * 1000,
    recheckMs: Math.max(60_000, r.heartbeatSeconds * 1000),
    maxStreamsPerUser: r.maxStreamsPerUser,
    maxStreamsPerAddress: r.maxStreamsPerAddress,
    maxTopicsPerStream: r.maxTopicsPerStream,
    bufferBytes: r.bufferBytes,
    replayEvents: r.replayEvents,
    replayMs: r.replaySeconds * 1000,
  };
}
