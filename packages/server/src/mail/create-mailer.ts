import { join } from 'node:path';
import type { Config } from '../core/config.js';
import type { Mailer } from '../core/mailer.js';
import type { RuntimeSettings } from '../core/runtime-settings.js';
import { createOutboxMailer } from './outbox-mailer.js';
import { createSmtpMailer } from './smtp-mailer.js';

export function outboxDir(config: Config): string {
  return join(config.dataDir, 'outbox');
}

/** Where mail goes under these settings: SMTP when a URL is set, else the outbox. */
export function mailRoute(settings: Pick<RuntimeSettings, 'smtpUrl'>): 'smtp' | 'outbox' {
  return settings.smtpUrl ? 'smtp' : 'outbox';
}

/**
 * The mailer of a running Roost: it follows the runtime settings (core/runtime-settings.ts), so
 * a new SMTP URL or sender applies to the next mail without a restart. Each mail goes through
 * SMTP when a URL is set, else to the outbox in the data directory. The transport is kept while
 * the URL and sender stay the same; a replaced one is closed.
 */
export function createMailer(
  config: Config,
  settings: { current(): Promise<Pick<RuntimeSettings, 'smtpUrl' | 'mailFrom'>> },
): Mailer {
  let active: { key: string; mailer: Mailer } | undefined;
  const dir = outboxDir(config);

  async function current(): Promise<Mailer> {
    const { smtpUrl, mailFrom } = await settings.current();
    const key = `${smtpUrl ?? ''}\0${mailFrom}`;
    if (active?.key !== key) {
      const previous = active;
      active = { key, mailer: smtpUrl ? createSmtpMailer(smtpUrl, mailFrom) : createOutboxMailer(dir, mailFrom) };
      // Mails under way on the old transport finish: nodemailer's close ends idle connections only.
      await previous?.mailer.close();
    }
    return active.mailer;
  }

  return {
    async send(mail) {
      await (await current()).send(mail);
    },
    async close() {
      await active?.mailer.close();
      active = undefined;
    },
  };
}
