// Roost as roost-server.ts starts it, with the live changes' limits raised for one address and
// one user (the benchmark's subscribers all come from 127.0.0.1 with one token), and the stores
// `data` (written to) and `idle` (held streams that hear nothing). Answers `memory` messages
// with the process's memory after a full collection: for suite-realtime.ts.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startBenchRoost } from './roost-setup.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const { url, token } = await startBenchRoost({
  dataStores: { data: {}, idle: {} },
  realtime: { maxStreamsPerUser: 1_000_000, maxStreamsPerAddress: 1_000_000 },
});
process.on('message', (message) => {
  if (message !== 'memory') return;
  gc();
  gc();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.send?.({ rss, heapUsed, external, arrayBuffers });
});
process.send?.({ url, token });
