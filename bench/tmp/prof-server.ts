// Scratch (not committed): Roost with a file store; profiles between IPC 'start' and 'stop'.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { startBenchRoost } from '../roost-setup.js';
const { url, token, database } = await startBenchRoost({ fileStores: { files: { read: 'sys:everyone' } } });
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
process.on('message', async (m: { op: string; file?: string }) => {
  if (m.op === 'start') { await session.post('Profiler.start'); process.send?.({ ok: 1 }); }
  if (m.op === 'stop') { const { profile } = await session.post('Profiler.stop'); writeFileSync(m.file!, JSON.stringify(profile)); process.send?.({ ok: 1 }); }
});
process.send?.({ url, token, database });
