import type nodemailer from 'nodemailer';
import { onFirstUse } from '../core/on-first-use.js';

/** nodemailer, loaded with SMTP only (core/on-first-use.ts). */
const mailer = onFirstUse<typeof nodemailer>('nodemailer');
import type { Mailer } from '../core/mailer.js';

/** Sends through the SMTP server of `url` (`smtp://user:pass@host:port`, `smtps://...`). */
export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = mailer().createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    },
    async close() {
      transport.close();
    },
  };
}
