import { join } from 'node:path';
import type { Config } from '../core/config.js';
import type { Mailer } from '../core/mailer.js';
import { createOutboxMailer } from './outbox-mailer.js';
import { createSmtpMailer } from './smtp-mailer.js';

export function outboxDir(config: Config): string {
  return join(config.dataDir, 'outbox');
}

/** SMTP when a URL is configured, else the outbox in the data directory. */
export function createMailer(config: Config): Mailer {
  return config.mail.smtpUrl
    ? createSmtpMailer(config.mail.smtpUrl, config.mail.from)
    : createOutboxMailer(outboxDir(config), config.mail.from);
}
