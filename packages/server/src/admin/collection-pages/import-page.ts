import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, formatBytes, isUploadedFile } from '@roost/forms';
import { sendAdminForms, type AdminRequest } from '../page-kit/admin-page.js';
import { PageForm } from '../page-kit/page-form.js';
import { facts, link, table, type Column } from '../page-kit/page-parts.js';
import { collectionUrl, registerPage, type CollectionPageContext } from './collection-page-context.js';
import { formatOf, IMPORT_LIMITS, importRecords, type ImportFormat, type ImportReport } from './record-import.js';

/**
 * `/admin/collections/<name>/import`: upload a JSON array, NDJSON or CSV file of records (the
 * form library's file field); the answer is the report of the import (record-import.ts): rows
 * read, records created, and each rejected row with its number and its field problems. The
 * form posts as a plain page (no ajax): the report is the page that follows.
 */

function reportHtml(name: string, report: ImportReport): string {
  const columns: Column<ImportReport['problems'][number]>[] = [
    { label: 'Row', cell: (p) => escapeHtml(p.row), className: 'num' },
    { label: 'Why it was rejected', cell: (p) => p.reasons.map((r) => escapeHtml(r)).join('<br>') },
  ];
  const listed =
    report.problems.length < report.rejected
      ? `<p class="muted">The first ${report.problems.length} are listed.</p>`
      : '';
  const cut = report.cut
    ? `<p class="error">The file has more than ${IMPORT_LIMITS.rows} rows: the rest was not read. ` +
      'Import it in parts.</p>'
    : '';
  return (
    '<section class="card" id="import-report"><h2>Import report</h2>' +
    facts([
      ['Format', escapeHtml(report.format)],
      ['Rows read', escapeHtml(report.rows)],
      ['Records created', escapeHtml(report.created)],
      ['Rows rejected', escapeHtml(report.rejected)],
    ]) +
    cut +
    (report.rejected ? table('Rejected rows', columns, report.problems, '') + listed : '') +
    `<p>${link(collectionUrl(name), `To the records of ${name}`)} · ` +
    `${link(`${collectionUrl(name)}/import`, 'Import another file')}</p>` +
    '</section>'
  );
}

async function importPage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string,
) {
  const state = ctx.collections.stateOf(name);
  let report: ImportReport | undefined;
  const form = new PageForm({
    request: admin.form,
    formid: 'import-form',
    csrfToken: admin.csrf,
    fields: [
      {
        id: 'file',
        name: 'File',
        datatype: 'file',
        required: true,
        settings: { accept: '.json,.ndjson,.jsonl,.csv,application/json,text/csv' },
        description:
          `At most ${formatBytes(IMPORT_LIMITS.bytes)} and ${IMPORT_LIMITS.rows} rows. A JSON array of records, ` +
          'one JSON record a line (NDJSON), or CSV with a header row of field names. id, created, updated ' +
          'and owner are made anew; the records are yours.',
      },
      {
        id: 'format',
        name: 'Format',
        datatype: 'list',
        required: true,
        default: 'auto',
        listItems: [
          { id: 'auto', name: 'By the file name (or its first character)' },
          { id: 'json', name: 'JSON array' },
          { id: 'ndjson', name: 'NDJSON' },
          { id: 'csv', name: 'CSV' },
        ],
      },
    ],
    actions: [{ id: 'import', method: 'submit', name: 'Import' }],
    perform: async (data) => {
      const file = data.file;
      if (!isUploadedFile(file) || !file.path) throw new TypeError('the import form read no file');
      const format: ImportFormat =
        data.format === 'json' || data.format === 'ndjson' || data.format === 'csv'
          ? data.format
          : await formatOf(file.path, file.filename);
      report = await importRecords(ctx.collections, admin.principal, state, { path: file.path, format });
      return { message: `${report.created} created, ${report.rejected} rejected of ${report.rows} rows.` };
    },
  });
  return sendAdminForms(
    request,
    reply,
    admin,
    `Import records into ${state.name}`,
    [form],
    ([html]) =>
      `<p class="actions">${link(collectionUrl(state.name), `← Records of ${state.name}`)}</p>` +
      (report ? reportHtml(state.name, report) : `<section class="card">${html}</section>`),
  );
}

export function registerImportPage(app: FastifyInstance, ctx: CollectionPageContext): void {
  registerPage(
    app,
    ctx,
    '/admin/collections/:name/import',
    (request, reply, admin) => importPage(ctx, request, reply, admin, request.params.name),
    {
      fileBytes: IMPORT_LIMITS.bytes,
      tooLarge: `An import takes a file of at most ${formatBytes(IMPORT_LIMITS.bytes)} (${IMPORT_LIMITS.bytes} bytes).`,
    },
  );
}
