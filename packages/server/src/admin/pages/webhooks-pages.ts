import { escapeHtml, type ToolConf, type ToolResult } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { RoostError } from '../../core/errors.js';
import type { Delivery, Webhook } from '../../core/webhooks.js';
import type { Webhooks } from '../../realtime/webhooks.js';
import { facts, link, table } from '../page-kit/page-parts.js';
import type { AdminPages, AdminPageRequest } from './admin-routes.js';
import { toolPageForm, toolRefusal } from './tool-form.js';
import { accountConfirmForm } from './confirm-form.js';
import { logUrl, webhookUrl } from './page-urls.js';

/**
 * `/admin/webhooks`: the webhooks (docs/realtime.md, "Webhooks") and a form to add one;
 * `/admin/webhooks/<id>`: one webhook with its secret, its delivery log (state, attempts, last
 * status and error) and its removal.
 */

interface WebhookPagesDeps {
  webhooks: Webhooks;
}

const DELIVERIES_SHOWN = 50;

const when = (ms: number | null) => (ms === null ? '' : escapeHtml(formatTime(ms)));
const kindsOf = (hook: Webhook) => (hook.kinds.length === 0 ? 'every event' : hook.kinds.join(', '));

async function listPage(deps: WebhookPagesDeps, page: AdminPageRequest) {
  let added: Webhook | undefined;
  const configuration: ToolConf = {
    id: 'add-webhook',
    name: 'Add a webhook',
    data: [
      { id: 'url', name: 'URL', datatype: 'url', required: true, size: 2000 },
      {
        id: 'service',
        name: 'Service',
        datatype: 'list',
        required: true,
        // Read per request: collections come and go while Roost runs.
        listItems: deps.webhooks.services().map((s) => ({ id: s, name: s })),
      },
      {
        id: 'kinds',
        name: 'Event kinds',
        datatype: 'string',
        size: 500,
        description: 'Separated by commas, e.g. item.created, item.removed. Empty: every event of the service.',
      },
    ],
    async run(values): Promise<ToolResult> {
      try {
        const kinds = String(values.kinds ?? '')
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean);
        added = await deps.webhooks.add(page.admin.principal, {
          url: String(values.url),
          service: String(values.service),
          kinds,
        });
        return { ok: true, output: 'Added.' };
      } catch (err) {
        return toolRefusal(err);
      }
    },
  };
  const form = toolPageForm(page, {
    formid: 'add-webhook',
    url: '/admin/webhooks',
    configuration,
    action: { id: 'add', name: 'Add webhook' },
  });
  const outcome = await form.process({ defaultData: { service: 'users' } });
  if (added) return { redirect: webhookUrl(added.id), messages: ['Webhook added.'] };
  const hooks = await deps.webhooks.list(page.admin.principal);
  const columns = [
    { label: 'URL', cell: (h: Webhook) => link(webhookUrl(h.id), h.url) },
    { label: 'Service', cell: (h: Webhook) => escapeHtml(h.service) },
    { label: 'Events', cell: (h: Webhook) => escapeHtml(kindsOf(h)) },
    { label: 'Added (UTC)', cell: (h: Webhook) => when(h.created) },
  ];
  const body =
    '<p class="muted">Roost POSTs each event of the service as JSON to the URL, signed with the webhook\'s ' +
    'secret (<code>X-Roost-Signature</code>), and tries a failed delivery again with growing pauses.</p>' +
    table('Webhooks', columns, hooks, 'No webhook yet.') +
    `<section class="card"><h2>Add a webhook</h2>${outcome.html}</section>`;
  return { title: 'Webhooks', body, head: await form.htmlHead(), status: outcome.result === false ? 422 : 200 };
}

async function webhookPage(deps: WebhookPagesDeps, page: AdminPageRequest) {
  const id = page.params.id ?? '';
  const hook = (await deps.webhooks.list(page.admin.principal)).find((h) => h.id === id);
  if (!hook) throw new RoostError('not_found', 'not_found', 'There is no such webhook.');
  const url = webhookUrl(id);
  const remove = accountConfirmForm(page, {
    formid: 'remove-webhook',
    url,
    accountId: id,
    action: { id: 'remove', name: 'Remove webhook', cssClass: 'btn danger' },
    run: async () =>
      (await deps.webhooks.remove(page.admin.principal, id)) ? undefined : 'The webhook was removed already.',
  });
  const removed = await remove.process();
  if (removed.action.id === 'remove' && removed.result === true)
    return { redirect: '/admin/webhooks', messages: ['Webhook removed.'] };
  const deliveries = await deps.webhooks.deliveries(page.admin.principal, id, DELIVERIES_SHOWN);
  const columns = [
    { label: 'Made (UTC)', cell: (d: Delivery) => when(d.created) },
    { label: 'Event', cell: (d: Delivery) => escapeHtml(d.kind) },
    { label: 'State', cell: (d: Delivery) => escapeHtml(d.state) },
    { label: 'Attempts', cell: (d: Delivery) => String(d.attempts) },
    { label: 'Last status', cell: (d: Delivery) => (d.lastStatus === null ? '' : String(d.lastStatus)) },
    { label: 'Last error', cell: (d: Delivery) => escapeHtml(d.lastError ?? '') },
    { label: 'Next try (UTC)', cell: (d: Delivery) => (d.state === 'pending' ? when(d.nextAttempt) : '') },
    { label: 'Delivered (UTC)', cell: (d: Delivery) => when(d.deliveredAt) },
    { label: 'Request', cell: (d: Delivery) => (d.requestId === null ? '' : link(logUrl(d.requestId), d.requestId)) },
  ];
  const about = facts([
    ['URL', escapeHtml(hook.url)],
    ['Service', escapeHtml(hook.service)],
    ['Events', escapeHtml(kindsOf(hook))],
    ['Secret', `<code>${escapeHtml(hook.secret)}</code>`],
    ['Added (UTC)', when(hook.created)],
  ]);
  const body =
    `<div class="card">${about}</div>` +
    table(`The last ${DELIVERIES_SHOWN} deliveries, newest first`, columns, deliveries, 'No delivery yet.') +
    `<section class="card"><h2>Remove</h2>${removed.html}</section>` +
    `<p>${link('/admin/webhooks', '← All webhooks')}</p>`;
  return { title: `Webhook ${hook.url}`, body, head: await remove.htmlHead() };
}

export function registerWebhookPages(pages: AdminPages, deps: WebhookPagesDeps): void {
  pages.page('/admin/webhooks', (page) => listPage(deps, page));
  pages.page('/admin/webhooks/:id', (page) => webhookPage(deps, page));
}
