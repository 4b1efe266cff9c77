import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { useServer } from '../helpers/test-server.js';

interface Operation {
  requestBody?: unknown;
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'post', 'put', 'delete', 'head', 'patch'];

/**
 * /openapi.json as a generated client reads it: valid by Redocly's recommended rules (the
 * engine of `redocly lint`), one operation per operation (GET aliases are not listed again),
 * each with an operationId, a summary, a tag, its success answer and its failure answer.
 */
describe('/openapi.json', () => {
  let doc: Doc;
  let source: string;
  const s = useServer({ dataStores: { data: {}, notes: {} }, fileStores: { files: {} } });
  before(async () => {
    const res = await fetch(`${s.url}/openapi.json`);
    source = await res.text();
    doc = JSON.parse(source) as Doc;
  });

  test("passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: `${s.url}/openapi.json`, config });
    const shown = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    assert.deepEqual(shown, []);
  });

  test('every operation has an operationId, a summary, a tag, a success and a failure answer', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(op.operationId, `${where}: operationId`);
        assert.ok(!ids.has(op.operationId), `${where}: ${op.operationId} twice`);
        ids.add(op.operationId);
        assert.ok(op.summary, `${where}: summary`);
        // Summaries are plain text (tools show them as titles); the description may use Markdown.
        assert.doesNotMatch(op.summary, /[`*_[\]]|\n/, `${where}: a plain-text summary`);
        assert.ok(op.tags?.length, `${where}: tag`);
        assert.ok(
          ['200', '201', '204'].some((status) => op.responses?.[status]),
          `${where}: success answer`,
        );
        assert.ok(op.responses?.['4XX'], `${where}: failure answer`);
      }
    }
  });

  test('each operation once: the GET form of an operation is said, not listed again', () => {
    for (const store of ['data', 'notes']) {
      const item = doc.paths[`/${store}/api/getItem`];
      assert.ok(item?.post, `${store}: getItem`);
      assert.equal(item.get, undefined);
    }
    assert.ok(doc.paths['/users/api/signin']?.post);
    assert.equal(doc.paths['/users/api/signin']?.get, undefined);
    assert.equal(doc.paths['/users/api/updateMail'], undefined, 'an alias is said in its operation, not listed');
  });

  test('each file store operation has its own path', () => {
    for (const op of ['getItem', 'newItem', 'setItem', 'write', 'move', 'removeItem', 'list', 'getOwner', 'setOwner'])
      assert.ok(doc.paths[`/files/{path}/@${op}`], `@${op}`);
    assert.ok(doc.paths['/files/{path}']?.get, 'the download');
    assert.ok(doc.paths['/files/{path}/@write']?.put, '@write takes the raw file');
  });

  test('the tus routes are documented: creation, offset, bytes, termination, with their headers', () => {
    type Described = Operation & {
      parameters?: Array<{ name: string; in: string }>;
      responses?: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
    };
    const op = (path: string, method: string) => doc.paths[path]?.[method] as Described | undefined;
    const headersIn = (o: Described | undefined) =>
      (o?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    const create = op('/files/@uploads', 'post');
    assert.deepEqual(headersIn(create).slice(0, 4), [
      'Tus-Resumable',
      'Upload-Length',
      'Upload-Defer-Length',
      'Upload-Metadata',
    ]);
    assert.deepEqual(Object.keys(create?.responses?.['201']?.headers ?? {}).sort(), [
      'Location',
      'Tus-Resumable',
      'Upload-Expires',
      'Upload-Offset',
    ]);
    const item = '/{store}/@uploads/{id}';
    assert.ok(op(item, 'head')?.responses?.['200']?.headers?.['Upload-Offset'], 'HEAD answers the offset');
    assert.ok(op(item, 'head')?.responses?.['200']?.headers?.['Upload-Length'], 'HEAD answers the length');
    assert.ok(headersIn(op(item, 'patch')).includes('Upload-Offset'), 'PATCH says where its bytes start');
    assert.ok(op(item, 'patch')?.requestBody, 'PATCH takes the bytes');
    assert.ok(op(item, 'delete')?.responses?.['204'], 'DELETE gives it up');
    // Roost's failure body on each refusal that has a body (a HEAD's has none).
    for (const [path, method] of [
      ['/files/@uploads', 'post'],
      [item, 'patch'],
      [item, 'delete'],
    ] as const)
      assert.match(
        JSON.stringify(op(path, method)?.responses?.['4XX']?.content?.['application/json'] ?? {}),
        /"code"/,
        `${method} ${path}: the failure body`,
      );
  });

  test('the answers are described: an item, a page of items, an account', () => {
    const answer = (path: string, method = 'post') =>
      JSON.stringify(doc.paths[path]?.[method]?.responses?.['200']?.content?.['application/json']?.schema ?? {});
    assert.match(answer('/data/api/getItem'), /"timestamp"/);
    assert.match(answer('/data/api/list'), /"total"/);
    assert.match(answer('/users/api/identity'), /"reference"/);
    assert.match(answer('/users/api/list'), /"users"/);
    assert.match(answer('/files/{path}/@list'), /"items"/);
  });
});
