/**
 * The soak's load and its accounting, shared by `bench/soak.ts` (2 minutes, 100 connections)
 * and a short test (packages/server/test/security/soak-accounting.test.ts). Each connection is
 * one worker with its own user, going round a cycle of reads and writes over the three services
 * one request after another; every acknowledged write goes into a ledger, and after the run
 * `verifySoak` reads everything back: each acknowledged item with its value, each file with its
 * contents, each user's last profile change.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';

export interface SoakLedger {
  /** Acknowledged items: key → value. */
  items: Map<string, string>;
  /** Acknowledged files: path in the store → SHA-256 of the contents. */
  files: Map<string, string>;
  /** Per worker: the last acknowledged realname. */
  realnames: Map<number, string>;
  /** Acknowledged realname changes. */
  updates: number;
  requests: number;
  /** Answers other than the expected one, and transport failures, with what they were. */
  errors: string[];
  /** Reads that did not see the worker's own write just before. */
  staleReads: number;
}

export function newLedger(): SoakLedger {
  return {
    items: new Map(),
    files: new Map(),
    realnames: new Map(),
    updates: 0,
    requests: 0,
    errors: [],
    staleReads: 0,
  };
}

interface Answer {
  status: number;
  text: string;
}

function send(
  agent: Agent,
  base: URL,
  method: string,
  path: string,
  token: string,
  body?: string,
  type = 'application/json',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-auth-token': token };
    if (body !== undefined) {
      headers['content-type'] = type;
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = request({ host: base.hostname, port: base.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** An item's value and a file's contents: named after their worker and cycle, padded to a varying length. */
const itemValue = (key: string, n: number) => `${key}:${'i'.repeat(50 + ((n * 37) % 2000))}`;
const fileText = (path: string, n: number) => `${path}\n${'f'.repeat(100 + ((n * 97) % 8000))}`;

export interface SoakOptions {
  url: string;
  /** One token per worker (and so per connection); each worker is one user. */
  tokens: readonly string[];
  seconds: number;
  /** Called once a second with the requests so far (progress, memory samples). */
  onTick?: (elapsedSeconds: number, requests: number) => void | Promise<void>;
}

/**
 * Run the workers for `seconds`. One cycle of a worker: setItem of a new key, getItem of it,
 * `@write` of a new file, its download, `update` of the own realname, `identity`, a page of
 * the store's `keys` and of the own directory: three writes, five reads.
 */
export async function runSoak(options: SoakOptions, ledger: SoakLedger = newLedger()): Promise<SoakLedger> {
  const base = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.tokens.length });
  const until = Date.now() + options.seconds * 1000;
  const expect = (what: string, answer: Answer, status = 200): boolean => {
    ledger.requests++;
    if (answer.status === status) return true;
    if (ledger.errors.length < 20) ledger.errors.push(`${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
    else ledger.errors.push(what);
    return false;
  };

  // Each worker's directory exists before the clock starts.
  await Promise.all(
    options.tokens.map(async (token, w) => {
      const res = await send(
        agent,
        base,
        'POST',
        '/files/@newItem',
        token,
        JSON.stringify({ name: `soak-${w}`, type: 'd' }),
      );
      if (res.status !== 200) throw new Error(`worker ${w}: no directory: ${res.status} ${res.text}`);
    }),
  );

  async function worker(w: number, token: string): Promise<void> {
    for (let n = 0; Date.now() < until; n++) {
      try {
        const key = `w${w}-${n}`;
        const value = itemValue(key, n);
        if (
          expect('setItem', await send(agent, base, 'POST', '/data/api/setItem', token, JSON.stringify({ key, value })))
        )
          ledger.items.set(key, value);
        const read = await send(agent, base, 'POST', '/data/api/getItem', token, JSON.stringify({ key }));
        if (expect('getItem', read) && (JSON.parse(read.text) as { value?: unknown }).value !== value)
          ledger.staleReads++;

        const path = `soak-${w}/f${n}.txt`;
        const text = fileText(path, n);
        if (expect('@write', await send(agent, base, 'PUT', `/files/${path}/@write`, token, text, 'text/plain')))
          ledger.files.set(path, sha(text));
        const download = await send(agent, base, 'GET', `/files/${path}`, token);
        if (expect('download', download) && download.text !== text) ledger.staleReads++;

        const realname = `worker ${w} cycle ${n}`;
        if (
          expect('update', await send(agent, base, 'POST', '/users/api/update', token, JSON.stringify({ realname })))
        ) {
          ledger.realnames.set(w, realname);
          ledger.updates++;
        }
        expect('identity', await send(agent, base, 'GET', '/users/api/identity', token));
        expect(
          'keys',
          await send(agent, base, 'POST', '/data/api/keys', token, JSON.stringify({ size: 20, order: '>' })),
        );
        expect(
          '@list',
          await send(agent, base, 'POST', `/files/soak-${w}/@list`, token, JSON.stringify({ size: 20, order: '>' })),
        );
      } catch (err) {
        ledger.requests++;
        ledger.errors.push(`worker ${w}: ${(err as Error).message}`);
      }
    }
  }

  const started = Date.now();
  const ticker = options.onTick
    ? setInterval(() => void options.onTick?.(Math.round((Date.now() - started) / 1000), ledger.requests), 1000)
    : undefined;
  try {
    await Promise.all(options.tokens.map((token, w) => worker(w, token)));
  } finally {
    if (ticker) clearInterval(ticker);
    agent.destroy();
  }
  return ledger;
}

export interface SoakCheck {
  items: { acknowledged: number; found: number; wrong: number };
  files: { acknowledged: number; found: number; wrong: number };
  realnames: { checked: number; wrong: number };
  problems: string[];
}

/**
 * Read everything back: every acknowledged item (paging through `list`), every acknowledged
 * file (downloaded), each worker's realname (its writes were one after another, so the last
 * acknowledged one is the one stored).
 */
export async function verifySoak(url: string, tokens: readonly string[], ledger: SoakLedger): Promise<SoakCheck> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const token = tokens[0] ?? '';
  const problems: string[] = [];
  const note = (p: string) => problems.length < 20 && problems.push(p);
  try {
    const stored = new Map<string, string>();
    for (let start = 1; ; start += 500) {
      const res = await send(
        agent,
        base,
        'POST',
        '/data/api/list',
        token,
        JSON.stringify({ start, size: 500, sort: 'key' }),
      );
      const page = JSON.parse(res.text) as { items?: Array<{ key: string; value: unknown }> };
      for (const item of page.items ?? []) stored.set(item.key, String(item.value));
      if ((page.items ?? []).length < 500) break;
    }
    const items = { acknowledged: ledger.items.size, found: 0, wrong: 0 };
    for (const [key, value] of ledger.items) {
      const got = stored.get(key);
      if (got === undefined) note(`item ${key} is missing`);
      else if (got !== value) {
        items.wrong++;
        note(`item ${key} has another value`);
      } else items.found++;
    }

    const files = { acknowledged: ledger.files.size, found: 0, wrong: 0 };
    const paths = [...ledger.files];
    const next = () => paths.pop();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let entry = next(); entry; entry = next()) {
          const [path, hash] = entry;
          const res = await send(agent, base, 'GET', `/files/${path}`, token);
          if (res.status !== 200) note(`file ${path}: ${res.status}`);
          else if (sha(res.text) !== hash) {
            files.wrong++;
            note(`file ${path} has other contents`);
          } else files.found++;
        }
      }),
    );

    const realnames = { checked: 0, wrong: 0 };
    for (const [w, realname] of ledger.realnames) {
      const res = await send(agent, base, 'GET', '/users/api/profile', tokens[w] ?? '');
      realnames.checked++;
      if ((JSON.parse(res.text) as { realname?: string }).realname !== realname) {
        realnames.wrong++;
        note(`worker ${w}: realname is not the last one acknowledged`);
      }
    }
    return { items, files, realnames, problems };
  } finally {
    agent.destroy();
  }
}
