import { RoostError, type ErrorKind, type FieldProblem } from '../core/errors.js';

/** What a hook refuses with: the failure its caller gets in Roost's usual body (http/failure.ts). */
export interface Refusal {
  /** 422 by default; 400, 401, 403, 404, 409, 413, 429 or 503 (the statuses of http/failure.ts). */
  status?: number;
  /** A stable snake_case code the team documents for its clients (default `refused`). */
  code?: string;
  message: string;
  /** Field errors: `{ email: 'this domain may not sign up' }`. */
  fields?: Readonly<Record<string, string>>;
}

/** The error kind of each status a refusal may have (the reverse of http/failure.ts's table). */
const KINDS: Readonly<Record<number, ErrorKind>> = {
  400: 'malformed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  422: 'invalid',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * A hook's refusal (docs/hooks.md): `throw refuse({ code: 'domain_refused', message, fields })`.
 * Any `RoostError` a hook throws is a refusal; this is the short way to make one.
 */
export function refuse(refusal: Refusal): RoostError {
  const status = refusal.status ?? 422;
  const kind = KINDS[status];
  if (!kind) throw new TypeError(`refuse: status ${status} is none of ${Object.keys(KINDS).join(', ')}`);
  const fields = Object.entries(refusal.fields ?? {}).map(([field, reason]): FieldProblem => [field, reason]);
  return new RoostError(kind, refusal.code ?? 'refused', refusal.message, { fields });
}
