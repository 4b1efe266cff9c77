import { errorFromAnswer, isRoostError, RoostError } from './errors.js';
import type { CallOptions, ConnectorOptions } from './options.js';

/** A JSON answer of the server. */
export type Answer = Record<string, unknown>;

export interface SendInit {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: BodyInit | null;
  headers?: Record<string, string>;
  /** Needed by Node's fetch for a streamed (ReadableStream) body. */
  duplex?: 'half';
}

/**
 * What the three connectors share: the URL, the token, the timeout, the failure rules and the
 * callbacks. Every request is `fetch`; uploads with progress in a browser go through
 * `upload.ts` and come back here for their answer.
 */
export class Transport {
  constructor(readonly options: ConnectorOptions) {}

  url(path: string): string {
    return this.options.baseUrl + path;
  }

  /** The token to send now (the option may be a function). */
  token(): string | undefined {
    let token = this.options.token;
    // A function may hand on another connector's source (options.ts, TokenSource): follow it,
    // a few steps at most, so a source that answers itself cannot loop for ever.
    for (let depth = 0; typeof token === 'function' && depth < 8; depth++) token = token();
    return typeof token === 'string' && token ? token : undefined;
  }

  /** The headers of every request: the option's, the token, and `extra`. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...extra };
    const token = this.token();
    if (token) headers['x-auth-token'] = token;
    // An API key goes as the standard header; the server reads x-auth-token first, so it wins over a key.
    else if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  /**
   * POST `values` as JSON to `path`; resolves with the JSON answer
   * or rejects with {@link RoostError}, telling the callbacks.
   */
  call<T>(operation: string, path: string, values: object = {}, call?: CallOptions<T>): Promise<T> {
    return this.settle(operation, call, () => this.request<T>(operation, path, values, call));
  }

  /** {@link call} without the callbacks, for methods that do more before they settle. */
  async request<T>(
    operation: string,
    path: string,
    values: object = {},
    call?: { signal?: AbortSignal; timeout?: number },
  ): Promise<T> {
    const deadline = this.deadline(call);
    try {
      const response = await this.send(
        operation,
        path,
        { method: 'POST', body: JSON.stringify(values), headers: { 'content-type': 'application/json' } },
        deadline,
      );
      return (await this.answer(operation, response, deadline)) as T;
    } finally {
      deadline.clear();
    }
  }

  /**
   * A call of a JSON route in the REST shape (the collections' `/api/collections/...`):
   * `method` on `path` with `body` as JSON, telling the callbacks.
   */
  rest<T>(
    operation: string,
    method: SendInit['method'],
    path: string,
    body: unknown,
    call?: CallOptions<T>,
  ): Promise<T> {
    return this.settle(operation, call, () => this.restRequest<T>(operation, method, path, body, call));
  }

  /**
   * {@link rest} without the callbacks. Only the status tells a failure: a record may have fields
   * named `result` and `code`, which {@link parseAnswer} would read as one. A 204 answers null.
   */
  async restRequest<T>(
    operation: string,
    method: SendInit['method'],
    path: string,
    body: unknown,
    call?: { signal?: AbortSignal; timeout?: number },
  ): Promise<T> {
    const deadline = this.deadline(call);
    try {
      const init: SendInit =
        body === undefined
          ? { method }
          : { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
      const response = await this.send(operation, path, init, deadline);
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        throw deadline.failure(operation, err, this.options.baseUrl);
      }
      if (response.status === 204) return null as T;
      const answer = text === '' ? null : parseObject(text);
      if (!answer)
        throw new RoostError('The answer is not a JSON object.', {
          status: response.status,
          code: 'invalid_answer',
          operation,
        });
      return answer as T;
    } finally {
      deadline.clear();
    }
  }

  /** The timeout of one call (its own or the connector's), joined with its abort signal. */
  deadline(call?: { signal?: AbortSignal; timeout?: number }): Deadline {
    return new Deadline(call?.timeout ?? this.options.timeout, call?.signal);
  }

  /**
   * One request. Resolves with the response when its status is below 400; a failure status
   * rejects with the error its JSON body describes. `deadline` aborts it, also while the caller
   * reads the body; the caller clears it.
   */
  async send(operation: string, path: string, init: SendInit, deadline: Deadline): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(this.url(path), {
        ...init,
        headers: this.headers(init.headers),
        signal: deadline.signal,
        ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
      } as RequestInit);
    } catch (err) {
      throw deadline.failure(operation, err, this.options.baseUrl);
    }
    if (response.status >= 400) throw await this.failure(operation, response);
    return response;
  }

  /** The JSON answer of `response`; an answer that says it failed (`result` false or 0 with a `code`) rejects. */
  async answer(operation: string, response: Response, deadline: Deadline): Promise<Answer> {
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw deadline.failure(operation, err, this.options.baseUrl);
    }
    return this.parseAnswer(operation, response.status, text);
  }

  /** The JSON answer in `text` (of a fetch or an XMLHttpRequest). */
  parseAnswer(operation: string, status: number, text: string): Answer {
    const answer = parseObject(text);
    if (status >= 400)
      throw errorFromAnswer(operation, status, answer ?? { message: `${operation} failed with HTTP ${status}` });
    if (!answer)
      throw new RoostError('The answer is not a JSON object.', { status, code: 'invalid_answer', operation });
    if ((answer.result === false || answer.result === 0) && typeof answer.code === 'string')
      throw errorFromAnswer(operation, status, answer);
    return answer;
  }

  /** Run `work`, report the outcome to the callbacks of the options and of the call. */
  settle<T>(operation: string, call: CallOptions<T> | undefined, work: () => Promise<T>): Promise<T> {
    const promise = work().then(
      (result) => {
        this.options.onSuccess?.(operation, result);
        call?.success?.(result);
        return result;
      },
      (err: unknown) => {
        const error = isRoostError(err)
          ? err
          : new RoostError(String((err as Error)?.message ?? err), { code: 'error', operation, cause: err });
        this.options.onFailure?.(error);
        call?.failure?.(error);
        throw error;
      },
    );
    // The failure callback is the caller's handler: an unawaited promise must not also count
    // as an unhandled rejection (Node ends the process on one).
    if (call?.failure) promise.catch(() => {});
    return promise;
  }

  private async failure(operation: string, response: Response): Promise<RoostError> {
    let body: Answer | null = null;
    try {
      body = parseObject(await response.text());
    } catch {
      // the body broke off: the status alone tells what failed
    }
    const error = errorFromAnswer(
      operation,
      response.status,
      body ?? { message: `${operation} failed with HTTP ${response.status}` },
    );
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter) error.body.retryAfter ??= retryAfter;
    return error;
  }
}

function parseObject(text: string): Answer | null {
  if (text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Answer) : null;
  } catch {
    return null;
  }
}

/**
 * A timeout joined with the caller's abort signal. `touch()` restarts the clock (progress of an
 * upload or download), so a long transfer that keeps moving never times out.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #timeout: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  readonly #caller: AbortSignal | undefined;

  readonly #onCallerAbort = () => this.#controller.abort(this.#caller?.reason);

  constructor(timeout: number, caller?: AbortSignal) {
    this.#timeout = timeout;
    this.#caller = caller;
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  touch(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#timeout > 0 && !this.#controller.signal.aborted) {
      this.#timer = setTimeout(() => {
        this.#timedOut = true;
        this.#controller.abort(new Error('timeout'));
      }, this.#timeout);
    }
  }

  /** The call is over: no timer left, and a long-lived caller's signal keeps no listener of it. */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  /** The error of a request that got no (complete) answer. */
  failure(operation: string, cause: unknown, baseUrl: string): RoostError {
    if (isRoostError(cause)) return cause;
    if (this.#timedOut)
      return new RoostError(`No answer within ${this.#timeout} ms.`, { code: 'timeout', operation, cause });
    if (this.#caller?.aborted) return new RoostError('The call was aborted.', { code: 'aborted', operation, cause });
    const detail =
      cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
    return new RoostError(`The connection to ${baseUrl} failed: ${detail}`, {
      code: 'network_error',
      operation,
      cause,
    });
  }
}
