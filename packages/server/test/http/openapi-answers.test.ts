import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import createClient from 'openapi-fetch';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

/** One call of the served API: the operation, who calls, its path parameter and its body. */
interface Call {
  op: string;
  token?: string | undefined;
  path?: string;
  body?: unknown;
  /** `@write` by PUT: the raw file. */
  raw?: string;
  /** Path parameters other than `path` (`collection`, `id`). */
  params?: Record<string, string>;
  /** Headers of the protocol (tus: `Tus-Resumable`, `Upload-Offset`, …). */
  headers?: Record<string, string>;
}

/** What a call answered, checked against the document: the status, the media type, the body. */
interface Answered {
  op: string;
  status: number;
  media: string;
  body: unknown;
  /** Where a creation's answer points (tus: the upload's URL). */
  location: string | null;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/**
 * A client generated from the served /openapi.json (openapi-fetch, which encodes a path
 * parameter as generators do: `photos%2Fcat.jpg`) makes every documented operation at least
 * once, successes where they can be had and failures beside them (the user service's refusal
 * on 200, a data store's failed write with `result: 0`, a file store's), and each answer is
 * checked with Ajv against the schema the document gives its status (OpenAPI 3.1: JSON Schema
 * 2020-12). An operation added to the document without a call here fails the test too.
 */
let s: TestServer;
let doc: Doc;
const answered: Answered[] = [];
before(async () => {
  s = await startServer({
    dataStores: { data: {} },
    fileStores: { files: {} },
    collections: {
      posts: {
        schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        rules: { list: '', view: '', create: '', update: '', delete: '' },
      },
    },
  });
  doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Doc;
});
after(() => s?.close());

/** Each documented operation by its id: its method and path template. */
function operations(): Map<string, { method: string; path: string; op: Operation }> {
  const found = new Map<string, { method: string; path: string; op: Operation }>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of METHODS) {
      const op = item[method];
      if (op) found.set(op.operationId, { method, path, op });
    }
  return found;
}

/** The schema of an answer: the status', else its class' (`4XX`), by media type. */
function documented(op: Operation, status: number, media: string): { pointer: string; schema: unknown } | null {
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
  if (!key) return null;
  const content = op.responses[key]?.content;
  // An answer without a body (204, a tus creation's 201) is documented without content.
  if (status === 204 || (!content && media === '')) return { pointer: key, schema: null };
  if (!content) return null;
  // A download's documented `application/octet-stream` stands for the file's own type.
  const type = content[media] ? media : content['application/octet-stream'] ? 'application/octet-stream' : null;
  return type ? { pointer: `${key} ${type}`, schema: content[type]?.schema } : null;
}

async function call(c: Call): Promise<Answered> {
  const found = operations().get(c.op);
  assert.ok(found, `${c.op} is not in /openapi.json`);
  // The document is read at run time: no types to give the client here (openapi-types.test.ts checks them).
  // biome-ignore lint/suspicious/noExplicitAny: paths known only from the served document
  const client = createClient<any>({ baseUrl: s.url });
  const headers: Record<string, string> = { ...(c.token ? { 'x-auth-token': c.token } : {}), ...c.headers };
  const init = {
    headers: c.raw === undefined ? headers : { 'content-type': 'application/octet-stream', ...headers },
    params: {
      path: { path: c.path ?? '', ...c.params },
      ...(found.method === 'get' && c.body ? { query: c.body } : {}),
    },
    // The stream of live changes never ends: only its headers are read.
    parseAs: c.op === 'realtime_stream' ? ('stream' as const) : ('text' as const),
    body: found.method === 'get' ? undefined : (c.raw ?? c.body),
    ...(c.raw !== undefined ? { bodySerializer: (b: string) => b } : {}),
  };
  const { data, error, response } = await client.request(found.method as 'get', found.path, init);
  const media = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
  // openapi-fetch reads a failure's body as JSON itself, a success's as asked (text).
  let body: unknown = response.ok ? data : error;
  if (media === 'text/event-stream') await (data as ReadableStream).cancel();
  else if (media === 'application/json' && typeof body === 'string') body = JSON.parse(body);
  const result = { op: c.op, status: response.status, media, body, location: response.headers.get('location') };
  answered.push(result);
  return result;
}

/** A user the calls need, with a fresh token. */
const signedIn = (name: string): Promise<string> => s.createUser(name);

test('every documented operation, called by a generated client, answers as its schema says', async () => {
  const admin = await s.adminToken();
  const alice = await signedIn('alice');
  const own = (op: string, body: unknown = {}) => call({ op, token: alice, body });
  const admins = (op: string, body: unknown = {}) => call({ op, token: admin, body });

  // The user service: successes, its refusals on 200 and its failures on 4XX.
  for (const policy of ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw', 'signupUid'])
    await s.grant(policy, ['sys:everyone']);
  await call({ op: 'users_ping', body: {} });
  await call({ op: 'users_challenge', body: {} });
  await call({ op: 'users_token', body: { identity: 'alice', password: PASSWORD } });
  await call({ op: 'users_token', body: { identity: 'alice', password: 'wrong-password' } });
  await call({ op: 'users_signin', body: { identity: 'alice', password: PASSWORD } });
  await call({ op: 'users_token2', body: { challenge: 'none', code: '123456' } });
  await call({ op: 'users_signin2', body: { challenge: 'none', code: '123456' } });
  await call({ op: 'users_signinMail', body: { identity: 'alice' } });
  await call({ op: 'users_signinMail2', body: { token: 'not-a-token' } });
  await call({ op: 'users_providers', body: {} });
  await call({ op: 'users_signinProvider2', body: { token: 'not-a-token' } });
  await own('users_providerLinks');
  await own('users_unlinkProvider', { provider: 'nowhere' });
  await own('users_passkeyOptions');
  await own('users_passkeyRegister', { response: { id: 'x' } });
  await own('users_passkeys');
  await own('users_renamePasskey', { id: 'none', name: 'phone' });
  await own('users_removePasskey', { id: 'none' });
  await s.grant('signinAnonymous', ['sys:everyone']);
  const anonymous = await call({ op: 'users_signinAnonymous', body: {} });
  const anonymousToken = (anonymous.body as { token: string }).token;
  await call({ op: 'users_upgradeAnonymous', token: anonymousToken, body: { name: 'upgraded', password: PASSWORD } });
  await own('users_upgradeAnonymous', { name: 'alice2', password: PASSWORD });
  await call({ op: 'users_signinIdToken', body: { provider: 'nowhere', idToken: 'a.b.c', nonce: 'n' } });
  // No SMS sender here: the refusals' bodies (test/http/sms-codes.test.ts answers the successes).
  await own('users_smsAdd', { phone: '+491701234567', password: PASSWORD });
  await own('users_smsConfirm', { code: '123456' });
  await own('users_smsRemove', { password: PASSWORD });
  await own('users_smsPhone');
  await call({ op: 'users_smsSignin', body: { phone: '+491701234567' } });
  await call({ op: 'users_smsSignin2', body: { phone: '+491701234567', code: '123456' } });
  await call({ op: 'users_smsChallenge', body: { challenge: 'none' } });
  await call({ op: 'users_passkeySigninOptions', body: {} });
  await call({ op: 'users_passkeyToken', body: { response: { id: 'x' } } });
  await call({ op: 'users_passkeySignin', body: { response: { id: 'x' } } });
  await own('users_secondFactor');
  const bob = await signedIn('bob');
  await call({ op: 'users_totpEnrol', token: bob, body: { password: PASSWORD } });
  await call({ op: 'users_totpConfirm', token: bob, body: { code: '000000', password: PASSWORD } });
  await own('users_totpRemove', { password: PASSWORD });
  await own('users_recoveryCodes', { password: PASSWORD });
  await own('users_sessions');
  await own('users_revokeSession', { id: 'none' });
  await call({ op: 'users_revokeOtherSessions', token: await signedIn('erin'), body: {} });
  await call({ op: 'users_signout', token: await signedIn('frank'), body: {} });
  await own('users_identity');
  await own('users_name');
  await own('users_profile');
  await own('users_authenticated', { groups: ['admins'] });
  await own('users_allowed', { permission: ['list', 'update'] });
  await call({ op: 'users_signupDirect', body: { name: 'carol', email: 'carol@example.com', password: PASSWORD } });
  await call({ op: 'users_signupDirect', body: { name: 'x', email: 'not an email' } });
  await call({ op: 'users_signupOptin', body: { name: 'dora', email: 'dora@example.com', password: PASSWORD } });
  await call({ op: 'users_signupReview', body: { name: 'gina', email: 'gina@example.com', password: PASSWORD } });
  await call({ op: 'users_signupSendpw', body: { name: 'hank', email: 'hank@example.com' } });
  await call({ op: 'users_signupUid', body: { email: 'ida@example.com', password: PASSWORD } });
  await call({ op: 'users_activate', body: { token: 'not-a-token' } });
  await own('users_update', { realname: 'Alice' });
  await own('users_updatePassword', { password: PASSWORD, newpassword: PASSWORD });
  await own('users_updateEmail', { email: 'alice.new@example.com' });
  await own('users_verifyEmail', { email: 'alice.new@example.com' });
  await call({ op: 'users_verifyEmail2', body: { token: 'not-a-token' } });
  await call({ op: 'users_resetPassword', body: { identity: 'alice' } });
  await call({ op: 'users_resetPassword2', body: { token: 'not-a-token', newpassword: PASSWORD } });
  await own('users_message', { message: 'Hello.' });
  await call({ op: 'users_disable', token: await signedIn('jack'), body: {} });
  await call({ op: 'users_delete', token: await signedIn('kate'), body: {} });
  await admins('users_review', { identity: 'alice', action: 'accept' });
  await admins('users_getUser', { identity: 'alice' });
  await admins('users_getUser', { identity: 'nobody' });
  await admins('users_setUser', { identity: 'alice', values: { realname: 'Alice A.' } });
  await signedIn('liam');
  await admins('users_removeUser', { identity: 'liam' });
  await admins('users_list');
  await admins('users_identities');
  await admins('users_userFactors', { identity: 'alice' });
  await admins('users_resetSecondFactor', { identity: 'bob' });
  await admins('users_userSessions', { identity: 'alice' });
  await signedIn('mona');
  await admins('users_revokeUserSessions', { identity: 'mona' });
  await admins('users_getPermissions');
  await admins('users_setPermissions', {
    permissions: [{ permission: 'list', groups: ['admins'], action: 'replace' }],
  });
  await own('users_setPermissions', { permissions: [] });

  // A data store: each operation, and failed writes (an existing key, an anonymous caller).
  await own('data_newItem', { key: 'k1', value: 'one' });
  await own('data_newItem', { key: 'k1', value: 'again' });
  await call({ op: 'data_newItem', body: { key: 'k2', value: 'anonymous' } });
  await own('data_getItem', { key: 'k1' });
  await own('data_getItem', { key: ['k1', 'k9'] });
  await own('data_getItem', { key: 'k9' });
  await own('data_setItem', { key: 'k2', value: 'two' });
  await own('data_setItem', { id: 999_999, value: 'none' });
  await own('data_list', { prefix: 'k' });
  await own('data_keys', {});
  await own('data_getOwner', { key: 'k1' });
  await admins('data_setOwner', { key: 'k2', newOwner: 'bob' });
  await own('data_setOwner', { key: 'k1', newOwner: 'bob' });
  await own('data_removeItem', { key: 'k1' });
  await own('data_removeItem', { items: 'not a list' });
  await own('data_allowed', { permission: ['newItem', 'setOwner'] });
  await admins('data_getPermissions');
  await admins('data_setPermissions', {
    permissions: [{ permission: 'list', groups: ['sys:authenticated', 'admins'], action: 'replace' }],
  });
  await call({ op: 'data_ping', body: {} });

  // Live changes: a stream (text/event-stream), a subscription of a stream that is not open.
  await call({ op: 'realtime_stream', token: alice });
  await own('realtime_subscribe', { clientId: 'not-open', topics: ['items/data'] });

  // A file store, paths as a generated client sends them (`photos%2Fcat.jpg`).
  await own('files_newItem', { name: 'photos', type: 'd' });
  await call({ op: 'files_newItem', token: alice, path: 'photos', body: { name: 'cat.txt', contents: 'meow' } });
  await call({ op: 'files_newItem', token: alice, path: 'photos', body: { name: 'cat.txt', contents: 'meow' } });
  const cat = { token: alice, path: 'photos/cat.txt' };
  await call({ op: 'files_getItem', ...cat, body: {} });
  await call({ op: 'files_getItem', ...cat, path: 'photos/none.txt', body: {} });
  await call({ op: 'files_setItem', ...cat, body: { contents: 'purr', mime: 'text/plain' } });
  await call({ op: 'files_write', ...cat, body: { contents: 'hiss' } });
  await call({ op: 'files_write_put', ...cat, raw: 'raw contents' });
  await call({ op: 'files_read', ...cat });
  await call({ op: 'files_download', ...cat });
  await call({ op: 'files_download', ...cat, path: 'photos/../../etc/passwd' });
  await call({ op: 'files_list', token: alice, path: 'photos', body: {} });
  await call({ op: 'files_allowed', ...cat, body: { permission: ['read', 'setOwner'] } });
  await call({ op: 'files_getOwner', ...cat, body: {} });
  await call({ op: 'files_setOwner', ...cat, token: admin, body: { owner: 'alice' } });
  await call({ op: 'files_getPermissions', token: admin, body: {} });
  await call({
    op: 'files_setPermissions',
    token: admin,
    body: { permissions: [{ permission: 'list', groups: ['sys:authenticated', 'admins'], action: 'replace' }] },
  });
  await call({ op: 'files_ping', body: {} });
  // Direct transfers need the store's blobs on S3 and its `direct` setting: a store without it
  // offers none to a generated client (test/http/filestore-direct.test.ts: the stores with it).
  for (const op of ['directUpload', 'directFinish', 'link'])
    assert.equal(doc.paths[`/files/{path}/@${op}`], undefined, `@${op} of a store without direct transfers`);
  // Resumable uploads (tus): made, written, refused, given up (the HEAD of an offset: filestore-resumable.test.ts).
  const tus = (more: Record<string, string> = {}) => ({ 'tus-resumable': '1.0.0', ...more });
  const named = (path: string) => `path ${Buffer.from(path).toString('base64')}`;
  const creation = (path: string) => ({
    op: 'files_uploadCreate',
    token: alice,
    headers: tus({ 'upload-length': '4', 'upload-metadata': named(path) }),
  });
  const upload = (made: Answered) => ({ store: 'files', id: made.location?.split('/').at(-1) ?? '' });
  const first = upload(await call(creation('photos/tus.txt')));
  await call({ op: 'files_uploadCreate', token: alice, headers: tus({ 'upload-metadata': named('photos/x.txt') }) });
  const bytes = (offset: string) => ({ 'upload-offset': offset, 'content-type': 'application/offset+octet-stream' });
  await call({ op: 'uploads_patch', token: alice, params: first, headers: tus(bytes('0')), raw: 'tus!' });
  const second = upload(await call(creation('photos/mismatched.txt')));
  await call({ op: 'uploads_patch', token: alice, params: second, headers: tus(bytes('2')), raw: 'tus!' });
  const third = upload(await call(creation('photos/given-up.txt')));
  await call({ op: 'uploads_terminate', token: alice, params: third, headers: tus() });
  await call({ op: 'uploads_terminate', token: alice, params: third, headers: tus() });
  // On s3rver (the S3 pass) tus answers 500: it lists no multipart parts (moto does, filestore-resumable.test.ts).
  if (process.env.ROOST_TEST_BLOBS !== 's3')
    assert.ok(
      answered.some((a) => a.op === 'uploads_patch' && a.status === 204),
      'the tus upload was written',
    );
  await call({ op: 'files_move', ...cat, body: { newpath: 'photos/kitten.txt' } });
  await call({ op: 'files_removeItem', token: alice, path: 'photos', body: {} });
  await call({ op: 'files_removeItem', token: alice, path: 'photos/kitten.txt', body: {} });

  // Collections: records (a success and a refusal of each write), the batch, the collections.
  const posts = { collection: 'posts' };
  const made = await call({ op: 'records_create', token: alice, params: posts, body: { title: 'one' } });
  await call({ op: 'records_create', token: alice, params: posts, body: { title: 1 } });
  const id = (made.body as { id: string }).id;
  const record = { ...posts, id };
  await call({ op: 'records_get', params: record });
  await call({ op: 'records_get', params: { ...posts, id: 'not-an-id!' } });
  await call({ op: 'records_list', params: posts, body: { perPage: '1', total: 'true' } });
  await call({ op: 'records_list', params: { collection: 'nothing' } });
  await call({ op: 'records_merge', token: alice, params: record, body: { title: 'two' } });
  await call({ op: 'records_replace', token: alice, params: record, body: { title: 'three' } });
  await call({ op: 'records_replace', token: alice, params: record, body: {} });
  await call({
    op: 'records_batch',
    token: alice,
    body: { operations: [{ ...posts, action: 'create', data: { title: 'b' } }] },
  });
  await call({ op: 'records_batch', token: alice, body: { operations: [] } });
  await call({ op: 'records_delete', token: alice, params: record });
  await call({ op: 'records_delete', token: alice, params: record });
  // The same through the collection's own paths, whose answers its schema describes.
  const typed = await call({ op: 'posts_records_create', token: alice, body: { title: 'typed' } });
  await call({ op: 'posts_records_create', token: alice, body: { title: 'x', extra: 1 } });
  const typedId = { id: (typed.body as { id: string }).id };
  await call({ op: 'posts_records_get', params: typedId });
  await call({ op: 'posts_records_list', body: { filter: 'title = "typed"', total: 'true' } });
  await call({ op: 'posts_records_list', body: { filter: 'nosuch = 1' } });
  await call({ op: 'posts_records_merge', token: alice, params: typedId, body: { title: 'typed again' } });
  await call({ op: 'posts_records_replace', token: alice, params: typedId, body: { title: 'typed thrice' } });
  await call({ op: 'posts_records_delete', token: alice, params: typedId });
  const notes = { schema: { type: 'object', properties: { text: { type: 'string' } } }, rules: {} };
  await admins('collections_create', { name: 'notes', ...notes });
  await own('collections_create', { name: 'notes2', ...notes });
  await call({ op: 'collections_list', token: admin });
  await call({ op: 'collections_get', token: admin, params: { collection: 'notes' } });
  await call({
    op: 'collections_change',
    token: admin,
    params: { collection: 'notes' },
    body: { ...notes, rules: { list: '' } },
  });
  await call({
    op: 'collections_change',
    token: admin,
    params: { collection: 'notes' },
    body: { schema: { type: 'x' } },
  });
  await call({ op: 'collections_delete', token: admin, params: { collection: 'notes' } });
  await call({ op: 'collections_delete', token: alice, params: { collection: 'posts' } });

  // The API keys (routes/key-routes.ts): administrators only; a key's text is answered once.
  const scopes = [{ kind: 'store', name: 'data', access: ['read'] }];
  await admins('keys_create', { name: 'documented', scopes, expires: '2099-01-01T00:00:00Z' });
  await admins('keys_create', { name: '', scopes: [] });
  await own('keys_create', { name: 'x', scopes });
  await call({ op: 'keys_list', token: admin });
  await call({ op: 'keys_list' });
  const keyId = (await s.roost.keys.list((await s.roost.users.authenticate(admin))!.principal))[0]?.id ?? '';
  await call({ op: 'keys_get', token: admin, params: { id: keyId } });
  await call({ op: 'keys_get', token: admin, params: { id: 'nosuchkey' } });
  await call({ op: 'keys_revoke', token: admin, params: { id: keyId } });
  await call({ op: 'keys_revoke', token: alice, params: { id: keyId } });

  const ops = operations();
  const uncalled = [...ops.keys()].filter((id) => !answered.some((a) => a.op === id));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The whole document under its address: response schemas are checked through it, so a `$ref` resolves.
  ajv.addSchema(doc, 'openapi.json');
  const mismatches: string[] = [];
  for (const a of answered) {
    const found = ops.get(a.op);
    if (!found) continue;
    const where = documented(found.op, a.status, a.media);
    const said = `${a.op} ${a.status} ${a.media}`;
    if (!where) {
      mismatches.push(`${said}: no answer of this status and type is documented`);
      continue;
    }
    if (a.media !== 'application/json') continue;
    const [key, type] = where.pointer.split(' ') as [string, string];
    const pointer = ['paths', found.path, found.method, 'responses', key, 'content', type, 'schema']
      .map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi.json#/${pointer}`);
    assert.ok(validate, `${said}: no schema at ${pointer}`);
    if (!validate(a.body))
      mismatches.push(`${said}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(a.body).slice(0, 300)}`);
  }
  assert.deepEqual(uncalled, [], 'operations of the document that no call made');
  assert.deepEqual(mismatches, []);

  // The failures that must be there to be checked: a refusal on 200, failed writes with result 0.
  const seen = (op: string, status: number, result: unknown) =>
    answered.some((a) => a.op === op && a.status === status && (a.body as { result?: unknown })?.result === result);
  assert.ok(seen('users_signupDirect', 200, false), 'the user service refuses values with 200');
  assert.ok(seen('data_newItem', 409, 0), 'a failed data store write answers result: 0');
  assert.ok(seen('files_newItem', 422, 0), 'a file store failure with result: 0');
  assert.ok(seen('files_getItem', 200, true), 'a file path with a slash, encoded by the client');
  const successes = answered.filter((a) => a.status === 200).length;
  assert.ok(successes > answered.length / 2, `${successes} of ${answered.length} calls succeeded`);
});
