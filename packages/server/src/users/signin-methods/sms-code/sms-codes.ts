import { randomInt, timingSafeEqual } from 'node:crypto';
import { commonErrors } from '../../../core/errors.js';
import { hashToken } from '../../../core/ids.js';
import type { SmsDelivery, SmsQueue } from '../../../core/sms.js';
import type { Caller, UserContext } from '../../user-context.js';
import type { User } from '../../user-repo.js';
import type { SmsPurpose, SmsRepo } from './sms-code-repo.js';
import { smsErrors } from './sms-errors.js';

/** The method's settings from the boot configuration (`users.sms`; index.ts makes them). */
interface SmsSettings {
  lifetimeMs: number;
  maxTries: number;
  resendMs: number;
  windowMs: number;
  perNumber: number;
  perAccount: number;
  perAddress: number;
  /** The text, `{{code}}` in it. */
  text: string;
}

/** What the codes need beside the service's context. */
export interface SmsEnv {
  repo: SmsRepo;
  /** The queue texts go through; null: no sender is set up (`sms_unavailable`). */
  sms: SmsQueue | null;
  settings: SmsSettings;
}

/** A code that went out: when it stops working, and whether it left at once. */
export interface SentSms {
  expires: number;
  delivery: SmsDelivery;
}

/** The stored form of a code: its hash bound to the account and purpose (a code alone names nothing). */
const codeHash = (userId: string, purpose: SmsPurpose, code: string) =>
  hashToken(`sms-code\0${userId}\0${purpose}\0${code}`);

/**
 * Counts one text under `key` in a window of `windowMs`: `rate_limited` with the window's length
 * as Retry-After once more than `max` were sent (counted in the database, user-repo.ts
 * `countAttempt`, so parallel requests and several processes count alike).
 */
async function claim(ctx: UserContext, key: string, windowMs: number, max: number): Promise<void> {
  const now = ctx.clock.now();
  if ((await ctx.repo.countAttempt(key, now, now - windowMs)) > max)
    throw commonErrors.rate_limited({ retryAfterSeconds: Math.ceil(windowMs / 1000) });
}

/**
 * The limits of texts by number (docs/users.md, "Codes by SMS"): a new code for a number only
 * `resendMs` after the last, at most `perNumber` in a window, and `perAddress` per client
 * address. A text costs money and can flood a number, so each limit is counted before the code
 * is made; a sign-in by number counts them for every request, whether or not the number is known.
 */
export async function claimNumberTexts(ctx: UserContext, env: SmsEnv, caller: Caller, phone: string): Promise<void> {
  const s = env.settings;
  if (s.resendMs > 0) await claim(ctx, `sms-wait-to:${phone}`, s.resendMs, 1);
  await claim(ctx, `sms-to:${phone}`, s.windowMs, s.perNumber);
  if (caller.address) await claim(ctx, `sms-ip:${caller.address}`, s.windowMs, s.perAddress);
}

/** The limits of texts by account: `resendMs` between codes, at most `perAccount` in a window. */
async function claimAccountTexts(ctx: UserContext, env: SmsEnv, user: User): Promise<void> {
  const s = env.settings;
  if (s.resendMs > 0) await claim(ctx, `sms-wait-from:${user.id}`, s.resendMs, 1);
  await claim(ctx, `sms-from:${user.id}`, s.windowMs, s.perAccount);
}

/** The queue, or `sms_unavailable` when no sender is set up. */
export function smsQueue(env: SmsEnv): SmsQueue {
  if (!env.sms) throw smsErrors.sms_unavailable();
  return env.sms;
}

/**
 * Sends `user` a new six-digit code for `purpose` to `phone`, in place of its earlier one: good
 * once, for `lifetimeMs`, for `maxTries` answers. `numberClaimed`: the number's limits were
 * counted already (a sign-in by number counts them in its request, the text goes after it).
 */
export async function sendCode(
  ctx: UserContext,
  env: SmsEnv,
  caller: Caller,
  user: User,
  purpose: SmsPurpose,
  phone: string,
  numberClaimed = false,
): Promise<SentSms> {
  const queue = smsQueue(env);
  if (!numberClaimed) await claimNumberTexts(ctx, env, caller, phone);
  await claimAccountTexts(ctx, env, user);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expires = ctx.clock.now() + env.settings.lifetimeMs;
  await env.repo.putCode(
    user.id,
    purpose,
    { codeHash: codeHash(user.id, purpose, code), phone, tries: 0, expires },
    ctx.clock.now(),
  );
  const text = env.settings.text.replaceAll('{{code}}', code);
  const delivery = await queue.send({ to: phone, text, kind: `sms-${purpose}` }, caller.principal);
  return { expires, delivery };
}

/**
 * Whether `typed` is the account's pending code of `purpose` (sent to `phone`, when given), and
 * takes it: each code once, while unexpired and under `maxTries` wrong answers (a wrong one adds
 * a try). The hashes are compared in constant time.
 */
export async function takeCode(
  ctx: UserContext,
  env: SmsEnv,
  userId: string,
  purpose: SmsPurpose,
  typed: string,
  phone?: string,
): Promise<boolean> {
  const now = ctx.clock.now();
  const sent = await env.repo.codeOf(userId, purpose);
  if (!sent || sent.expires <= now || sent.tries >= env.settings.maxTries) return false;
  if (phone !== undefined && sent.phone !== phone) return false;
  const hash = codeHash(userId, purpose, typed.replace(/\s/g, ''));
  if (!timingSafeEqual(Buffer.from(hash), Buffer.from(sent.codeHash))) {
    await env.repo.addTry(userId, purpose, sent.codeHash);
    return false;
  }
  return env.repo.take(userId, purpose, sent.codeHash, now, env.settings.maxTries);
}
