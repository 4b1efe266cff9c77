import nodemailer from 'nodemailer';
import type { Mailer } from '../core/mailer.js';

/** Sends through the SMTP server of `url` (`smtp://user:pass@host:port`, `smtps://...`). */
export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    },
    async close() {
      transport.close();
    },
  };
}
