import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer, PASSWORD, type CallResult } from '../helpers/test-server.js';

/** Every failure: JSON with result false, a code, a message, messages; no stack trace, no internals. */
function assertFailure(res: CallResult, status: number, code?: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(typeof res.body, 'object', `not JSON: ${String(res.body).slice(0, 200)}`);
  assert.equal(res.body.result, false);
  assert.equal(typeof res.body.code, 'string');
  assert.ok(res.body.code.length > 0);
  if (code) assert.equal(res.body.code, code);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Array.isArray(res.body.messages));
  assert.equal(res.body.messages[0], res.body.message);
  assert.ok(Array.isArray(res.body.invalid));
  assertNoInternals(res);
}

function assertNoInternals(res: CallResult): void {
  const text = JSON.stringify(res.body);
  assert.equal(res.body.stack, undefined);
  assert.doesNotMatch(text, /\bat .+\.(ts|js):\d+|node_modules|\/work\/|SQLITE|syntax error at|relation "|FST_ERR/i);
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_CT = { 'content-type': 'application/json' };

describe('users: the error model', () => {
  const s = useServer({ bodyLimit: 2048 });

  test('malformed JSON → 400 malformed_json', async () => {
    for (const raw of ['{"identity": "a",', '{identity: a}', "{'a': 1}", '{"a": 1}}', 'nul']) {
      const res = await s.users('token', undefined, { raw, headers: JSON_CT });
      assertFailure(res, 400, 'malformed_json');
    }
  });

  test('wrong content type → 415', async () => {
    for (const type of [
      'text/plain',
      'application/xml',
      'text/xml',
      'application/octet-stream',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await s.users('token', undefined, {
        raw: '{"identity":"a","password":"b"}',
        headers: { 'content-type': type },
      });
      assertFailure(res, 415, 'unsupported_media_type');
    }
  });

  test('oversized body (> bodyLimit) → 413, JSON and form', async () => {
    const big = JSON.stringify({ identity: 'a', password: 'x'.repeat(4000) });
    assertFailure(await s.users('token', undefined, { raw: big, headers: JSON_CT }), 413, 'body_too_large');
    const bigForm = new URLSearchParams({ identity: 'a', password: 'x'.repeat(4000) }).toString();
    assertFailure(await s.users('token', undefined, { raw: bigForm, headers: FORM }), 413, 'body_too_large');
    // Just under the limit is served.
    const fits = await s.users('token', { identity: 'a', password: 'x'.repeat(200) });
    assert.equal(fits.status, 401);
  });

  test('a JSON body that is not an object → 400', async () => {
    for (const raw of ['[]', '[{"identity":"a"}]', '"a string"', '42', 'true']) {
      const res = await s.users('token', undefined, { raw, headers: JSON_CT });
      assertFailure(res, 400);
    }
    // A JSON null body is tolerated as an absent body (like an empty one).
    const nul = await s.users('token', undefined, { raw: 'null', headers: JSON_CT });
    assertFailure(nul, 200, 'validation_failure');
    assert.deepEqual(nul.body.invalid, [
      ['identity', 'required'],
      ['password', 'required'],
    ]);
  });

  test('unknown routes and operations → 404 JSON', async () => {
    assertFailure(await s.request('/no/such/path'), 404, 'not_found');
    assertFailure(await s.users('noSuchOperation', {}), 404, 'not_found');
    assertFailure(await s.request('/users/api/'), 404, 'not_found');
    assertFailure(await s.request('/users/api/profile/extra'), 404, 'not_found');
    // disable and delete answer DELETE; other operations do not.
    assertFailure(await s.request('/users/api/profile', undefined, { method: 'DELETE' }), 404, 'not_found');
    const put = await s.request('/users/api/token', { identity: 'a', password: 'b' }, { method: 'PUT' });
    assert.ok(put.status === 404 || put.status === 405, String(put.status));
    assertFailure(put, put.status);
  });

  test('401, 403, 404 and validation failures all have the full failure body', async () => {
    assertFailure(await s.users('profile', {}), 401, 'not_signed_in');
    assertFailure(await s.users('token', { identity: 'nobody', password: 'whatever' }), 401, 'invalid_credentials');
    const user = await s.createUser('plain');
    assertFailure(await s.users('list', {}, { token: user }), 403, 'not_allowed');
    const admin = await s.adminToken();
    assertFailure(await s.users('getUser', { identity: 'nobody' }, { token: admin }), 404, 'unknown_user');
    const invalid = await s.users('updatePassword', { password: PASSWORD, newpassword: 'x' }, { token: user });
    assertFailure(invalid, 200, 'validation_failure');
    assert.deepEqual(invalid.body.messages.slice(1), [['newpassword', 'too short']]);
    assert.deepEqual(invalid.body.invalid, [['newpassword', 'too short']]);
  });

  test('a 401 for a missing token says how to authenticate', async () => {
    const res = await s.users('profile', {});
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  });
});

describe('users: hostile input', () => {
  let admin: string;
  let user: string;
  let before_: unknown;
  const snapshot = async () => (await s.users('list', { size: 100 }, { token: admin })).body;

  const s = useServer();
  before(async () => {
    admin = await s.adminToken();
    user = await s.createUser('victim', { email: 'victim@example.com' });
    await s.grant('signupDirect', ['sys:everyone']);
    before_ = await snapshot();
  });

  const SQL = [
    "' OR '1'='1",
    "admin'--",
    "x'; DROP TABLE users; --",
    '" OR ""="',
    "1; DELETE FROM sessions WHERE '1'='1",
    "victim' UNION SELECT password_hash FROM users --",
    '%',
    '\\',
  ];

  test('SQL injection strings as identity: 401, nothing matched', async () => {
    for (const identity of SQL) {
      const res = await s.users('token', { identity, password: "' OR '1'='1" });
      assert.equal(res.status, 401, identity);
      assert.equal(res.body.token, undefined);
      assertNoInternals(res);
    }
    for (const identity of SQL) {
      const res = await s.users('getUser', { identity }, { token: admin });
      assert.equal(res.status, 404, identity);
    }
  });

  test('SQL injection strings as sign-up name: result false name invalid', async () => {
    for (const [i, name] of SQL.entries()) {
      const res = await s.users('signupDirect', { name, email: `sqli${i}@example.com`, password: PASSWORD });
      assert.equal(res.status, 200, name);
      assert.equal(res.body.result, false, name);
      assert.equal(res.body.invalid.length, 1, name);
      assert.equal(res.body.invalid[0][0], 'name', name);
      assert.equal(
        res.body.invalid[0][1],
        name.length > 40 ? 'too long' : name.length < 3 ? 'too short' : 'invalid',
        name,
      );
    }
  });

  test('SQL injection strings in list search: no match, no error', async () => {
    for (const text of SQL) {
      for (const field of ['name', 'email', 'search', 'group']) {
        const res = await s.users('list', { [field]: text }, { token: admin });
        assert.equal(res.status, 200, `${field}: ${text}`);
        if (field === 'name' && text.length > 40) {
          assert.deepEqual(res.body.invalid, [['name', 'too long']]);
          continue;
        }
        assert.deepEqual(res.body.users, [], `${field}: ${text}`);
        assert.equal(res.body.total, 0);
      }
    }
    const sort = await s.users('list', { sort: 'name; DROP TABLE users' }, { token: admin });
    assert.equal(sort.body.result, false);
    assert.deepEqual(sort.body.invalid, [['sort', 'invalid']]);
  });

  test('1 MB strings: over the body limit → 413; long fields → too long', async () => {
    const mb = 'a'.repeat(1024 * 1024);
    assertFailure(await s.users('token', { identity: mb, password: PASSWORD }), 413, 'body_too_large');
    assertFailure(await s.users('update', { realname: mb }, { token: user }), 413, 'body_too_large');
    const long = 'b'.repeat(200_000);
    const token = await s.users('token', { identity: long, password: PASSWORD });
    assert.equal(token.status, 200);
    assert.deepEqual(token.body.invalid, [['identity', 'too long']]);
    const signup = await s.users('signupDirect', { name: long, email: `${long}@example.com`, password: long });
    assert.deepEqual(signup.body.invalid, [
      ['name', 'too long'],
      ['email', 'too long'],
      ['password', 'too long'],
    ]);
    const update = await s.users('update', { realname: long, data: long }, { token: user });
    assert.deepEqual(update.body.invalid, [
      ['realname', 'too long'],
      ['data', 'too long'],
    ]);
    const search = await s.users('list', { search: long }, { token: admin });
    assert.deepEqual(search.body.invalid, [['search', 'too long']]);
    const huge = await s.request(`/users/api/ping?x=${'q'.repeat(100_000)}`);
    assert.ok(huge.status >= 400 && huge.status < 500, String(huge.status));
  });

  test('unicode edge cases in names: RTL marks, NUL, emoji, zero-width → name invalid', async () => {
    const names = ['\u202Eadmin', 'adm\u200Fin', '😀😀😀', 'vic\u200Btim', 'a b c', 'x/../y', 'tab\tname', 'new\nline'];
    for (const [i, name] of names.entries()) {
      const res = await s.users('signupDirect', { name, email: `uni${i}@example.com`, password: PASSWORD });
      assert.equal(res.status, 200, JSON.stringify(name));
      assert.equal(res.body.result, false, JSON.stringify(name));
      assert.deepEqual(res.body.invalid, [['name', 'invalid']], JSON.stringify(name));
    }
  });

  test('unicode edge cases as identity: a clear 401, never a 500', async () => {
    for (const identity of [
      'victim\u202E',
      '\u202Evictim',
      '😀',
      '\uD800',
      'victim\u200B',
      'VICTIM@EXAMPLE.COM\u200F',
    ]) {
      const res = await s.users('token', { identity, password: PASSWORD });
      assert.equal(res.status, 401, JSON.stringify(identity));
      assert.equal(res.body.token, undefined);
      assertNoInternals(res);
    }
  });

  test('NUL anywhere (identity, password, name, nested values, query, form) → 400 nul_character', async () => {
    const nul = '\u0000';
    assertFailure(await s.users('token', { identity: `victim${nul}`, password: PASSWORD }), 400, 'nul_character');
    assertFailure(await s.users('token', { identity: nul, password: PASSWORD }), 400, 'nul_character');
    assertFailure(await s.users('token', { identity: 'victim', password: `${PASSWORD}${nul}` }), 400, 'nul_character');
    assertFailure(
      await s.users('signupDirect', { name: `ad${nul}min`, email: 'nul1@example.com', password: PASSWORD }),
      400,
      'nul_character',
    );
    assertFailure(
      await s.users('setUser', { identity: 'victim', values: { realname: `x${nul}` } }, { token: admin }),
      400,
      'nul_character',
    );
    assertFailure(await s.users('update', { data: { [`k${nul}`]: 1 } }, { token: user }), 400, 'nul_character');
    assertFailure(await s.request('/users/api/token?identity=victim%00&password=x'), 400, 'nul_character');
    assertFailure(
      await s.users('token', undefined, { raw: 'identity=victim%00&password=x', headers: FORM }),
      400,
      'nul_character',
    );
  });

  test('emoji and RTL text in realname and data round-trip; NUL is refused with 400', async () => {
    const realname = 'Zoë 😀 \u05E9\u05DC\u05D5\u05DD \u202Bmixed\u202C';
    const ok = await s.users('update', { realname, data: { note: '🚀\u200F' } }, { token: user });
    assert.deepEqual(ok.body, { result: true });
    const p = (await s.users('profile', {}, { token: user })).body;
    assert.equal(p.realname, realname);
    assert.deepEqual(JSON.parse(p.data), { note: '🚀\u200F' });
    const nul = await s.users('update', { realname: 'nul\u0000name' }, { token: user });
    assertFailure(nul, 400, 'nul_character');
    assert.equal((await s.users('profile', {}, { token: user })).body.realname, realname);
    await s.users('update', { realname: '' }, { token: user });
  });

  test('prototype poisoning in JSON bodies → 400, nothing changed', async () => {
    const bodies = [
      '{"identity":"victim","password":"x","__proto__":{"admin":true}}',
      '{"realname":"p","constructor":{"prototype":{"isAdmin":true}}}',
      '{"identity":"victim","values":{"__proto__":{"groups":["admins"]}}}',
    ];
    for (const raw of bodies) {
      for (const op of ['token', 'update', 'setUser']) {
        const res = await s.users(op, undefined, { raw, headers: JSON_CT, token: op === 'setUser' ? admin : user });
        assertFailure(res, 400);
      }
    }
    assert.equal(({} as Record<string, unknown>).admin, undefined);
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });

  test('prototype keys in form bodies and queries do not grant anything', async () => {
    const raw = '__proto__[groups]=admins&__proto__=x&constructor[prototype][groups]=admins&realname=formproto';
    const res = await s.users('update', undefined, { raw, headers: FORM, token: user });
    assert.ok(res.status === 200 || res.status === 400, String(res.status));
    const q = await s.request('/users/api/update?__proto__[groups]=admins&groups=admins', undefined, { token: user });
    assert.ok(q.status === 200 || q.status === 400, String(q.status));
    const p = (await s.users('profile', {}, { token: user })).body;
    assert.deepEqual(p.groups, []);
    assert.equal((await s.users('list', {}, { token: user })).status, 403);
    assert.equal((await s.users('authenticated', { groups: 'admins' }, { token: user })).body.result, false);
  });

  test('deeply nested and odd-typed values → result false, not a 500', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 30; i++) deep = { a: deep };
    const nested = await s.users('update', { realname: deep }, { token: user });
    assert.equal(nested.body.result, false);
    assert.deepEqual(nested.body.invalid, [['realname', 'invalid']]);
    // Past 64 levels the body is malformed before any field is looked at (test/security/hostile-input).
    for (let i = 0; i < 170; i++) deep = { a: deep };
    const tooDeep = await s.users('update', { realname: deep }, { token: user });
    assert.deepEqual([tooDeep.status, tooDeep.body.code], [400, 'too_deep']);
    const odd = await s.users('token', { identity: ['victim'], password: { $ne: null } });
    assert.equal(odd.status, 200);
    assert.equal(odd.body.result, false);
    assert.deepEqual(odd.body.invalid, [
      ['identity', 'invalid'],
      ['password', 'invalid'],
    ]);
  });

  test('after all of it the user list is unchanged and the victim still signs in', async () => {
    const now = await snapshot();
    const strip = (b: { users: Array<Record<string, unknown>> }) =>
      b.users.map(({ activity: _a, realname: _r, data: _d, ...rest }) => rest);
    assert.deepEqual(strip(now as never), strip(before_ as never));
    assert.equal((now as { total: number }).total, 2);
    assert.equal((await s.users('token', { identity: 'victim', password: PASSWORD })).status, 200);
  });
});
