import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { SIGNIN_METHODS } from '../../src/users/signin-methods/index.js';
import { importsOf, sourceFiles, sourceOf } from './source-files.js';

/**
 * Issue 38, item 3: the pages that show every sign-in method take each one's part from the list
 * (admin/signin-methods/index.ts), so a new method is its folder and a line there. These pages
 * call no method's own operation (named by its permission entry) and import no method's page
 * part: the methods' sections of the account page, and their fields in the sign-in's second
 * step, are the methods' own.
 */
const PAGES = ['admin/user-pages/account-page.ts', 'admin/pages/second-step-form.ts'];

/** Every listed method's operations, by name (each has a permission entry of its name). */
const methodOps = new Set(SIGNIN_METHODS.flatMap((m) => Object.keys(m.permissions)));

test("the account page and the second step name no sign-in method's operation or page part", () => {
  const found: string[] = [];
  for (const file of PAGES) {
    const source = sourceOf(file);
    const visit = (node: ts.Node): void => {
      // `users.totpEnrol(…)`: a method's operation called by name (a member of the same name, such as
      // the second step's answer `recoveryCodes`, is no call of it).
      const callee = ts.isCallExpression(node) ? node.expression : undefined;
      if (callee && ts.isPropertyAccessExpression(callee) && methodOps.has(callee.name.text)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`src/${file}:${line}: ${callee.getText(source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    for (const i of importsOf(file)) {
      const part = /signin-methods\/([^/]+)\.js$/.exec(i.spec)?.[1];
      if (part && part !== 'index' && part !== 'method-page') found.push(`src/${file}:${i.line}: imports ${i.spec}`);
    }
  }
  assert.deepEqual(found, []);
});

/**
 * The user service knows the methods only through their list (users/signin-methods/index.ts):
 * outside the methods' folders, no file of users/ hands out, declares or guards a method's
 * operation (an object key, a member of the declared service, the name `guarded` checks).
 */
test("the user service names no sign-in method's operation outside the methods' folders", () => {
  const found: string[] = [];
  const core = sourceFiles().filter((f) => f.startsWith('users/') && !f.startsWith('users/signin-methods/'));
  for (const file of core) {
    const source = sourceOf(file);
    const visit = (node: ts.Node): void => {
      const named =
        ((ts.isPropertyAssignment(node) || ts.isMethodSignature(node)) && ts.isIdentifier(node.name)
          ? node.name.text
          : undefined) ?? (ts.isStringLiteral(node) ? node.text : undefined);
      if (named !== undefined && methodOps.has(named)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`src/${file}:${line}: ${named}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.deepEqual(found, []);
});
