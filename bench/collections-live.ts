// One change of a record heard by 1000 live queries, each with a filter of its own (issue 39:
// p99 under 100 ms from the write's answer to each subscriber's event). The subscribers are 1000
// streams of `GET /api/realtime` (server-sent events, docs/realtime.md), each subscribed to
// `records/live?filter=<its filter>` (collections-fixtures.ts `liveFilter`: every filter matches
// the record); the writes PATCH the record's `stamp`, one at a time, each waiting until every
// subscriber heard it. Each event's latency is the time it was read minus the time the write's
// answer was read (an event read before the answer counts as 0), and also from the write's send.
import type { Socket } from 'node:net';
import { liveFilter } from './collections-fixtures.js';
import { type Measured, type Server, serverCpuUs } from './lib.js';
import { now, openStreams, quantile } from './sse-subscribers.js';

export const SUBSCRIBERS = 1000;
const WARM_UP_WRITES = 20;
const WRITES = 60;
const STAMP = Buffer.from('"stamp":');

export interface LiveFigures {
  measured: Measured;
  /** Latencies from the write's send, ms. */
  fromSend: { p50: number; p99: number };
  /** Events read before their write's answer. */
  beforeAnswer: number;
  writes: number;
  openMs: number;
}

interface Info {
  url: string;
  token: string;
  live: string;
}

export async function liveFanOut(server: Server<Info>): Promise<LiveFigures> {
  const info = server.info;
  /** When each stamp's events were read, by stamp. */
  const heard = new Map<number, number[]>();
  const onData = (at: number, chunk: Buffer) => {
    for (let i = chunk.indexOf(STAMP); i >= 0; i = chunk.indexOf(STAMP, i + STAMP.length)) {
      let end = i + STAMP.length;
      while (end < chunk.length && chunk[end]! >= 0x30 && chunk[end]! <= 0x39) end++;
      // A number cut by the end of the chunk is missed, and counted so (an error of the row).
      if (end === chunk.length) continue;
      const stamp = Number(chunk.toString('latin1', i + STAMP.length, end));
      heard.get(stamp)?.push(at);
    }
  };
  const sockets: Socket[] = [];
  try {
    const opened = now();
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const topic = encodeURIComponent(`records/live?filter=${encodeURIComponent(liveFilter(i))}`);
      sockets.push(...(await openStreams(info, topic, 1, onData)));
    }
    const openMs = now() - opened;
    const write = async (stamp: number) => {
      heard.set(stamp, []);
      const sent = now();
      const res = await fetch(`${info.url}/api/collections/live/records/${info.live}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-auth-token': info.token },
        body: JSON.stringify({ stamp }),
      });
      if (!res.ok) throw new Error(`PATCH live: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      const answered = now();
      for (let waited = 0; (heard.get(stamp)?.length ?? 0) < SUBSCRIBERS && waited < 2000; waited += 2)
        await new Promise((resolve) => setTimeout(resolve, 2));
      return { sent, answered };
    };
    for (let i = 0; i < WARM_UP_WRITES; i++) await write(-1 - i);
    const fromAnswer: number[] = [];
    const fromSend: number[] = [];
    let missing = 0;
    let beforeAnswer = 0;
    const cpuBefore = serverCpuUs(server);
    const began = now();
    for (let stamp = 1; stamp <= WRITES; stamp++) {
      const { sent, answered } = await write(stamp);
      const times = heard.get(stamp) ?? [];
      missing += SUBSCRIBERS - times.length;
      for (const at of times) {
        if (at < answered) beforeAnswer++;
        fromAnswer.push(Math.max(0, at - answered));
        fromSend.push(at - sent);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (now() - began) / 1000;
    const cpuAfter = serverCpuUs(server);
    const measured: Measured = {
      name: `one record change to ${SUBSCRIBERS} live queries, each filter different (SSE)`,
      // Events delivered per second of the measurement (one write at a time, 20 ms apart).
      rps: fromAnswer.length / seconds,
      p50: round(quantile(fromAnswer, 0.5)),
      p99: round(quantile(fromAnswer, 0.99)),
      errors: missing,
      // Server CPU per write: the write and its 1000 deliveries.
      cpuUs: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / WRITES,
      otherCores: null,
      slices: [],
    };
    return {
      measured,
      fromSend: { p50: round(quantile(fromSend, 0.5)), p99: round(quantile(fromSend, 0.99)) },
      beforeAnswer,
      writes: WRITES,
      openMs,
    };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;
