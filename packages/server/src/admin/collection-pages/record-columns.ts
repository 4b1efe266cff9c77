import { escapeHtml } from '@roost/forms';
import type { CollectionState, RecordView } from '../../collections/index.js';
import { link } from '../page-kit/page-parts.js';
import { recordUrl } from './collection-page-context.js';

/**
 * The columns of a collection's records (issue 39, item 7): the system fields, then the schema's
 * top-level fields in its order. The records table and the exports share them; a column is
 * sortable when the filter language sorts by it (docs/collection-queries.md, "Sort": text,
 * number and boolean fields).
 */

type Field = CollectionState['fields']['fields'][number];

export interface RecordColumn {
  name: string;
  /** Its field; undefined for the system fields. */
  field?: Field;
  sortable: boolean;
}

export const SYSTEM_COLUMNS = ['id', 'created', 'updated', 'owner'] as const;

export function recordColumns(state: CollectionState): RecordColumn[] {
  return [
    ...SYSTEM_COLUMNS.map((name) => ({ name, sortable: true })),
    ...state.fields.fields.map((field) => ({
      name: field.name,
      field,
      sortable: field.kind === 'text' || field.kind === 'number' || field.kind === 'boolean',
    })),
  ];
}

/** What a cell shows of a value at most: the record page shows it whole. */
const PREVIEW = 80;
const cut = (text: string) => (text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text);

/** A value as text: text as it is, anything else as its JSON. */
export const plainText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** Where a record's links lead: the names of accounts, downloads of files. */
export interface CellContext {
  collection: string;
  /** Names of the accounts the page shows (owners, relations to `users`). */
  names: ReadonlyMap<string, string>;
}

/** A cell of the records table, as trusted HTML. */
export function cellHtml(column: RecordColumn, record: RecordView, ctx: CellContext): string {
  const value = record[column.name];
  if (value === undefined || value === null) return '<span class="muted">–</span>';
  const { field } = column;
  if (column.name === 'id') return link(recordUrl(ctx.collection, String(value)), String(value));
  if (column.name === 'created' || column.name === 'updated') return escapeHtml(String(value));
  if (column.name === 'owner' || field?.relation === 'users') return escapeHtml(ctx.names.get(String(value)) ?? value);
  if (field?.relation) return link(recordUrl(field.relation, String(value)), String(value));
  if (field?.file)
    return link(
      `/${encodeURIComponent(field.file)}/${String(value).split('/').map(encodeURIComponent).join('/')}`,
      String(value),
    );
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return escapeHtml(cut(plainText(value)));
}

/** The account ids a page of records names (owners and relations to `users`), to look their names up once. */
export function accountIds(columns: readonly RecordColumn[], records: readonly RecordView[]): string[] {
  const ids = new Set<string>();
  const named = columns.filter((c) => c.name === 'owner' || c.field?.relation === 'users');
  for (const record of records)
    for (const column of named) if (typeof record[column.name] === 'string') ids.add(record[column.name] as string);
  return [...ids];
}
