import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { checkoutRoot } from '../helpers/checkout.js';

/**
 * What the invariant tests read of the server's sources (layering.test.ts, cited-paths.test.ts,
 * file-size.test.ts): the files under packages/server/src, parsed once by TypeScript so that a
 * comment, a string and an import are told apart (a module held in a template string, like
 * admin/passkey-script.ts, imports nothing).
 */
export const src = new URL('../../src/', import.meta.url).pathname;
export const repoRoot = checkoutRoot;

/** Every TypeScript file under src/, unit tests included, as paths relative to src/. */
export function sourceFiles(dir = src): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return path.endsWith('.ts') ? [relative(src, path)] : [];
    });
}

const parsed = new Map<string, ts.SourceFile>();

export function sourceOf(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(join(src, file), 'utf8'), ts.ScriptTarget.Latest, true);
    parsed.set(file, source);
  }
  return source;
}

export interface Import {
  spec: string;
  /** `import type`, or only `type` names: erased, it runs nothing of the module. */
  typeOnly: boolean;
  line: number;
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function typeOnlyClause(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

/** The modules a file imports: import and export declarations, and `await import('…')`. */
export function importsOf(file: string): Import[] {
  const source = sourceOf(file);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({
        spec: node.moduleSpecifier.text,
        typeOnly: typeOnlyClause(node.importClause),
        line: lineOf(source, node),
      });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly, line: lineOf(source, node) });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, typeOnly: false, line: lineOf(source, node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every comment of a file, each once, with the line it starts on. */
export function commentsOf(file: string): { text: string; line: number }[] {
  const source = sourceOf(file);
  const text = source.getFullText();
  const seen = new Set<number>();
  const found: { text: string; line: number }[] = [];
  const take = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      found.push({ text: text.slice(r.pos, r.end), line: source.getLineAndCharacterOfPosition(r.pos).line + 1 });
    }
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  take(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return found;
}

/** The text of every string and template literal of a file, with its line (where SQL is written). */
export function stringsOf(file: string): { text: string; line: number }[] {
  const source = sourceOf(file);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      found.push({ text: node.text, line: lineOf(source, node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The files git tracks (or would: untracked files not ignored), relative to the repository's root. */
export function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return out.split('\n').filter((f) => f !== '');
}
