import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { sourceFiles, sourceOf } from './source-files.js';

/**
 * Issue 38, item 2: events are told apart by their family's list of kinds (`kindIn`,
 * core/events.ts) and handed to listeners as their type (`on(kind, …)`), so nothing in the
 * server tests a kind's name for a prefix, and realtime/ holds no type assertion (`as T`,
 * `<T>x`; `as const` is no assertion of a type). A new kind then costs its own folder, not
 * edits of every `startsWith('item.')`.
 */
function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

const where = (file: string, source: ts.SourceFile, node: ts.Node) =>
  `src/${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;

test('no prefix test on an event kind anywhere in src/', () => {
  const found: string[] = [];
  for (const file of sourceFiles()) {
    const source = sourceOf(file);
    walk(source, (node) => {
      // `<x>.kind.startsWith(...)`: a kind told apart by its name.
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'startsWith' &&
        ts.isPropertyAccessExpression(node.expression.expression) &&
        node.expression.expression.name.text === 'kind'
      )
        found.push(where(file, source, node));
    });
  }
  assert.deepEqual(found, []);
});

test('no type assertion in realtime/', () => {
  const found: string[] = [];
  for (const file of sourceFiles().filter((f) => f.startsWith('realtime/'))) {
    const source = sourceOf(file);
    walk(source, (node) => {
      const asserted =
        (ts.isAsExpression(node) && !(ts.isTypeReferenceNode(node.type) && node.type.getText(source) === 'const')) ||
        ts.isTypeAssertionExpression(node);
      if (asserted) found.push(`${where(file, source, node)}: ${node.getText(source).slice(0, 60)}`);
    });
  }
  assert.deepEqual(found, []);
});
