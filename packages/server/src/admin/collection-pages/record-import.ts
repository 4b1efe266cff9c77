import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { CollectionState, Collections } from '../../collections/index.js';
import { isRoostError } from '../../core/errors.js';
import type { Principal } from '../../core/permissions.js';
import { FORMULA_START } from '../page-kit/csv-field.js';
import { SYSTEM_COLUMNS } from './record-columns.js';

/**
 * An import of records (issue 39, item 7): the rows of a JSON array, an NDJSON file or a CSV
 * file (csv-parse, with a header row naming the fields), read from the uploaded file as a
 * stream and created in batches through the collections service as the administrator, so each
 * record is checked as an API write is. A batch the service refuses is created again row by row,
 * so every good row is kept and every bad one reported with its number and its field problems.
 */

export const IMPORT_LIMITS = {
  /** The largest file: the page takes no more (docs/collections.md, "In the admin backend"). */
  bytes: 10 * 1024 * 1024,
  /** Rows read at most; the rest of a longer file is left, and the report says so. */
  rows: 20_000,
  /** Rejected rows the report lists (all are counted). */
  listed: 500,
} as const;

/** Rows created with one call of the service's batch (its most). */
const BATCH = 100;

export type ImportFormat = 'json' | 'ndjson' | 'csv';

export interface ImportReport {
  format: ImportFormat;
  rows: number;
  created: number;
  rejected: number;
  /** The first rejected rows: their number (from 1, a CSV's header not counted) and why. */
  problems: Array<{ row: number; reasons: string[] }>;
  /** True when the file had more rows than an import reads. */
  cut: boolean;
}

/** One row of the file: the record's data, or why it could not be read. */
type Row = { row: number; data: unknown } | { row: number; unreadable: string };

/** The format of a file: named by its extension, else by its first character. */
export async function formatOf(path: string, filename: string): Promise<ImportFormat> {
  const ext = /\.([a-z]+)$/i.exec(filename)?.[1]?.toLowerCase();
  if (ext === 'csv') return 'csv';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  const handle = await open(path);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    const first = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()[0];
    return first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv';
  } finally {
    await handle.close();
  }
}

/** A record of an export (with its system fields) as data to create: the service makes those anew. */
function withoutSystemFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const name of SYSTEM_COLUMNS) delete out[name];
  return out;
}

/** A CSV cell as its field keeps it: numbers, booleans and JSON read; what does not read stays text. */
function cellValue(kind: string | undefined, cell: string): unknown {
  // A cell an export kept from running as a formula gets its text back (page-kit/csv-field.ts).
  const text = cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
  if (kind === 'number' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text.trim())) return Number(text.trim());
  if (kind === 'boolean' && /^(true|false)$/i.test(text.trim())) return text.trim().toLowerCase() === 'true';
  if (kind === 'array' || kind === 'object' || kind === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

async function* csvRows(path: string, state: CollectionState): AsyncGenerator<Row> {
  const kinds = new Map(state.fields.fields.map((f) => [f.name, f.kind]));
  const parser = createReadStream(path).pipe(
    parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }),
  );
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<Record<string, string | undefined>>) {
      row += 1;
      const data: Record<string, unknown> = {};
      for (const [column, cell] of Object.entries(cells)) {
        if ((SYSTEM_COLUMNS as readonly string[]).includes(column) || cell === undefined || cell === '') continue;
        data[column] = cellValue(kinds.get(column), cell);
      }
      yield { row, data };
    }
  } catch (err) {
    // csv-parse stops at a malformed line (an open quote): the rows before it stand.
    yield { row: row + 1, unreadable: `not CSV: ${err instanceof Error ? err.message : String(err)}` };
  }
}

async function* ndjsonRows(path: string): AsyncGenerator<Row> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let row = 0;
  for await (const line of lines) {
    if (line.trim() === '') continue;
    row += 1;
    try {
      yield { row, data: withoutSystemFields(JSON.parse(line.replace(/^\uFEFF/, ''))) };
    } catch (err) {
      yield { row, unreadable: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}

async function* jsonRows(path: string): AsyncGenerator<Row> {
  let parsed: unknown;
  try {
    // Within the import's byte limit a JSON array is parsed whole.
    parsed = JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
  } catch (err) {
    yield { row: 1, unreadable: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
    return;
  }
  if (!Array.isArray(parsed)) {
    yield { row: 1, unreadable: 'the file is not a JSON array of records' };
    return;
  }
  for (const [i, data] of parsed.entries()) yield { row: i + 1, data: withoutSystemFields(data) };
}

/** A refusal's words for the report: each field and its reason, else the sentence. */
function reasonsOf(err: unknown): string[] {
  if (!isRoostError(err)) throw err;
  const fields = err.fields.map(([field, reason]) => `${field.replace(/^operations\.\d+\./, '')}: ${reason}`);
  return fields.length ? fields : [err.message];
}

/** Reads the file's rows and creates their records; the report of what was created and refused. */
export async function importRecords(
  collections: Collections,
  principal: Principal,
  state: CollectionState,
  file: { path: string; format: ImportFormat },
): Promise<ImportReport> {
  const report: ImportReport = { format: file.format, rows: 0, created: 0, rejected: 0, problems: [], cut: false };
  const reject = (row: number, reasons: string[]) => {
    report.rejected += 1;
    if (report.problems.length < IMPORT_LIMITS.listed) report.problems.push({ row, reasons });
  };
  const flush = async (batch: Array<{ row: number; data: unknown }>) => {
    if (batch.length === 0) return;
    try {
      const operations = batch.map((r) => ({ collection: state.name, action: 'create' as const, data: r.data }));
      await collections.batch(principal, { operations });
      report.created += batch.length;
      return;
    } catch (err) {
      if (!isRoostError(err)) throw err;
    }
    // Some row was refused, and with it the batch: each row again on its own.
    for (const { row, data } of batch) {
      try {
        await collections.create(principal, state.name, data);
        report.created += 1;
      } catch (err) {
        reject(row, reasonsOf(err));
      }
    }
  };
  const rows =
    file.format === 'csv'
      ? csvRows(file.path, state)
      : file.format === 'ndjson'
        ? ndjsonRows(file.path)
        : jsonRows(file.path);
  let batch: Array<{ row: number; data: unknown }> = [];
  for await (const row of rows) {
    if (report.rows >= IMPORT_LIMITS.rows) {
      report.cut = true;
      break;
    }
    report.rows += 1;
    if ('unreadable' in row) reject(row.row, [row.unreadable]);
    else batch.push(row);
    if (batch.length >= BATCH) {
      await flush(batch);
      batch = [];
    }
  }
  await flush(batch);
  return report;
}
