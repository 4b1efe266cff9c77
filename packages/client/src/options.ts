import type { RoostError } from './errors.js';

/**
 * A token, or a function asked for it before each request (to share one sign-in between
 * connectors). The function may answer another connector's source as it stands,
 * `token: () => auth.options.token`, which is itself a token or a function: it is followed.
 */
export type TokenSource = string | null | undefined | (() => TokenSource);

/**
 * The options of a connector.
 *
 * @example
 * const data = datastore('data', { baseUrl: 'http://127.0.0.1:8080', token, timeout: 10_000 });
 */
export interface RoostOptions {
  /**
   * Where Roost answers, e.g. `http://127.0.0.1:8080`. In a browser
   * it defaults to the page's origin; in Node it is required.
   */
  baseUrl?: string;
  /** A token of `users.token()`, sent as `x-auth-token`; or a function returning the current one. */
  token?: TokenSource;
  /**
   * An API key (`roost_…`) an administrator made for a server that calls Roost, sent as
   * `Authorization: Bearer` with every request (docs/operations.md, "API keys"). What it may do
   * is its scopes; a key that is revoked or expired makes every call fail with `invalid_api_key`.
   */
  apiKey?: string;
  /**
   * Cookie mode, as `fetch` names it: `'include'` sends and keeps the `auth` cookie of `signin`
   * also across origins (Roost must list the page's origin in `corsOrigins`); the browser's
   * default, `'same-origin'`, does so for a page served by Roost itself; `'omit'` never.
   * Browsers only: Node's `fetch` keeps no cookies.
   */
  credentials?: RequestCredentials;
  /**
   * Milliseconds to wait for an answer (default 30 000; 0 waits for ever).
   * An upload or download waits this long for each piece of progress.
   */
  timeout?: number;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** Called as `onSuccess(operation, result)` after every successful operation. */
  onSuccess?: (operation: string, result: unknown) => void;
  /** Called as `onFailure(error)` for every failure, before the promise rejects. */
  onFailure?: (error: RoostError) => void;
}

/** The options of a connector after checking; `token` and `headers` may be changed at any time. */
export interface ConnectorOptions {
  readonly baseUrl: string;
  token: TokenSource;
  readonly apiKey: string | undefined;
  readonly credentials: RequestCredentials | undefined;
  readonly timeout: number;
  headers: Record<string, string>;
  readonly onSuccess: ((operation: string, result: unknown) => void) | undefined;
  readonly onFailure: ((error: RoostError) => void) | undefined;
}

/**
 * Per call: an abort signal, a timeout of its own, and callbacks. A `failure` callback handles
 * the failure: the returned promise still rejects when awaited, but an unawaited one does not
 * count as an unhandled rejection.
 */
export interface CallOptions<T> {
  signal?: AbortSignal;
  timeout?: number;
  success?: (result: T) => void;
  failure?: (error: RoostError) => void;
}

const DEFAULT_TIMEOUT = 30_000;
const CREDENTIALS = new Set<unknown>(['include', 'same-origin', 'omit']);
const KNOWN = new Set(['baseUrl', 'token', 'apiKey', 'credentials', 'timeout', 'headers', 'onSuccess', 'onFailure']);

/** Check and complete the options; a mistake throws `TypeError` at once rather than failing every call. */
export function resolveOptions(options: RoostOptions = {}): ConnectorOptions {
  const unknown = Object.keys(options).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw new TypeError(`unknown connector option(s): ${unknown.join(', ')}`);
  const baseUrl = (options.baseUrl ?? pageOrigin()).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    throw new TypeError('the option baseUrl is an http:// or https:// address (required outside a browser)');
  const timeout = options.timeout ?? DEFAULT_TIMEOUT;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0)
    throw new TypeError('the option timeout is a number of milliseconds, 0 or more');
  if (options.credentials !== undefined && !CREDENTIALS.has(options.credentials))
    throw new TypeError("the option credentials is 'include', 'same-origin' or 'omit'");
  const token = options.token;
  if (token != null && typeof token !== 'string' && typeof token !== 'function')
    throw new TypeError('the option token is a string or a function');
  const apiKey = options.apiKey;
  if (apiKey !== undefined && (typeof apiKey !== 'string' || !apiKey.startsWith('roost_')))
    throw new TypeError('the option apiKey is a key Roost made, starting with roost_');
  return {
    baseUrl,
    token,
    apiKey,
    credentials: options.credentials,
    timeout,
    headers: { ...options.headers },
    onSuccess: options.onSuccess,
    onFailure: options.onFailure,
  };
}

/** A store's name, as Roost's configuration allows them (so it is one plain path segment). */
export function checkStoreName(name: unknown): string {
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(name))
    throw new TypeError('a store name is 1-63 characters of a-z, 0-9, - and _, starting with a letter or digit');
  return name;
}

function pageOrigin(): string {
  const location = (globalThis as { location?: { origin?: string } }).location;
  return typeof location?.origin === 'string' && location.origin !== 'null' ? location.origin : '';
}
