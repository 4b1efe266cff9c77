import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type ts from 'typescript';

/**
 * The type errors of the hook files (docs/hooks.md "Where hooks live"), as `file:line:column:
 * message`, each naming a file of `files`. One program over the files with the project's
 * tsconfig.json when `cwd` has one, else strict defaults; only the hook files themselves are
 * checked (what they import is read for its types, not checked: 3 to 4 s a start, not a whole
 * project's check).
 */
export function typeErrors(compiler: typeof ts, files: readonly string[], cwd: string): string[] {
  const options = compilerOptions(compiler, cwd);
  const program = compiler.createProgram({ rootNames: [...files], options });
  const problems: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    for (const d of diagnostics) {
      if (d.category !== compiler.DiagnosticCategory.Error) continue;
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
      const where = at ? `${relative(cwd, file)}:${at.line + 1}:${at.character + 1}` : relative(cwd, file);
      problems.push(`${where}: ${compiler.flattenDiagnosticMessageText(d.messageText, ' ')} (TS${d.code})`);
    }
  }
  return problems;
}

function compilerOptions(compiler: typeof ts, cwd: string): ts.CompilerOptions {
  const defaults: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: compiler.ScriptTarget.ES2022,
    module: compiler.ModuleKind.NodeNext,
    moduleResolution: compiler.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
  };
  const configFile = join(cwd, 'tsconfig.json');
  if (!existsSync(configFile)) return defaults;
  const parsed = compiler.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...compiler.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  if (!parsed) return defaults;
  return { ...parsed.options, noEmit: true };
}
