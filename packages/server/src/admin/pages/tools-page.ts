import { ToolForm, type ContentTool, type ToolConf, type ToolResult } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { USER_PAGE, type UserQuery, type UserService } from '../../users/index.js';
import { csvField } from '../page-kit/csv-field.js';
import { formBase, type AdminPages, type AdminPageRequest } from './admin-routes.js';
import { STATE_FILTER, stateQuery } from './users-pages.js';

/**
 * `/admin/tools`: maintenance as `ToolForm`s. "Export users" downloads the accounts as CSV
 * (filtered by state and group); "Purge expired" deletes expired sessions and mailed tokens
 * (Roost also does this once an hour).
 */

const CSV_COLUMNS = ['id', 'name', 'email', 'realname', 'state', 'groups', 'notify', 'created', 'activity'] as const;

async function usersCsv(
  users: UserService,
  admin: AdminPageRequest['admin'],
  filter: UserQuery,
): Promise<{ csv: string; count: number }> {
  const lines = [CSV_COLUMNS.join(',')];
  for (let start = 1; ; start += USER_PAGE.max) {
    const { users: found } = await users.list(admin, { ...filter, start, size: USER_PAGE.max, sort: 'name' });
    for (const u of found) {
      const row = { ...u, email: u.email ?? '', created: formatTime(u.created), activity: formatTime(u.activity) };
      lines.push(CSV_COLUMNS.map((c) => csvField(row[c])).join(','));
    }
    if (found.length < USER_PAGE.max) break;
  }
  return { csv: `${lines.join('\r\n')}\r\n`, count: lines.length - 1 };
}

/** A tool ready to run, from its definition. */
function tool(configuration: ToolConf): ContentTool {
  return {
    configuration,
    target: undefined,
    run: async (values, ctx) => configuration.run(values, { ...ctx, target: undefined }),
  };
}

async function toolsPage(users: UserService, page: AdminPageRequest) {
  let download: { csv: string; count: number } | undefined;
  const exportTool = tool({
    id: 'export-users',
    name: 'Export users as CSV',
    data: [
      { id: 'state', name: 'Accounts', datatype: 'list', required: true, listItems: STATE_FILTER },
      { id: 'group', name: 'Only the group', datatype: 'string', size: 100, description: 'Empty: any group.' },
    ],
    async run(values): Promise<ToolResult> {
      const filter: UserQuery = stateQuery(values.state);
      if (typeof values.group === 'string' && values.group) filter.group = values.group;
      download = await usersCsv(users, page.admin, filter);
      return { ok: true, output: `${download.count} accounts exported.` };
    },
  });
  const purgeTool = tool({
    id: 'purge-expired',
    name: 'Purge expired sessions and tokens',
    data: [],
    async run(): Promise<ToolResult> {
      const removed = await users.purgeExpired(page.admin);
      return {
        ok: true,
        output: `Removed ${removed} expired ${removed === 1 ? 'session or token' : 'sessions and tokens'}.`,
      };
    },
  });

  // Both forms post to this page; each runs on its own action id (`export$`, `purge$`).
  const toolForm = (id: string, context: ContentTool, button: string) =>
    new ToolForm({
      ...formBase(id, page.hidden, '/admin/tools'),
      request: page.form,
      context,
      actions: [
        { id: 'default', method: 'startForm', hidden: true },
        { id, method: 'runTool', name: button, cssClass: 'btn btn-primary' },
      ],
    });
  const exportForm = toolForm('export', exportTool, 'Download CSV');
  const purgeForm = toolForm('purge', purgeTool, 'Purge now');
  const exported = await exportForm.process({ defaultData: { state: 'all' } });
  if (download) {
    const day = new Date().toISOString().slice(0, 10);
    return {
      download: { filename: `roost-users-${day}.csv`, contentType: 'text/csv; charset=utf-8', body: download.csv },
    };
  }
  const purged = await purgeForm.process();
  const purgeHtml =
    purged.action.id === 'purge' && purged.result === true
      ? `<div class="alert alert-success" role="status">${purged.html}</div>${await purgeForm.render({})}`
      : purged.html;
  const body =
    '<section class="card"><h2>Export users as CSV</h2>' +
    `<p class="muted">Columns: ${CSV_COLUMNS.join(', ')}. Times in UTC.</p>${exported.html}</section>` +
    '<section class="card"><h2>Purge expired sessions and tokens</h2>' +
    '<p class="muted">Deletes sessions and mailed tokens (activation, verification, reset) past their lifetime. ' +
    `Roost also does this once an hour.</p>${purgeHtml}</section>`;
  return { title: 'Tools', body, head: await exportForm.htmlHead(), status: exported.result === false ? 422 : 200 };
}

export function registerToolsPage(pages: AdminPages, users: UserService): void {
  pages.page('/admin/tools', (page) => toolsPage(users, page));
}
