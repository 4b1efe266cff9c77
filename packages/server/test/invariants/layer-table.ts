import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, src } from './source-files.js';

/**
 * docs/architecture.md read as rules: the layer table ("## Layers of `packages/server/src`",
 * columns folder | holds | may import) and the list of "## Domains own their tables". The
 * grammar of the "may import" cell is written under the table in that document; what is not
 * in backticks or one of its phrases is prose, for the reader only.
 */
export const DOC = 'docs/architecture.md';
export const docText = readFileSync(join(repoRoot, DOC), 'utf8');

export interface LayerRow {
  /** The row's first cell, as written (for messages). */
  name: string;
  /** Its line in docs/architecture.md. */
  line: number;
  /** Top-level folders (`core`) and top-level files (`services.ts`) of src/ the row is about. */
  members: string[];
  domain: boolean;
  mayImport: string;
  everything: boolean;
  /** Folders whose every module it may import. */
  folders: Set<string>;
  /** Folders it may import types from (`storage **types**`). */
  typeFolders: Set<string>;
  /** Single files, relative to src/ (`http/auth.ts`). */
  files: Set<string>;
  /** "domains through their `index.ts`". */
  domainIndexes: boolean;
  /** "Kysely only in `*-repo.ts`": there, `kysely` and storage's values (the queries). */
  repoQueries: boolean;
  /** Outside packages, as written: `kysely`, `@fastify/*`. */
  packages: string[];
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}

const ticked = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** The lines of a `## ` section whose heading starts with `heading`, with their line numbers. */
function section(doc: string, heading: string): { text: string; line: number }[] {
  const docLines = doc.split('\n');
  const start = docLines.findIndex((l) => l.startsWith(`## ${heading}`));
  if (start < 0) throw new Error(`${DOC} has no section "## ${heading}…": the invariant tests read it`);
  const rest = docLines.slice(start + 1);
  const end = rest.findIndex((l) => l.startsWith('## '));
  return rest.slice(0, end < 0 ? undefined : end).map((text, i) => ({ text, line: start + 2 + i }));
}

function parseMayImport(
  row: Omit<
    LayerRow,
    'everything' | 'folders' | 'typeFolders' | 'files' | 'domainIndexes' | 'repoQueries' | 'packages'
  >,
  folderNames: Set<string>,
): LayerRow {
  let text = row.mayImport;
  const typeFolders = new Set<string>();
  text = text.replace(/`?([a-z-]+)\/?`? \*\*types\*\*/g, (_, folder: string) => {
    typeFolders.add(folder);
    return '';
  });
  const repoQueries = /Kysely only in `\*-repo\.ts`/.test(text);
  text = text.replace(/Kysely only in `\*-repo\.ts`/g, '');
  const domainIndexes = /domains through their (`index\.ts`|index)/.test(text);
  text = text.replace(/domains through their (`index\.ts`|index)/g, '');
  const folders = new Set<string>();
  const files = new Set<string>();
  const packages: string[] = [];
  for (const token of ticked(text)) {
    if (token.endsWith('.ts')) {
      if (!existsSync(join(src, token)))
        throw new Error(`${DOC}:${row.line}: the row of ${row.name} names \`${token}\`, not a file of src/`);
      files.add(token);
    } else if (folderNames.has(token.replace(/\/$/, ''))) folders.add(token.replace(/\/$/, ''));
    else packages.push(token);
  }
  return {
    ...row,
    everything: /\beverything\b/.test(text),
    folders,
    typeFolders,
    files,
    domainIndexes,
    repoQueries,
    packages,
  };
}

/** The rows of the layer table, in order. */
export function layerTable(doc = docText): LayerRow[] {
  const lines = section(doc, 'Layers of').filter((l) => l.text.startsWith('|'));
  const header = cells(lines[0]?.text ?? '');
  const folderAt = header.indexOf('folder');
  const importAt = header.indexOf('may import');
  if (folderAt < 0 || importAt < 0)
    throw new Error(`${DOC}: the layer table's header must have the columns "folder" and "may import"`);
  const raw = lines.slice(2).map(({ text, line }) => {
    const row = cells(text);
    const name = row[folderAt] ?? '';
    return {
      name,
      line,
      members: ticked(name).map((t) => t.replace(/\/$/, '')),
      domain: name.includes('(a domain)'),
      mayImport: row[importAt] ?? '',
    };
  });
  const folderNames = new Set(raw.flatMap((r) => r.members).filter((m) => !m.endsWith('.ts')));
  return raw.map((r) => parseMayImport(r, folderNames));
}

const packagePattern = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

/** Whether `spec` (an outside package, or a module of it: `@fastify/cookie`, `kysely`) is one of `patterns`. */
export function namesPackage(patterns: readonly string[], spec: string): boolean {
  return patterns.some((p) => packagePattern(p).test(spec) || spec.startsWith(`${p}/`));
}

/** "## Domains own their tables": `- \`folder/\` …: \`table\`, …` lines, folder → its tables. */
export function tableOwners(doc = docText): { folder: string; tables: string[]; line: number }[] {
  // A list item goes on over the indented lines under it.
  const items: { text: string; line: number }[] = [];
  for (const { text, line } of section(doc, 'Domains own their tables')) {
    const last = items.at(-1);
    if (text.startsWith('- ')) items.push({ text, line });
    else if (last && /^\s+\S/.test(text)) last.text += ` ${text.trim()}`;
  }
  const owners = items
    .map(({ text, line }) => ({ m: /^- `([a-z-]+)\/`[^:]*:(.*)$/.exec(text), line }))
    .filter((o): o is { m: RegExpExecArray; line: number } => o.m !== null)
    .map(({ m, line }) => ({
      folder: m[1] ?? '',
      tables: ticked(m[2] ?? '').filter((t) => /^[a-z_]+$/.test(t)),
      line,
    }));
  if (owners.length === 0)
    throw new Error(`${DOC}, "## Domains own their tables": no "- \`folder/\`: \`table\`, …" lines to read`);
  return owners;
}
