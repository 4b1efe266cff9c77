// What counting every request for /metrics costs (http/metrics.ts: one onResponse hook with a
// counter and a histogram): Roost with `metrics.enabled` (the default) against Roost without,
// in alternating slices of the same run, on the hottest read and a write.
import { runOnOffSuite } from './on-off-suite.js';

export function run(): Promise<void> {
  return runOnOffSuite({
    suite: 'metrics',
    setup: 'SQLite, local blobs.',
    variable: 'BENCH_METRICS',
    on: 'metrics on',
    off: 'metrics off',
  });
}
