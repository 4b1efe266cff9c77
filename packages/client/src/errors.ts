/** A `[field, reason]` pair of a failure, e.g. `['email', 'invalid_email']`. */
export type FieldProblem = [field: string, reason: string];

/** Codes of failures where no answer of the server came (status 0). */
export type TransportCode = 'network_error' | 'timeout' | 'aborted' | 'invalid_answer';

export interface RoostErrorInit {
  status?: number;
  code?: string;
  messages?: string[];
  fields?: FieldProblem[];
  operation?: string;
  body?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * Every failure of a Roost connector, whatever went wrong: an HTTP failure status, the user
 * service's validation failures (which the server answers with HTTP 200 and `result: false`),
 * a failed connection, a timeout, an aborted call.
 *
 * - `status`: the HTTP status; 200 for a `result: false` answer; 0 when no answer came.
 * - `code`: the server's stable code (`validation_failure`, `not_signed_in`, `item_not_found`,
 *   ... see docs/errors.md), or `network_error`, `timeout`, `aborted`, `invalid_answer` (status 0,
 *   or an answer that is not JSON), or `http_<status>` for a failure without a JSON body.
 * - `messages`: the texts of the answer, the status message first.
 * - `fields`: the `[field, reason]` pairs of invalid fields.
 * - `body`: the whole parsed failure body (`{}` when there was none); `cause`: the underlying
 *   error of a transport failure.
 *
 * @example
 * try {
 *   await users.signupDirect('al', 'alice-at-example', '');
 * } catch (error) {
 *   if (isRoostError(error)) console.log(error.code, error.fields);
 *   // validation_failure [['name', 'too short'], ['email', 'invalid_email'], ['password', 'required']]
 * }
 */
export class RoostError extends Error {
  override readonly name = 'RoostError' as const;
  readonly status: number;
  readonly code: string;
  readonly messages: string[];
  readonly fields: FieldProblem[];
  readonly operation: string;
  readonly body: Record<string, unknown>;

  constructor(message: string, init: RoostErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status ?? 0;
    this.code = init.code ?? 'error';
    this.messages = init.messages ?? [message];
    this.fields = init.fields ?? [];
    this.operation = init.operation ?? '';
    this.body = init.body ?? {};
  }

  /** The reason given for `field`, if the failure names it (`error.reason('email') === 'exists'`). */
  reason(field: string): string | undefined {
    return this.fields.find(([name]) => name === field)?.[1];
  }
}

/**
 * Is `value` a {@link RoostError}? Matches by class and, across realms (an iframe, a second
 * copy of the bundle), by `name` and shape.
 *
 * @example
 * promise.catch((error) => { if (isRoostError(error) && error.status === 401) showSignIn(); });
 */
export function isRoostError(value: unknown): value is RoostError {
  if (value instanceof RoostError) return true;
  // Another realm's Error is no `instanceof Error` here: match the name and the shape.
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<RoostError>;
  return (
    candidate.name === 'RoostError' &&
    typeof candidate.status === 'number' &&
    typeof candidate.code === 'string' &&
    Array.isArray(candidate.fields)
  );
}

/** The error of a failure answer `{result, code, message, messages, invalid}` of any status. */
export function errorFromAnswer(operation: string, status: number, body: Record<string, unknown>): RoostError {
  const texts = Array.isArray(body.messages) ? body.messages.filter((m): m is string => typeof m === 'string') : [];
  const message =
    typeof body.message === 'string' && body.message !== ''
      ? body.message
      : (texts[0] ?? `${operation} failed with HTTP ${status}`);
  return new RoostError(message, {
    status,
    code: typeof body.code === 'string' && body.code !== '' ? body.code : `http_${status}`,
    messages: texts.length > 0 ? texts : [message],
    fields: fieldPairs(body.invalid),
    operation,
    body,
  });
}

/** The `[field, reason]` pairs of `invalid`, skipping anything of another shape. */
function fieldPairs(value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((pair): pair is [unknown, unknown] => Array.isArray(pair) && pair.length === 2)
    .map(([field, reason]) => [String(field), String(reason)]);
}
