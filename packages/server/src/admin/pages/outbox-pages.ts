import { escapeHtml } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { RoostError } from '../../core/errors.js';
import type { RuntimeSettingsService } from '../../core/runtime-settings.js';
import { readOutboxMail, readOutboxPage } from '../../mail/outbox-mailer.js';
import type { AdminPages, AdminRequest } from '../admin-page.js';
import { link, pager, table } from '../page-parts.js';
import { textOf } from '../page-request.js';
import { maskSmtpUrl } from './settings-page.js';

/**
 * `/admin/outbox`: the mails of the outbox mailer (the transport while no SMTP server is set),
 * newest first; `/admin/outbox/<id>`: one mail, its text and its HTML part (in a sandboxed
 * frame: no script, no request of its own). With an SMTP server set, new mails leave through it
 * and the page says so; the outbox keeps what was written before.
 */

const PAGE_SIZE = 25;

interface OutboxDeps {
  outboxDir: string;
  settings: RuntimeSettingsService;
}

async function transportNote(settings: RuntimeSettingsService): Promise<string> {
  const { smtpUrl } = await settings.current();
  return smtpUrl
    ? `<p class="alert alert-warning" role="status">Mail goes out through the SMTP server ${escapeHtml(maskSmtpUrl(smtpUrl))}: new mails do not appear here. Listed are the mails written while no SMTP server was set.</p>`
    : `<p class="muted">No SMTP server is set (Settings): every mail Roost sends is kept here instead of being delivered.</p>`;
}

async function listPage(deps: OutboxDeps, page: AdminRequest) {
  const startText = textOf(page.form.query, 'start') || '1';
  if (!/^\d{1,9}$/.test(startText) || Number(startText) < 1) throw new RoostError('invalid', 'validation_failure', 'Start must be a whole number, 1 or more.');
  const start = Number(startText);
  const { mails, total } = await readOutboxPage(deps.outboxDir, start, PAGE_SIZE);
  const rows = mails.map((m) => [
    escapeHtml(formatTime(Date.parse(m.date))),
    escapeHtml(m.to),
    link(`/admin/outbox/${encodeURIComponent(m.id)}`, m.subject || '(no subject)'),
    escapeHtml(m.kind),
  ]);
  const body = (await transportNote(deps.settings)) + table(['Written (UTC)', 'To', 'Subject', 'Kind'], rows, 'The outbox is empty.') + pager('/admin/outbox', {}, start, PAGE_SIZE, total);
  return { title: 'Mail outbox', body };
}

async function mailPage(deps: OutboxDeps, page: AdminRequest) {
  const mail = await readOutboxMail(deps.outboxDir, page.params.id ?? '');
  if (!mail) throw new RoostError('not_found', 'not_found', 'There is no such mail in the outbox.');
  const body =
    `<div class="card"><dl class="facts"><dt>From</dt><dd>${escapeHtml(mail.from)}</dd><dt>To</dt><dd>${escapeHtml(mail.to)}</dd>` +
    `<dt>Subject</dt><dd>${escapeHtml(mail.subject)}</dd><dt>Written (UTC)</dt><dd>${escapeHtml(formatTime(Date.parse(mail.date)))}</dd><dt>Kind</dt><dd>${escapeHtml(mail.kind)}</dd></dl></div>` +
    `<h2>Text</h2><pre class="mail-text">${escapeHtml(mail.text)}</pre>` +
    `<h2>HTML</h2><iframe class="mail-html" title="The HTML part" sandbox srcdoc="${escapeHtml(mail.html)}"></iframe>` +
    `<p>${link('/admin/outbox', '← All mails')}</p>`;
  return { title: mail.subject || '(no subject)', body };
}

export function registerOutboxPages(pages: AdminPages, deps: OutboxDeps): void {
  pages.page('/admin/outbox', (page) => listPage(deps, page), { post: false });
  pages.page('/admin/outbox/:id', (page) => mailPage(deps, page), { post: false });
}
