/**
 * The one error type of the domain. A service throws a `RoostError` for every rule violation;
 * the HTTP layer maps `kind` to a status in one table (http/error-handler.ts). The domain never
 * names an HTTP status.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'malformed';

/** A `[field, reason]` pair, as the seed's failure body shows them. */
export type FieldProblem = [field: string, reason: string];

export interface RoostErrorOptions {
  fields?: FieldProblem[];
  cause?: unknown;
  /** Extra members of the failure body (for example `result: 0, success: []`). */
  body?: Record<string, unknown>;
  /** For `rate_limited`: when to try again (the HTTP layer sends it as Retry-After). */
  retryAfterSeconds?: number;
}

export class RoostError extends Error {
  override readonly name = 'RoostError';
  readonly kind: ErrorKind;
  /** Stable snake_case code, listed in docs/errors.md. */
  readonly code: string;
  readonly fields: FieldProblem[];
  readonly body: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, code: string, message: string, options: RoostErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.code = code;
    this.fields = options.fields ?? [];
    this.body = options.body ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isRoostError(value: unknown): value is RoostError {
  return value instanceof Error && value.name === 'RoostError';
}

/** A registry of codes with their default messages, one per domain module. */
export function defineErrors<T extends Record<string, { kind: ErrorKind; message: string }>>(
  registry: T,
): { [K in keyof T]: (options?: RoostErrorOptions & { message?: string }) => RoostError } & {
  codes: T;
} {
  const makers: Record<string, unknown> = { codes: registry };
  for (const [code, { kind, message }] of Object.entries(registry)) {
    makers[code] = (options: RoostErrorOptions & { message?: string } = {}) =>
      new RoostError(kind, code, options.message ?? message, options);
  }
  return makers as ReturnType<typeof defineErrors<T>>;
}

/** Errors every service can raise. */
export const commonErrors = defineErrors({
  validation_failure: { kind: 'invalid', message: 'Some fields are missing or invalid.' },
  not_signed_in: { kind: 'unauthenticated', message: 'Sign in first.' },
  not_allowed: { kind: 'forbidden', message: 'You are not allowed to do this.' },
  unknown_permission: { kind: 'invalid', message: 'There is no permission of that name.' },
  rate_limited: { kind: 'rate_limited', message: 'Too many requests. Try again later.' },
  mail_failed: { kind: 'unavailable', message: 'The mail could not be sent. Try again later.' },
});
