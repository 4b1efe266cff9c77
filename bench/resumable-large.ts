// The 1 GB case of `npm run bench -- resumable` (issue 41, "Speed": a 1 GB upload interrupted
// three times completes, memory flat, the peak stated): one tus upload of 1 GiB of bytes made as
// they are sent (no file), its connection cut at a quarter, a half and three quarters, resumed
// each time from the offset HEAD tells, completed; the server's resident memory (RSS) before and
// at its peak, read from /proc.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { request } from 'node:http';
import { type Measured, type Server, serverCpuUs } from './lib.js';

const MiB = 1024 * 1024;
const SIZE = 1024 * MiB;
const TUS = { 'tus-resumable': '1.0.0' };

/** Block `i` of the upload: 1 MiB, each different (a block shifted or sent twice changes the hash). */
function block(i: number): Buffer {
  const b = Buffer.alloc(MiB, (i * 37) & 0xff);
  b.writeUInt32BE(i, 0);
  b.writeUInt32BE(i ^ 0x5a5a5a5a, MiB - 4);
  return b;
}

/** The bytes from `from` to `to`, block by block. */
function* bytes(from: number, to: number): Generator<Buffer> {
  for (let at = from; at < to; ) {
    const i = Math.floor(at / MiB);
    const piece = block(i).subarray(at - i * MiB, Math.min(MiB, to - i * MiB));
    at += piece.length;
    yield piece;
  }
}

/** The server's resident memory now and its peak since the last reset, bytes (/proc/<pid>/status). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * PATCH from `from`, announcing every byte to the end; with `cutAt`, the connection is destroyed
 * once the bytes up to there are sent and the server has written them (as a dropped link would
 * leave it), else the answer's status.
 */
function patch(base: string, auth: Record<string, string>, location: string, from: number, cutAt?: number) {
  const url = new URL(base + location);
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PATCH',
        headers: {
          ...auth,
          ...TUS,
          'content-type': 'application/offset+octet-stream',
          'upload-offset': String(from),
          'content-length': String(SIZE - from),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (err) => (cutAt === undefined ? reject(err) : resolve(0)));
    (async () => {
      for (const piece of bytes(from, cutAt ?? SIZE)) {
        if (!req.write(piece)) await new Promise((drained) => req.once('drain', drained));
        if (req.destroyed) return;
      }
      if (cutAt === undefined) return void req.end();
      // Cut once the server stopped taking bytes in (its socket buffers drained into the upload).
      let last = -1;
      for (;;) {
        await new Promise((wait) => setTimeout(wait, 300));
        const now = await offsetOf(base, auth, location);
        if (now === last) break;
        last = now;
      }
      req.destroy();
      resolve(0);
    })().catch(reject);
  });
}

async function offsetOf(base: string, auth: Record<string, string>, location: string): Promise<number> {
  const res = await fetch(base + location, { method: 'HEAD', headers: { ...auth, ...TUS } });
  return Number(res.headers.get('upload-offset'));
}

export interface LargeUpload {
  row: Measured & { baselineRssMiB: number; peakRssMiB: number; resumedAt: number[] };
  text: string[];
}

/** The 1 GiB upload through `server` (filestore-server.ts: a store `files`, a signed-in token). */
export async function largeUpload(server: Server<{ url: string; token: string }>): Promise<LargeUpload> {
  const { url, token } = server.info;
  const auth = { 'x-auth-token': token };
  const pid = server.child.pid ?? 0;
  const expected = createHash('sha256');
  for (const piece of bytes(0, SIZE)) expected.update(piece);
  const etag = `"${expected.digest('base64url')}"`;

  const created = await fetch(`${url}/files/@uploads`, {
    method: 'POST',
    headers: { ...auth, ...TUS, 'upload-length': String(SIZE), 'upload-metadata': `path ${btoa('large-1gib.bin')}` },
  });
  const location = created.headers.get('location') ?? '';
  if (created.status !== 201) throw new Error(`creation: ${created.status} ${await created.text()}`);

  const baseline = memory(pid).rss;
  // Linux: writing 5 to clear_refs starts the peak (VmHWM) again from the RSS now.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  let sampledPeak = baseline;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memory(pid).rss);
  }, 100);
  const cpuBefore = serverCpuUs(server);
  const began = Date.now();
  const resumedAt: number[] = [];
  let status = 0;
  try {
    let from = 0;
    for (const quarter of [1, 2, 3]) {
      // The request cut before may hold the upload a moment more (423): again, as a tus client does.
      for (let tries = 0; tries < 100; tries++) {
        if ((await patch(url, auth, location, from, (SIZE / 4) * quarter)) !== 423) break;
        await new Promise((wait) => setTimeout(wait, 50));
      }
      for (let tries = 0; ; tries++) {
        from = await offsetOf(url, auth, location);
        if (from > 0 || tries > 50) break;
        await new Promise((wait) => setTimeout(wait, 100));
      }
      resumedAt.push(from);
    }
    // The cut request may hold the upload a moment (423): ask again.
    for (let tries = 0; tries < 100; tries++) {
      status = await patch(url, auth, location, await offsetOf(url, auth, location));
      if (status !== 423 && status !== 409) break;
      await new Promise((wait) => setTimeout(wait, 100));
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (Date.now() - began) / 1000;
  const cpuUs = cpuBefore === null ? null : (serverCpuUs(server) ?? 0) - cpuBefore;
  const peak = Math.max(memory(pid).peak, sampledPeak);
  const file = await fetch(`${url}/files/large-1gib.bin`, { method: 'HEAD', headers: auth });
  const exact = status === 204 && file.headers.get('etag') === etag;
  if (!exact) throw new Error(`the 1 GiB upload: status ${status}, ETag ${file.headers.get('etag')} (wanted ${etag})`);

  const mib = (b: number) => Math.round(b / MiB);
  const row = {
    name: '1 GiB tus upload, cut 3 times and resumed',
    rps: 1 / seconds,
    p50: Number.NaN,
    p99: Number.NaN,
    errors: 0,
    cpuUs,
    otherCores: null,
    slices: [],
    baselineRssMiB: mib(baseline),
    peakRssMiB: mib(peak),
    resumedAt,
  };
  const text = [
    '| case | time | MiB/s | server CPU | server RSS before | server RSS peak | resumed at (MiB) |',
    '|---|---:|---:|---:|---:|---:|---|',
    `| ${row.name}, byte-exact (SHA-256) | ${seconds.toFixed(1)} s | ${(SIZE / MiB / seconds).toFixed(0)} | ` +
      `${cpuUs === null ? '–' : `${(cpuUs / 1e6).toFixed(1)} s`} | ${row.baselineRssMiB} MiB | ` +
      `${row.peakRssMiB} MiB | ${resumedAt.map((b) => (b / MiB).toFixed(1)).join(', ')} |`,
    '',
    `The machine's load average at the end: ${loadavg()[0]?.toFixed(1)} (2 cores, shared with other work).`,
  ];
  return { row, text };
}
