import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CollectionState, RecordPage, RecordView } from '../../collections/index.js';
import { RoostError } from '../../core/errors.js';
import type { AdminRequest } from '../page-kit/admin-page.js';
import { csvField } from '../page-kit/csv-field.js';
import { textParam } from '../page-kit/page-parts.js';
import { registerPage, type CollectionPageContext } from './collection-page-context.js';
import { plainText, recordColumns } from './record-columns.js';

/**
 * `/admin/collections/<name>/export?format=csv|json|ndjson` (with the table's `filter` and
 * `sort`): every matching record, a download streamed page by page through the service's
 * cursor, so a large collection is never held in memory. The first page is read before the
 * answer starts: a filter the service refuses is an error page, not a broken file. CSV has the
 * table's columns (objects and lists as JSON text) and its cells are kept from running as
 * formulas (page-kit/csv-field.ts).
 */

const FORMATS = {
  csv: { type: 'text/csv; charset=utf-8', ext: 'csv' },
  json: { type: 'application/json; charset=utf-8', ext: 'json' },
  ndjson: { type: 'application/x-ndjson; charset=utf-8', ext: 'ndjson' },
} as const;
type Format = keyof typeof FORMATS;

/** Records read per query while exporting: the service's largest page. */
const EXPORT_PAGE = 500;

function formatOf(admin: AdminRequest): Format {
  const format = textParam(admin.form.query?.format) || 'csv';
  if (!Object.hasOwn(FORMATS, format))
    throw new RoostError('invalid', 'validation_failure', 'Export as csv, json or ndjson.', {
      fields: [['format', 'one of csv, json, ndjson']],
    });
  return format as Format;
}

/** The text of each record in the format, and what comes before and after them. */
function writerOf(format: Format, state: CollectionState) {
  if (format === 'csv') {
    const names = recordColumns(state).map((c) => c.name);
    return {
      head: `${names.map(csvField).join(',')}\r\n`,
      row: (r: RecordView) => `${names.map((n) => csvField(plainText(r[n]))).join(',')}\r\n`,
      between: '',
      tail: '',
    };
  }
  if (format === 'json')
    return { head: '[\n', row: (r: RecordView) => JSON.stringify(r), between: ',\n', tail: '\n]\n' };
  return { head: '', row: (r: RecordView) => `${JSON.stringify(r)}\n`, between: '', tail: '' };
}

async function exportRecords(ctx: CollectionPageContext, reply: FastifyReply, admin: AdminRequest, name: string) {
  const state = ctx.collections.stateOf(name);
  const format = formatOf(admin);
  const q = admin.form.query ?? {};
  const query = {
    ...(textParam(q.filter).trim() ? { filter: textParam(q.filter) } : {}),
    ...(textParam(q.sort) ? { sort: textParam(q.sort) } : {}),
    perPage: EXPORT_PAGE,
  };
  const read = (cursor: string | null): Promise<RecordPage> =>
    ctx.collections.list(admin.principal, state.name, cursor ? { ...query, cursor } : query);
  const first = await read(null);
  const writer = writerOf(format, state);
  async function* chunks() {
    yield writer.head;
    let page = first;
    let written = 0;
    for (;;) {
      const text = page.items.map((r) => (written++ > 0 ? writer.between : '') + writer.row(r)).join('');
      if (text) yield text;
      if (!page.next) break;
      page = await read(page.next);
    }
    yield writer.tail;
  }
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .header('cache-control', 'no-store')
    .type(FORMATS[format].type)
    .header('content-disposition', `attachment; filename="${state.name}-${day}.${FORMATS[format].ext}"`)
    .send(Readable.from(chunks()));
}

export function registerRecordExport(app: FastifyInstance, ctx: CollectionPageContext): void {
  registerPage(
    app,
    ctx,
    '/admin/collections/:name/export',
    (request, reply, admin) => exportRecords(ctx, reply, admin, request.params.name),
    { methods: ['GET'] },
  );
}
