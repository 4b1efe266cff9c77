import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startServer } from '../helpers/test-server.js';

const client = (file: string) => fileURLToPath(new URL(`../../../client/src/${file}`, import.meta.url));

/**
 * Types generated from /openapi.json (openapi-typescript) against the TypeScript connector's
 * own types (packages/client/src/*-types.ts): each answer the server documents is one the
 * connector's type accepts, each input the connector sends is one the server documents, and no
 * generated type is `any`. A change to either side that the other does not follow fails here.
 */
const CHECKS = `
import type { paths } from './generated.js';
import type {
  ItemAddress, ItemsAnswer, ItemsPage, NewItemAnswer, OneItemAnswer, SetItemAnswer,
} from '${client('datastore-types.js')}';
import type { EntriesPage, EntryAnswer, NewEntryAnswer } from '${client('filestore-types.js')}';
import type { Identity, TokenAnswer, UserAnswer, UsersPage, UserRecord } from '${client('users-types.js')}';
import type { DoneAnswer, PermissionsAnswer, PingAnswer } from '${client('shared-types.js')}';

type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;
type Answer<P extends keyof paths> = paths[P] extends { post: { responses: { 200: infer R } } } ? Json<R> : never;
type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: infer B } } ? Json<NonNullable<B>> : never;
type IsAny<T> = 0 extends 1 & T ? true : false;
declare function given<T>(): T;

// What the server answers is what the connector reads.
export const item: OneItemAnswer | ItemsAnswer = given<Answer<'/data/api/getItem'>>();
export const page: ItemsPage = given<Answer<'/data/api/list'>>();
export const created: NewItemAnswer = given<Answer<'/data/api/newItem'>>();
export const written: SetItemAnswer = given<Answer<'/data/api/setItem'>>();
export const ping: PingAnswer = given<Answer<'/data/api/ping'>>();
export const permissions: PermissionsAnswer = given<Answer<'/data/api/getPermissions'>>();
export const identity: Identity = given<Answer<'/users/api/identity'>>();
export const token: TokenAnswer = given<Answer<'/users/api/token'>>();
export const signedUp: DoneAnswer = given<Answer<'/users/api/signupDirect'>>();
export const user: UserAnswer = given<Answer<'/users/api/getUser'>>();
export const users: UsersPage<UserRecord> = given<Answer<'/users/api/list'>>();
export const entry: EntryAnswer = given<Answer<'/files/{path}/@getItem'>>();
export const uploaded: NewEntryAnswer = given<Answer<'/files/{path}/@newItem'>>();
export const entries: EntriesPage = given<Answer<'/files/{path}/@list'>>();

// What the connector sends is what the server takes.
export const address: Body<'/data/api/getItem'> = given<ItemAddress>();
export const signup: Body<'/users/api/signupDirect'> = given<{ name: string; email: string; password: string }>();

// A generated client is typed: none of these is \`any\`.
export const typed: [false, false, false, false] = [
  given<IsAny<Answer<'/data/api/getItem'>>>(),
  given<IsAny<Answer<'/files/{path}/@newItem'>>>(),
  given<IsAny<Body<'/files/{path}/@newItem'>>>(),
  given<IsAny<Body<'/users/api/signupDirect'>>>(),
];
`;

test('the types generated from /openapi.json agree with the TypeScript connector', async () => {
  const s = await startServer({ fileStores: { files: {} } });
  const dir = mkdtempSync(join(tmpdir(), 'roost-openapi-types-'));
  try {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
    writeFileSync(join(dir, 'generated.ts'), astToString(await openapiTS(doc)));
    writeFileSync(join(dir, 'checks.ts'), CHECKS);
    const program = ts.createProgram([join(dir, 'checks.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName.split('/').at(-1)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  }
});
