import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';

/**
 * One HTTP request exactly as written (path bytes, headers, body), and what the server
 * answered; plus the checks every answer to hostile input must pass.
 */
export interface WireCall {
  method: string;
  /** Path and query, sent as is (no normalisation of `..` or encodings). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface WireAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export function send(baseUrl: string, call: WireCall, timeoutMs = 60_000): Promise<WireAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers = { ...call.headers };
    if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: call.path, method: call.method, headers, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer within ${timeoutMs} ms: ${call.method} ${call.path.slice(0, 200)}`)),
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Traces of a stack or of the sources in an answer: never to be sent to a client. */
const LEAK =
  /\n\s+at \S|node_modules\/|\/src\/[\w/-]+\.ts|\.ts:\d+:\d+|\b(TypeError|RangeError|ReferenceError|SyntaxError):/;

/**
 * The rules for every answer: below 500; JSON (except a download's bytes); a failure has the
 * failure body (`result` false or 0, a `code`, a `message`); nothing that looks like a stack.
 * Returns whether the answer is a refusal (4xx, or the user service's 200 `result: false`).
 */
export function checkAnswer(answer: WireAnswer, context: string, options: { download?: boolean } = {}): boolean {
  const where = `${context}\n→ ${answer.status} ${answer.text.slice(0, 300)}`;
  assert.ok(answer.status >= 200 && answer.status < 500, `status ${answer.status} for ${where}`);
  assert.doesNotMatch(answer.text, LEAK, `stack or source in the answer to ${where}`);
  const download = options.download === true && answer.status < 400;
  if (download || answer.status === 204 || answer.status === 304) return false;
  assert.match(String(answer.headers['content-type'] ?? ''), /^application\/json/, `content type of ${where}`);
  const body = answer.json as Record<string, unknown> | undefined;
  assert.ok(body !== null && typeof body === 'object', `a JSON object for ${where}`);
  if (answer.status >= 400) {
    assert.ok(body.result === false || body.result === 0, `result false in ${where}`);
    assert.equal(typeof body.code, 'string', `code in ${where}`);
    assert.equal(typeof body.message, 'string', `message in ${where}`);
    return true;
  }
  return body.result === false && typeof body.code === 'string';
}
