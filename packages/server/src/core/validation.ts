import { z } from 'zod';
import { commonErrors, type FieldProblem } from './errors.js';

/**
 * Input parsing shared by every service. Parameters arrive from a JSON body, a form body or the
 * query string, so scalars may come as text; `null` counts as absent (the Python connector sends
 * `null` for every unset option).
 */

/** A refusal of one field's value (422 on the stores, 200 on the user routes): every service's one way to say it. */
export const invalidField = (field: string, reason: string, body?: Record<string, unknown>) =>
  commonErrors.validation_failure({ fields: [[field, reason]], ...(body ? { body } : {}) });

const TRUE_WORDS = new Set(['1', 'true', 'True', 'yes', 'on', 'checked']);
const FALSE_WORDS = new Set(['0', 'false', 'False', 'no', 'off']);

export const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Text that can be stored as it is: no unpaired surrogate. Such a string is not valid Unicode;
 * SQLite and PostgreSQL store UTF-8, and the conversion would silently turn it into U+FFFD.
 */
export const isWellFormed = (text: string) => !LONE_SURROGATE.test(text);

/** A boolean that also accepts the words and numbers the connectors and HTML forms send. */
export const looseBoolean = z.preprocess((v) => {
  if (typeof v === 'string') {
    if (TRUE_WORDS.has(v)) return true;
    if (FALSE_WORDS.has(v)) return false;
  }
  if (v === 1) return true;
  if (v === 0) return false;
  return v;
}, z.boolean());

/** An integer that also accepts its decimal text (query strings). */
export const looseInt = z.preprocess(
  (v) => (typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim()) ? Number(v) : v),
  z.number().int(),
);

/** A string or a list of strings, always given back as a list. */
export const stringList = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()));

/** Drop `null` and `undefined` members: absent and null mean the same. */
export function withoutNulls(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** The seed's reason for one zod issue. */
function reasonOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'required' : 'invalid';
    case 'too_small':
      return 'too short';
    case 'too_big':
      return 'too long';
    case 'invalid_format':
      return issue.format === 'email' ? 'invalid_email' : 'invalid';
    case 'custom':
      return issue.message;
    default:
      return 'invalid';
  }
}

/** Zod issues as `[field, reason]` pairs, one per field (the first problem wins). */
export function fieldProblems(error: z.ZodError): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.map(String).join('.') : 'body';
    if (seen.has(field)) continue;
    seen.add(field);
    out.push([field, reasonOf(issue)]);
  }
  return out;
}

/**
 * Parse `input` with `schema`, throwing the `validation_failure` RoostError with the field
 * pairs when it does not fit.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const source =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? withoutNulls(input as Record<string, unknown>)
      : input;
  // `reportInput` keeps the input on the issues, which tells `required` (absent) from `invalid`.
  const parsed = schema.safeParse(source, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw commonErrors.validation_failure({ fields: fieldProblems(parsed.error) });
}

/** A required, trimmed-for-emptiness string: empty text counts as missing (`required`). */
export function requiredText(max: number, min = 1) {
  return z
    .string()
    .refine((s) => s.trim().length > 0, { message: 'required', abort: true })
    .pipe(z.string().min(min).max(max));
}

/** The permission entries of `setPermissions`, in the seed's and the connectors' forms. */
const permissionEntry = z
  .object({
    permission: z.string().min(1).max(100),
    groups: stringList.optional(),
    group: stringList.optional(),
    action: z.enum(['add', 'replace', 'revoke']).default('add'),
  })
  .transform(({ permission, groups, group, action }) => ({
    permission,
    groups: [...(groups ?? []), ...(group ?? [])].filter((g) => g.length > 0),
    action,
  }))
  .refine((e) => e.groups.length > 0 || e.action === 'replace', {
    message: 'required',
    path: ['groups'],
  });

export const setPermissionsInput = z.object({
  permissions: z.preprocess(
    (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? [v] : v),
    z.array(permissionEntry).min(1).max(200),
  ),
});

export const allowedInput = z
  .object({ permission: stringList.optional(), permissions: stringList.optional() })
  .transform(({ permission, permissions }) => [...(permission ?? []), ...(permissions ?? [])])
  .refine((names) => names.length > 0, { message: 'required', path: ['permission'] });
