import { createHash } from 'node:crypto';
import { isoTime } from '../core/clock.js';
import type { Caller, UserContext } from './user-context.js';
import type { User } from './user-repo.js';
import { newDeviceMail } from './user-mails.js';

/**
 * A sign-in from a device the account never signed in from is told to the account by mail
 * (issue 45, item 6; `users.newDeviceMail`, off by default): what device, from where, when and by
 * which method, with a link to the account page where its sessions are ended. A device is the
 * client's User-Agent for this account (device-repo.ts keeps its hash); the account's first
 * device is not told (there is nothing to compare with), nor a sign-in without a User-Agent or
 * of an account without an address. The look-up and the mail run after the answer
 * (core/mailer.ts `later`), so a sign-in waits for neither.
 */
export function tellNewDevice(ctx: UserContext, caller: Caller, user: User, method: string): void {
  const settings = ctx.settings.newDeviceMail;
  const { device } = caller;
  const email = user.email;
  if (!settings || !device || !email) return;
  const now = ctx.clock.now();
  const deviceHash = createHash('sha256').update(`${user.id}\n${device}`).digest('hex');
  ctx.mailer.later(async () => {
    if ((await ctx.devices.seen(user.id, deviceHash, now)) !== 'new') return;
    const signin = { device, address: caller.address ?? null, at: isoTime(now), method };
    await ctx.mailer.send(newDeviceMail(email, user.name, signin, settings.accountUrl));
  });
}
