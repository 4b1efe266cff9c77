import { z } from 'zod';
import { pageUrlSchema, seconds } from './config-parts.js';

/** A header's name as HTTP allows it (RFC 9110 `token`). */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, 'a header name');
const country = z.string().regex(/^[A-Z]{2}$/, 'a two-letter country code (ISO 3166-1), such as DE');

/**
 * The HTTP gateway texts go through (sms/http-sms-sender.ts): its URL, method, headers (an API
 * key among them: the configuration's secrets stay out of logs), the JSON body with `{{to}}` and
 * `{{text}}` in its strings, the time a try may take and the tries in all.
 */
const smsSenderOptions = z
  .object({
    url: pageUrlSchema,
    method: z.enum(['POST', 'PUT']).default('POST'),
    headers: z.record(headerName, z.string().max(4000)).default({}),
    body: z.json().default({ to: '{{to}}', text: '{{text}}' }),
    timeoutSeconds: seconds.max(60).default(10),
    maxAttempts: z.number().int().min(1).max(20).default(5),
  })
  .strict();

/**
 * Codes by SMS (users/signin-methods/sms-code/; docs/users.md, "Codes by SMS"): the sender (none:
 * the method's operations answer `sms_unavailable`), the codes' lifetime and tries, the wait
 * before a new code, the texts per number, account and client address in a window, the
 * countries numbers may be in (empty: any), the country of numbers written without `+`, and the
 * text (`{{code}}` in it).
 */
export const smsOptions = z
  .object({
    sender: smsSenderOptions.optional(),
    codeLifetimeSeconds: seconds.max(3600).default(300),
    maxTries: z.number().int().min(1).max(20).default(5),
    resendSeconds: z.number().int().min(0).max(3600).default(30),
    windowSeconds: seconds.default(3600),
    perNumber: z.number().int().min(1).default(5),
    perAccount: z.number().int().min(1).default(10),
    perAddress: z.number().int().min(1).default(20),
    countries: z.array(country).max(250).default([]),
    defaultCountry: country.optional(),
    text: z
      .string()
      .min(1)
      .max(300)
      .refine((t) => t.includes('{{code}}'), 'must hold {{code}}')
      .default('Your sign-in code is {{code}}.'),
  })
  .strict();
