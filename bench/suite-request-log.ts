// What keeping the recent requests for the admin logs page costs (`requestLog.keep`;
// storage/request-log-store.ts: a record per answer in memory, written in batches of one INSERT):
// Roost with it against Roost without (the default: no hook at all at the bench's log level), in
// alternating slices of the same run, on the hottest read and a write.
import { runOnOffSuite } from './on-off-suite.js';

export function run(): Promise<void> {
  return runOnOffSuite({
    suite: 'request-log',
    setup: 'SQLite, local blobs, /metrics on.',
    variable: 'BENCH_REQUEST_LOG',
    on: 'request log kept',
    off: 'not kept',
  });
}
