import { mkdir, readdir, readFile, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mail, Mailer } from '../core/mailer.js';
import { newId } from '../core/ids.js';

/** A mail kept in the outbox, with when it was written. */
export interface OutboxMail extends Mail {
  id: string;
  from: string;
  date: string;
}

/**
 * The default transport when no SMTP server is configured: each mail becomes one JSON file in
 * `dataDir/outbox`, where the tests and the admin pages read it. Written to a temporary name
 * and renamed, so a reader never sees half a mail.
 */
export function createOutboxMailer(dir: string, from: string): Mailer {
  let ready: Promise<unknown> | undefined;
  return {
    async send(mail) {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const date = new Date();
      const id = `${date.getTime().toString().padStart(15, '0')}-${newId()}`;
      const record: OutboxMail = { id, from, date: date.toISOString(), ...mail };
      const tmp = join(dir, `.${id}.tmp`);
      await writeFile(tmp, JSON.stringify(record, null, 2));
      await rename(tmp, join(dir, `${id}.json`));
    },
    async close() {},
  };
}

/** The outbox's mails, oldest first. */
export async function readOutbox(dir: string): Promise<OutboxMail[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, n), 'utf8')) as OutboxMail));
}

/** Names of outbox mails look like this: `<15-digit time>-<uuid>`; nothing else is read. */
const OUTBOX_ID = /^\d{15}-[0-9a-f-]{36}$/;

async function outboxIds(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter((id) => OUTBOX_ID.test(id));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** One page of the outbox, newest first (`start` 1-based); only the page's files are read. */
export async function readOutboxPage(
  dir: string,
  start: number,
  size: number,
): Promise<{ mails: OutboxMail[]; total: number }> {
  const ids = (await outboxIds(dir)).sort().reverse();
  const page = ids.slice(start - 1, start - 1 + size);
  return {
    mails: await Promise.all(
      page.map(async (id) => JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as OutboxMail),
    ),
    total: ids.length,
  };
}

/** The outbox mail with this id, or null (also for an id that is not an outbox name: no path ever leaves `dir`). */
export async function readOutboxMail(dir: string, id: string): Promise<OutboxMail | null> {
  if (!OUTBOX_ID.test(id)) return null;
  try {
    return JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as OutboxMail;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
