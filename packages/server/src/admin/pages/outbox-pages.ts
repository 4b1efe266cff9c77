import { escapeHtml } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { RoostError } from '../../core/errors.js';
import type { RuntimeSettingsService } from '../../core/runtime-settings.js';
import { readOutboxMail, readOutboxPage } from '../../mail/outbox-mailer.js';
import { startOf, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { facts, link, pager, table } from '../page-kit/page-parts.js';
import type { OutboxMail } from '../../mail/outbox-mailer.js';
import { maskSmtpUrl } from './settings-secrets.js';

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
    ? '<p class="alert alert-warning" role="status">Mail goes out through the SMTP server ' +
        `${escapeHtml(maskSmtpUrl(smtpUrl))}: new mails do not appear here. Listed are the mails written while no ` +
        'SMTP server was set.</p>'
    : '<p class="muted">No SMTP server is set (Settings): every mail Roost sends is kept here instead of being ' +
        'delivered.</p>';
}

async function listPage(deps: OutboxDeps, page: AdminPageRequest) {
  const start = startOf(page);
  const { mails, total } = await readOutboxPage(deps.outboxDir, start, PAGE_SIZE);
  const columns = [
    { label: 'Written (UTC)', cell: (m: OutboxMail) => escapeHtml(formatTime(Date.parse(m.date))) },
    { label: 'To', cell: (m: OutboxMail) => escapeHtml(m.to) },
    {
      label: 'Subject',
      cell: (m: OutboxMail) => link(`/admin/outbox/${encodeURIComponent(m.id)}`, m.subject || '(no subject)'),
    },
    { label: 'Kind', cell: (m: OutboxMail) => escapeHtml(m.kind) },
  ];
  const body =
    (await transportNote(deps.settings)) +
    table('Mails in the outbox, newest first', columns, mails, 'The outbox is empty.') +
    pager('mails', { start, size: PAGE_SIZE, total, shown: mails.length }, (n) => `/admin/outbox?start=${n}`);
  return { title: 'Mail outbox', body };
}

async function mailPage(deps: OutboxDeps, page: AdminPageRequest) {
  const mail = await readOutboxMail(deps.outboxDir, page.params.id ?? '');
  if (!mail) throw new RoostError('not_found', 'not_found', 'There is no such mail in the outbox.');
  const about = facts([
    ['From', escapeHtml(mail.from)],
    ['To', escapeHtml(mail.to)],
    ['Subject', escapeHtml(mail.subject)],
    ['Written (UTC)', escapeHtml(formatTime(Date.parse(mail.date)))],
    ['Kind', escapeHtml(mail.kind)],
  ]);
  const body =
    `<div class="card">${about}</div>` +
    `<h2>Text</h2><pre class="mail-text">${escapeHtml(mail.text)}</pre>` +
    `<h2>HTML</h2><iframe class="mail-html" title="The HTML part" sandbox srcdoc="${escapeHtml(mail.html)}"></iframe>` +
    `<p>${link('/admin/outbox', '← All mails')}</p>`;
  return { title: mail.subject || '(no subject)', body };
}

export function registerOutboxPages(pages: AdminPages, deps: OutboxDeps): void {
  pages.page('/admin/outbox', (page) => listPage(deps, page), { post: false });
  pages.page('/admin/outbox/:id', (page) => mailPage(deps, page), { post: false });
}
