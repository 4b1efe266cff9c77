import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { DOC, docText, layerTable, type LayerRow, namesPackage, tableOwners } from './layer-table.js';
import { importsOf, sourceFiles, sourceOf, src, stringsOf } from './source-files.js';
import ts from 'typescript';

/**
 * docs/architecture.md is the rule: its layer table says what each folder of
 * packages/server/src may import, its "Domains own their tables" which tables each domain
 * queries. This reads both (layer-table.ts) and every source file's imports and queries
 * (source-files.ts), and names for each violation the file, the import and the row.
 */
const rows = layerTable();
const files = sourceFiles();
const top = (path: string): string => path.split('/')[0] ?? '';
const rowOf = (path: string): LayerRow | undefined => rows.find((r) => r.members.includes(top(path)));
const isRepo = (file: string): boolean => file.endsWith('-repo.ts');
const domains = new Set(rows.filter((r) => r.domain).flatMap((r) => r.members));
/** The packages a row names: only the rows that name one may run it (types erase and are free). */
const bound = rows.flatMap((r) => r.packages).filter((p) => !p.startsWith('node:'));

function where(row: LayerRow): string {
  return `the row of ${row.name} (${DOC}:${row.line}, may import: ${row.mayImport})`;
}

function allows(row: LayerRow, file: string, target: string, typeOnly: boolean): boolean {
  const folder = top(target);
  return (
    row.everything ||
    row.members.includes(folder) ||
    row.folders.has(folder) ||
    row.files.has(target) ||
    (typeOnly && row.typeFolders.has(folder)) ||
    (row.domainIndexes && domains.has(folder) && target === `${folder}/index.ts`) ||
    (row.repoQueries && isRepo(file) && folder === 'storage')
  );
}

function mayRun(row: LayerRow, file: string, spec: string): boolean {
  if (spec.startsWith('node:') || !namesPackage(bound, spec)) return true;
  return row.everything || namesPackage(row.packages, spec) || (row.repoQueries && isRepo(file) && spec === 'kysely');
}

test(`every folder and top-level file of src/ has its row in ${DOC}'s layer table`, () => {
  const missing = [...new Set(files.filter((f) => !rowOf(f)).map(top))].map(
    (name) =>
      `src/${name}${name.endsWith('.ts') ? '' : '/'} has no row in the layer table of ${DOC} ` +
      `("## Layers of \`packages/server/src\`"): add "| \`${name}${name.endsWith('.ts') ? '' : '/'}\` | ` +
      'what it holds | what it may import |" (the grammar of the last column is under the table)',
  );
  assert.deepEqual(missing, []);
  assert.ok(
    rows.length >= 8 && domains.size >= 3,
    `read only ${rows.length} rows of the table: ${rows.map((r) => r.name)}`,
  );
});

test(`every source file imports only what its row of ${DOC} allows`, () => {
  const problems: string[] = [];
  for (const file of files) {
    const row = rowOf(file);
    if (!row) continue;
    for (const { spec, typeOnly, line } of importsOf(file)) {
      const at = `src/${file}:${line} imports '${spec}'${typeOnly ? ' (types)' : ''}`;
      if (spec.startsWith('.')) {
        const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
        // The unit tests beside the sources may use the server tests' helpers (test/helpers/).
        if (target.startsWith('../test/') && file.endsWith('.test.ts')) continue;
        if (target.startsWith('..')) problems.push(`${at}: outside src/`);
        else if (!allows(row, file, target, typeOnly)) problems.push(`${at}, which ${where(row)} does not allow`);
      } else if (!typeOnly && !mayRun(row, file, spec)) problems.push(`${at}, which ${where(row)} does not allow`);
    }
  }
  assert.deepEqual(problems, []);
});

const BUILDERS =
  /^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|(inner|left|right|full|cross)Join(Lateral)?)$/;
const RAW_SQL = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?: IF (?:NOT )?EXISTS)?)\s+"?([a-z_]+)/g;

/**
 * The tables a file names in queries: Kysely's builders and SQL in strings; with `columns`, also
 * `'table.column'` strings (a domain's query names columns so; elsewhere they are setting keys).
 */
function tablesNamed(file: string, columns: boolean): { table: string; line: number; how: string }[] {
  const found: { table: string; line: number; how: string }[] = [];
  const source = sourceOf(file);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const first = node.arguments[0];
      if (BUILDERS.test(method) && first && ts.isStringLiteralLike(first)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push({ table: first.text.split(/[\s.]/)[0] ?? '', line, how: `${method}('${first.text}')` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const { text, line } of stringsOf(file)) {
    for (const m of text.matchAll(RAW_SQL)) found.push({ table: m[1] ?? '', line, how: m[0] });
    if (columns)
      for (const m of text.matchAll(/^([a-z_]+)\.[a-z_]+$/g)) found.push({ table: m[1] ?? '', line, how: `'${m[0]}'` });
  }
  return found;
}

const owners = tableOwners();
const ownerOf = new Map(owners.flatMap((o) => o.tables.map((t) => [t, o.folder] as const)));

function schemaTables(): string[] {
  const schema = files
    .filter((f) => /(^|\/|-)schema\.ts$/.test(f))
    .map((f) => readFileSync(join(src, f), 'utf8'))
    .join('\n');
  return [...schema.matchAll(/^\s+([a-z_]+): [A-Z]\w*Table;$/gm)].map((m) => m[1] ?? '');
}

test(`a domain queries only its own tables ("Domains own their tables", ${DOC})`, () => {
  const problems: string[] = [];
  for (const file of files) {
    const folder = top(file);
    if (!domains.has(folder)) continue;
    for (const { table, line, how } of tablesNamed(file, true)) {
      const owner = ownerOf.get(table);
      if (owner && owner !== folder)
        problems.push(`src/${file}:${line} names ${table} (${how}), a table of ${owner}/, not of ${folder}/`);
    }
  }
  assert.deepEqual(problems, []);
});

test(`only a file that may run \`kysely\` by ${DOC} writes a query`, () => {
  const problems: string[] = [];
  for (const file of files) {
    const row = rowOf(file);
    if (!row || mayRun(row, file, 'kysely')) continue;
    for (const { table, line, how } of tablesNamed(file, false))
      if (ownerOf.has(table)) problems.push(`src/${file}:${line} queries ${table} (${how}); ${where(row)}`);
  }
  assert.deepEqual(problems, []);
});

test(`every table of the schema has one owner in ${DOC}, and every owner is a folder of the table`, () => {
  const declared = schemaTables();
  assert.ok(declared.includes('users') && declared.includes('datastore_items'), `read the schema: ${declared}`);
  const listed = owners.flatMap((o) => o.tables);
  assert.deepEqual(
    declared.filter((t) => !ownerOf.has(t)).map((t) => `${t} has no owner in "## Domains own their tables"`),
    [],
  );
  assert.deepEqual(
    listed.filter((t, i) => listed.indexOf(t) !== i || !declared.includes(t)),
    [],
    'a table listed twice, or not in the schema (storage/*schema.ts)',
  );
  const folders = new Set(rows.flatMap((r) => r.members));
  assert.deepEqual(
    owners.filter((o) => !folders.has(o.folder)).map((o) => `${DOC}:${o.line}: ${o.folder}/ has no row`),
    [],
  );
});

test(`a row or an owner added to ${DOC} is read with the others`, () => {
  const row =
    '| `jobs/` | the queue | `core`, storage **types**, `users/index.ts`, `ioredis`; Kysely only in `*-repo.ts` |';
  const grown = docText
    .replace(/^(\| `core\/` \|.*)$/m, `$1\n${row}`)
    .replace(/^(- `filestore\/`:.*)$/m, '$1\n- `jobs/`: `jobs`,\n  `job_runs`');
  const read = layerTable(grown);
  const jobs = read.find((r) => r.members.includes('jobs'));
  assert.deepEqual(
    jobs && {
      domain: jobs.domain,
      folders: [...jobs.folders],
      typeFolders: [...jobs.typeFolders],
      files: [...jobs.files],
      packages: jobs.packages,
      repoQueries: jobs.repoQueries,
    },
    {
      domain: false,
      folders: ['core'],
      typeFolders: ['storage'],
      files: ['users/index.ts'],
      packages: ['ioredis'],
      repoQueries: true,
    },
  );
  assert.deepEqual(
    read.filter((r) => r !== jobs).map((r) => r.name),
    rows.map((r) => r.name),
  );
  assert.deepEqual(tableOwners(grown).find((o) => o.folder === 'jobs')?.tables, ['jobs', 'job_runs']);
});
