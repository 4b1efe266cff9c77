/**
 * SCIM's own error body (RFC 7644 §3.12): the protocol requires it, so `/scim/v2/` answers it
 * instead of Roost's failure body (http/failure.ts; docs/errors.md says so). `scimType` is one of
 * the RFC's words where one applies.
 */
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export class ScimError extends Error {
  override readonly name = 'ScimError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType: ScimType | null = null,
  ) {
    super(detail);
  }
}

/** The body of an error answer. */
export function errorBody(status: number, detail: string, scimType: ScimType | null) {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
export const invalidSyntax = (detail: string) => new ScimError(400, detail, 'invalidSyntax');
export const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter');
export const uniqueness = (detail: string) => new ScimError(409, detail, 'uniqueness');
export const notFound = (what: string, id: string) =>
  new ScimError(404, `No ${what} has the id "${[...id].slice(0, 100).join('')}".`);

/**
 * Whether a path's id can name a resource at all (ids are UUIDs, core/ids.ts `newId`): a NUL
 * character would be a PostgreSQL error, a long text a wasted query; either is a 404.
 */
export const possibleId = (id: string) => id.length <= 64 && !id.includes('\u0000');
/** An `If-Match` that names another version (RFC 7644 §3.14). */
export const versionMismatch = () =>
  new ScimError(412, 'The resource changed since the version the If-Match header names.');
/** Another write changed the resource between this one's read and its write. */
export const versionChanged = () =>
  new ScimError(409, 'The resource was changed by another request meanwhile; read it and try again.');
