import { z } from 'zod';
import { isWellFormed, looseBoolean, looseInt, requiredText, stringList } from '../core/validation.js';

/**
 * The input shape of every user operation, with the seed's field reasons (`required`,
 * `too short`, `too long`, `invalid_email`). Rules about other rows (a taken name) are checked by
 * the service. The same schemas describe the operations in /openapi.json.
 */
export interface UserLimits {
  nameMinLength: number;
  passwordMinLength: number;
  dataMaxLength: number;
}

const NAME_MAX = 40;
const PASSWORD_MAX = 256;
const EMAIL_MAX = 254;
const MESSAGE_MAX = 5000;

/** Names are letters, digits, `.`, `_` and `-`: never an `@`, so a name is never an email. */
const NAME_CHARS = /^[\p{L}\p{N}._-]+$/u;

export function createUserInputs(limits: UserLimits) {
  const name = requiredText(NAME_MAX, limits.nameMinLength).refine((s) => NAME_CHARS.test(s), { message: 'invalid' });
  const email = requiredText(EMAIL_MAX).pipe(z.email());
  const password = requiredText(PASSWORD_MAX, limits.passwordMinLength);
  const realname = z.string().max(255).refine(isWellFormed, { message: 'invalid' });
  const data = z
    .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .transform((d) => (typeof d === 'string' ? d : JSON.stringify(d)))
    .pipe(z.string().max(limits.dataMaxLength).refine(isWellFormed, { message: 'invalid' }));
  const token = requiredText(200);
  const identity = requiredText(EMAIL_MAX);

  const profileExtras = { realname: realname.optional(), notify: looseBoolean.optional(), data: data.optional() };

  const listQuery = z.object({
    active: looseBoolean.optional(),
    pending: looseBoolean.optional(),
    name: z.string().max(NAME_MAX).optional(),
    email: z.string().max(EMAIL_MAX).optional(),
    search: z.string().max(EMAIL_MAX).optional(),
    group: z.string().max(100).optional(),
    start: looseInt.pipe(z.number().min(1)).default(1),
    size: looseInt.pipe(z.number().min(0)).optional(),
    sort: z.enum(['name', 'email', 'realname', 'activity', 'created']).default('name'),
    order: z.enum(['<', '>']).default('<'),
  });

  return {
    credentials: z.object({ identity, password: requiredText(PASSWORD_MAX) }),
    signup: z.object({ name, email, password, ...profileExtras }),
    signupSendpw: z.object({ name, email, ...profileExtras }),
    signupUid: z.object({ password, email: email.optional(), ...profileExtras }),
    token: z.object({ token }),
    authenticated: z.object({ groups: stringList.optional(), group: stringList.optional() }),
    update: z.object(profileExtras),
    updatePassword: z.object({ password: requiredText(PASSWORD_MAX), newpassword: password }),
    email: z.object({ email }),
    identity: z.object({ identity }),
    resetPassword2: z.object({ token, newpassword: password }),
    message: z.object({ message: requiredText(MESSAGE_MAX) }),
    review: z.object({ identity, action: requiredText(20) }),
    setUser: z.object({
      identity,
      values: z
        .object({
          name: name.optional(),
          email: email.optional(),
          password: password.optional(),
          groups: stringList.pipe(z.array(z.string().min(1).max(100)).max(100)).optional(),
          active: looseBoolean.optional(),
          pending: looseBoolean.optional(),
          ...profileExtras,
        })
        .strict(),
    }),
    list: listQuery,
  };
}

export type UserInputs = ReturnType<typeof createUserInputs>;
export type ListQuery = z.output<UserInputs['list']>;
