import type { Mail } from '../core/mailer.js';
import { composeMail as mail } from '../core/mail-body.js';

/** Builders of every mail the user service sends; no transport in here. */

const withToken = (page: string, token: string) =>
  `${page}${page.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;

export function activationMail(to: string, name: string, url: string, token: string): Mail {
  return mail(
    'activation',
    to,
    'Activate your account',
    [
      `Hello ${name},`,
      'please confirm your address to activate your account.',
      `If the link does not open, enter this code on the activation page: ${token}`,
    ],
    { url: withToken(url, token), label: 'Activate your account' },
  );
}

export function welcomeMail(to: string, name: string): Mail {
  return mail('welcome', to, 'Your account is active', [
    `Hello ${name},`,
    'your account has been accepted and is active now. You can sign in.',
  ]);
}

/** `identity` is what the identity policy signs in with: the name, or the email under the email policy. */
export function passwordMail(
  to: string,
  name: string,
  password: string,
  identity: { kind: 'name' | 'email'; value: string } = { kind: 'name', value: name },
): Mail {
  return mail('password', to, 'Your password', [
    `Hello ${name},`,
    `your account is ready. Sign in with the ${identity.kind} ${identity.value} and this password: ${password}`,
    'Please change the password after your first sign-in.',
  ]);
}

export function verifyEmailMail(to: string, name: string, url: string, token: string): Mail {
  return mail(
    'verify_email',
    to,
    'Verify your new email address',
    [
      `Hello ${name},`,
      'please confirm that this is your new email address.',
      `Or enter this code on the verification page: ${token}`,
    ],
    { url: withToken(url, token), label: 'Verify your address' },
  );
}

/** A sign-in by mail: the link signs in with a click, the code is typed where the link does not open. */
export function signinCodeMail(to: string, name: string, url: string, token: string, code: string): Mail {
  return mail(
    'signin_code',
    to,
    `Your sign-in code: ${code}`,
    [
      `Hello ${name},`,
      `your sign-in code is ${code}. It works once, for a short time.`,
      'If you did not ask to sign in, ignore this mail: nobody can sign in without it.',
    ],
    { url: withToken(url, token), label: 'Sign in' },
  );
}

export function resetMail(to: string, name: string, url: string, token: string): Mail {
  return mail(
    'reset',
    to,
    'Reset your password',
    [
      `Hello ${name},`,
      'someone asked to reset the password of your account. If it was not you, ignore this mail.',
      `Or enter this code on the reset page: ${token}`,
    ],
    { url: withToken(url, token), label: 'Choose a new password' },
  );
}

/** A sign-in from a device the account never signed in from (new-device-mail.ts). */
export function newDeviceMail(
  to: string,
  name: string,
  signin: { device: string; address: string | null; at: string; method: string },
  accountUrl: string,
): Mail {
  return mail(
    'new_device',
    to,
    'A sign-in from a new device',
    [
      `Hello ${name},`,
      `your account was signed into from a device it was never signed into from before, at ${signin.at} (UTC), ` +
        `by ${signin.method}${signin.address ? `, from the address ${signin.address}` : ''}.`,
      `The device: ${signin.device}`,
      'If this was you, there is nothing to do. If not, change your password now and end the sessions you do not ' +
        'know on your account page.',
    ],
    { url: accountUrl, label: 'Your account' },
  );
}

export function reviewNotificationMail(
  to: string,
  user: { name: string; email: string | null; realname: string },
): Mail {
  return mail('signup_notification', to, 'A sign-up waits for review', [
    `${user.name} (${user.email ?? 'no email'}${user.realname ? `, ${user.realname}` : ''}) signed up and waits for ` +
      'your review.',
  ]);
}

export function contactMail(to: string, from: { name: string; email: string | null }, message: string): Mail {
  return mail('message', to, `Message from ${from.name}`, [
    `${from.name} <${from.email ?? 'no email'}> writes:`,
    message,
  ]);
}
