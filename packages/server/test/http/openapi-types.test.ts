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
 * A client of the generated types (openapi-fetch) tells a success from a refusal by type: the
 * user service refuses values with 200 (docs/errors.md), and its 200 answer is the union of
 * the two, told apart by `code`.
 */
const CHECKS = `
import createClient from 'openapi-fetch';
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
/** The success of a 200 answer that may be a refusal (the user service): what has no \`code\`. */
type Ok<T> = Exclude<T, { code: string }>;

// What the server answers is what the connector reads.
export const item: OneItemAnswer | ItemsAnswer = given<Answer<'/data/api/getItem'>>();
export const page: ItemsPage = given<Answer<'/data/api/list'>>();
export const created: NewItemAnswer = given<Answer<'/data/api/newItem'>>();
export const written: SetItemAnswer = given<Answer<'/data/api/setItem'>>();
export const ping: PingAnswer = given<Answer<'/data/api/ping'>>();
export const permissions: PermissionsAnswer = given<Answer<'/data/api/getPermissions'>>();
export const identity: Identity = given<Ok<Answer<'/users/api/identity'>>>();
export const token: TokenAnswer = given<Ok<Answer<'/users/api/token'>>>();
export const signedUp: DoneAnswer = given<Ok<Answer<'/users/api/signupDirect'>>>();
export const user: UserAnswer = given<Ok<Answer<'/users/api/getUser'>>>();
export const users: UsersPage<UserRecord> = given<Ok<Answer<'/users/api/list'>>>();
export const entry: EntryAnswer = given<Answer<'/files/{path}/@getItem'>>();
export const uploaded: NewEntryAnswer = given<Answer<'/files/{path}/@newItem'>>();
export const entries: EntriesPage = given<Answer<'/files/{path}/@list'>>();

// A 200 of the user service is a success or a refusal; \`code\` tells them apart, \`result\` where it is \`true\`.
export function told(answer: Answer<'/users/api/token'>, whoami: Answer<'/users/api/identity'>): string[] {
  const said: string[] = [];
  if (answer.code === undefined) said.push(answer.token);
  else said.push(answer.code, answer.message, ...answer.invalid.map(([field, reason]) => \`\${field}: \${reason}\`));
  if (answer.result) said.push(answer.token);
  if (whoami.code !== undefined) said.push(whoami.code);
  else said.push(whoami.name, whoami.reference);
  return said;
}
// A refusal is no success: a program that forgets to check does not compile.
// @ts-expect-error: the answer may be a refusal, which has no token
export const unchecked: string = given<Answer<'/users/api/token'>>().token;
// A failed write of the data store says \`result: 0, success: []\`, or \`result: false\`.
type Refusal<P extends keyof paths> = paths[P] extends { post: { responses: { '4XX': infer R } } } ? Json<R> : never;
export const refusedWrite: { result: false | 0; code: string } = given<Refusal<'/data/api/newItem'>>();
export const refusedFile: { result: false | 0; code: string } = given<Refusal<'/files/{path}/@newItem'>>();
export const refused: { result: false; code: string } = given<Refusal<'/data/api/getItem'>>();

// A generated client: openapi-fetch over the generated paths. Its \`data\` leaves out what a success never has
// (\`code?: never\`), so \`in\` tells the two apart.
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
export async function signIn(identity: string, password: string): Promise<string> {
  const { data, error } = await client.POST('/users/api/token', { body: { identity, password } });
  if (error) throw new Error(error.code);
  if ('code' in data) throw new Error(data.code);
  return data.token;
}
export async function fileEntry(path: string): Promise<number> {
  const { data, error } = await client.POST('/files/{path}/@getItem', { params: { path: { path } }, body: {} });
  if (error) throw new Error(\`\${error.code}: \${String(error.result)}\`);
  return data.size;
}

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
      // The checks are written to a temporary folder, outside this repository's node_modules.
      paths: { 'openapi-fetch': [fileURLToPath(import.meta.resolve('openapi-fetch')).replace(/\.mjs$/, '.d.mts')] },
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `${d.file?.fileName.split('/').at(-1)}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    assert.deepEqual(problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s.close();
  }
});
