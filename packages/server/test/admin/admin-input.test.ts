import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, csrfOf, getPage, postForm, textOf, type PageResult } from '../helpers/pages.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Bad input on every form of the management pages (missing, wrong, oversized and hostile
 * values): the page answers with a clear message where the person looks, never a stack or a
 * 500, and nothing changes.
 */
/** A settings form that saves as it is; each test changes what it checks. */
const VALID_SETTINGS = {
  identityPolicy: 'either',
  signupDirect: 'off',
  signupOptin: 'off',
  signupReview: 'on',
  signupSendpw: 'off',
  signupUid: 'off',
  mailFrom: 'Roost <roost@localhost>',
};

describe('admin pages: bad input is said on the page and changes nothing', () => {
  let s: TestServer;
  let adminToken: string;
  let admin: string;
  let csrf: string;
  const ids: Record<string, string> = {};
  const long = (n: number) => 'x'.repeat(n);

  const post = (path: string, fields: Record<string, string | Blob>, options: { urlencoded?: boolean } = {}) =>
    postForm(s, path, { csrf, ...fields }, { cookie: admin, headers: { origin: s.url }, ...options });

  /** A refused form: its status, the message on the page, and no raw error. */
  function refused(page: PageResult, status: number, message: RegExp, what: string) {
    assert.equal(page.status, status, `${what}: ${textOf(page.html).slice(0, 400)}`);
    assert.match(textOf(page.html), message, what);
    assert.doesNotMatch(page.html, /ZodError|stack|at \w+ \(/, `${what}: no internals`);
  }

  async function state() {
    const bob = await s.users('getUser', { identity: 'bob' }, { token: adminToken });
    const me = await s.users('getUser', { identity: 'admin' }, { token: adminToken });
    const carol = await s.users('getUser', { identity: 'carol' }, { token: adminToken });
    const perms = await Promise.all(
      ['/users/api/getPermissions', '/data/api/getPermissions'].map((p) => s.request(p, {}, { token: adminToken })),
    );
    return {
      bob: [bob.body.realname, bob.body.email, bob.body.groups, bob.body.state],
      me: [me.body.groups, me.body.state],
      carol: carol.body.state,
      settings: await s.roost.settings.current(),
      permissions: perms.map((p) => p.body.permissions),
      mails: (await s.outbox()).length,
    };
  }

  before(async () => {
    // `notes`: the import page, the one form here that takes a file.
    s = await startServer({
      collections: { notes: { schema: { type: 'object', properties: { title: { type: 'string' } } } } },
    });
    adminToken = await s.adminToken();
    await s.createUser('bob');
    await s.createUser('dora');
    await s.grant('signupReview', ['sys:everyone']);
    await s.users('signupReview', { name: 'carol', email: 'carol@example.com', password: PASSWORD });
    for (const name of ['bob', 'carol', 'admin'])
      ids[name] = (await s.users('getUser', { identity: name }, { token: adminToken })).body.id;
    admin = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin', admin)).html);
  });
  after(() => s?.close());

  test('sign-in: missing, oversized and NUL values', async () => {
    const signin = (fields: Record<string, string>) =>
      postForm(s, '/admin/signin', { ...fields, signin$: 'signin$' }, { headers: { origin: s.url } });
    refused(await signin({ password: PASSWORD }), 422, /Name or email: Required/, 'no identity');
    refused(await signin({ identity: 'admin' }), 422, /Password: Required/, 'no password');
    refused(
      await signin({ identity: long(300), password: PASSWORD }),
      422,
      /Name or email: .*(long|characters)/i,
      'identity too long',
    );
    refused(
      await signin({ identity: 'admin', password: long(300) }),
      422,
      /Password: .*(long|characters)/i,
      'password too long',
    );
    refused(await signin({ identity: 'adm\u0000in', password: PASSWORD }), 400, /NUL character/, 'NUL');
  });

  test('user edit: wrong email, taken email, oversized and hostile values, locking oneself out', async () => {
    const before = await state();
    const edit = (id: string, fields: Record<string, string>) =>
      post(`/admin/users/${id}`, {
        realname: '',
        email: 'bob@example.com',
        groups: '',
        active: 'true',
        edit$: 'edit$',
        ...fields,
      });
    refused(await edit(ids.bob!, { email: 'not-an-email' }), 422, /Email: /, 'invalid email');
    refused(await edit(ids.bob!, { email: '' }), 422, /Email: Required/, 'removed email');
    refused(await edit(ids.bob!, { email: 'dora@example.com' }), 422, /Another account has this email/, 'taken email');
    refused(
      await edit(ids.bob!, { email: 'DORA@example.com' }),
      422,
      /Another account has this email/,
      'taken email, other case',
    );
    refused(await edit(ids.bob!, { realname: long(256) }), 422, /Real name: /, 'realname too long');
    refused(await edit(ids.bob!, { groups: 'sys:everyone' }), 422, /not a group name/, 'pseudo-group');
    const hostile = await edit(ids.bob!, { groups: '<script>alert(1)</script>' });
    refused(hostile, 422, /not a group name/, 'hostile group');
    assert.doesNotMatch(hostile.html, /<script>alert/, 'escaped');
    refused(
      await edit(ids.bob!, { groups: Array.from({ length: 101 }, (_, i) => `g${i}`).join('\n') }),
      422,
      /At most 100 groups/,
      'too many groups',
    );
    refused(await edit(ids.bob!, { active: 'maybe' }), 422, /Active: /, 'not a boolean');
    refused(
      await edit(ids.admin!, { email: 'admin@example.com', groups: 'editors' }),
      422,
      /cannot take yourself out of admins/,
      'own admin group',
    );
    refused(
      await edit(ids.admin!, { email: 'admin@example.com', groups: 'admins', active: 'false' }),
      422,
      /cannot disable your own account/,
      'disable oneself',
    );
    refused(await getPage(s, '/admin/users/no-such-user', admin), 404, /no such user/, 'unknown user');
    refused(await getPage(s, '/admin/users/..%2F..%2Fetc', admin), 404, /no such user/, 'path in the id');
    assert.deepEqual(await state(), before);
  });

  test('user removal: a form for another account, oneself, an unknown account', async () => {
    const before = await state();
    refused(
      await post(`/admin/users/${ids.bob}/remove`, { confirm: ids.carol!, remove$: 'remove$' }),
      422,
      /The form was for another account/,
      'other id',
    );
    refused(await post(`/admin/users/${ids.bob}/remove`, { remove$: 'remove$' }), 422, /Required/, 'no confirmation');
    refused(
      await post(`/admin/users/${ids.admin}/remove`, { confirm: ids.admin!, remove$: 'remove$' }),
      422,
      /cannot remove your own account/,
      'oneself',
    );
    refused(
      await post('/admin/users/nobody/remove', { confirm: 'nobody', remove$: 'remove$' }),
      404,
      /no such user/,
      'unknown',
    );
    assert.deepEqual(await state(), before);
  });

  test('sign-up review: unknown and missing decisions; an account that is not pending', async () => {
    const before = await state();
    refused(
      await post(`/admin/signups/${ids.carol}`, { action: 'nuke', submit$: 'submit$' }),
      422,
      /Decision: /,
      'unknown decision',
    );
    refused(
      await post(`/admin/signups/${ids.carol}`, { action: '', submit$: 'submit$' }),
      422,
      /Decision: Required/,
      'no decision',
    );
    const two = await fetch(`${s.url}/admin/signups/${ids.carol}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: admin, origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([
        ['csrf', csrf],
        ['action', 'accept'],
        ['action', 'reject'],
        ['submit$', '1'],
      ]),
    });
    refused(
      { status: two.status, html: await two.text(), headers: two.headers, location: null },
      422,
      /Decision: /,
      'two decisions',
    );
    const notPending = await post(`/admin/signups/${ids.bob}`, { action: 'reject', submit$: 'submit$' });
    assert.equal(notPending.status, 303);
    // The message is flashed to the next page (a signed cookie of this session).
    const flashed = notPending.headers.get('set-cookie')?.match(/roost_flash=[^;]+/)?.[0];
    assert.ok(flashed);
    assert.match(
      textOf((await getPage(s, notPending.location!, `${admin}; ${flashed}`)).html),
      /bob is not waiting for a review/,
    );
    refused(await getPage(s, '/admin/signups/nobody', admin), 404, /no such user/, 'unknown');
    // The rejection's confirmation: it names the account it was loaded for.
    refused(
      await post(`/admin/signups/${ids.carol}/reject`, { reject$: 'reject$' }),
      422,
      /Required/,
      'rejection without the confirmation',
    );
    refused(
      await post(`/admin/signups/${ids.carol}/reject`, { confirm: ids.bob!, reject$: 'reject$' }),
      422,
      /The form was for another account/,
      'rejection confirmed for another account',
    );
    refused(
      await post('/admin/signups/nobody/reject', { confirm: 'nobody', reject$: 'reject$' }),
      404,
      /no such user/,
      'rejection of an unknown account',
    );
    const rejectActive = await post(`/admin/signups/${ids.bob}/reject`, { confirm: ids.bob!, reject$: 'reject$' });
    assert.deepEqual(
      [rejectActive.status, rejectActive.location],
      [303, '/admin/signups'],
      'an active account is not rejected',
    );
    refused(await getPage(s, '/admin/signups?start=0', admin), 422, /Start must be/, 'bad start');
    assert.deepEqual(await state(), before);
  });

  test('settings: hostile urls, bad sender, address, SMTP url, unknown choices, oversized, test mail', async () => {
    const before = await state();
    const save = (fields: Record<string, string>) =>
      post('/admin/settings', { ...VALID_SETTINGS, ...fields, save$: 'save$' });
    refused(
      await save({ activationUrl: 'javascript:alert(1)' }),
      422,
      /Activation page: Enter an http/,
      'javascript url',
    );
    refused(
      await save({ verifyEmailUrl: 'ftp://example.com/verify' }),
      422,
      /Email verification page: Enter an http/,
      'ftp url',
    );
    refused(
      await save({ resetPasswordUrl: `https://example.com/${long(2100)}` }),
      422,
      /Password reset page: /,
      'url too long',
    );
    refused(await save({ mailFrom: '' }), 422, /Mail sender: Required/, 'no sender');
    refused(await save({ mailFrom: long(301) }), 422, /Mail sender: /, 'sender too long');
    refused(await save({ adminAddress: 'root' }), 422, /Administrator address: Enter an email address/, 'bad address');
    refused(await save({ smtpUrl: 'http://mail.example.com' }), 422, /SMTP server: Enter an smtp/, 'not smtp');
    refused(await save({ identityPolicy: 'root' }), 422, /Users sign in with: /, 'unknown policy');
    refused(await save({ signupDirect: 'maybe' }), 422, /Direct sign-up: /, 'unknown choice');
    refused(await save({ signupUid: '' }), 422, /Sign-up with generated name: Required/, 'no choice');
    refused(
      await save({ secondFactorGroups: Array.from({ length: 51 }, (_, i) => `g${i}`).join(',') }),
      422,
      /Groups that sign in with a second factor: Enter group names/,
      'too many groups',
    );
    refused(await save({ secondFactorGroups: `admins, ${long(101)}` }), 422, /second factor: /, 'group name too long');
    refused(
      await post('/admin/settings', { testMailTo: 'nobody', test$: 'test$' }),
      422,
      /Send a test mail to: Enter an email address/,
      'bad test address',
    );
    refused(
      await post('/admin/settings', { testMailTo: '', test$: 'test$' }),
      422,
      /no administrator address is set/,
      'no test address',
    );
    assert.deepEqual(await state(), before);
  });

  test('settings: second-factor groups and sign-in by mail are saved from the page and apply at once', async () => {
    const fields = { ...VALID_SETTINGS, save$: 'save$' };
    const saved = await post('/admin/settings', { ...fields, secondFactorGroups: ' reviewers ,  ops,' });
    assert.equal(saved.status, 303, textOf(saved.html).slice(0, 400));
    assert.deepEqual((await s.roost.settings.current()).secondFactorGroups, ['reviewers', 'ops']);
    await post('/admin/settings', { ...fields, secondFactorGroups: '' });
    assert.deepEqual((await s.roost.settings.current()).secondFactorGroups, []);
    // Sign-in by mail is a switch of its permission; a form without the choice leaves it.
    const entry = async () =>
      (await s.users('getPermissions', {}, { token: adminToken })).body.permissions.find(
        (p: { permission: string }) => p.permission === 'signinMail',
      ).groups;
    await post('/admin/settings', { ...fields, signinMail: 'on' });
    assert.deepEqual(await entry(), ['sys:everyone']);
    await post('/admin/settings', fields);
    assert.deepEqual(await entry(), ['sys:everyone']);
    await post('/admin/settings', { ...fields, signinMail: 'off' });
    assert.deepEqual(await entry(), ['sys:noone']);
  });

  test('permissions: unknown permission and service, bad groups, out-of-range positions', async () => {
    const before = await state();
    const entry = (fields: Record<string, string>) => post('/admin/permissions/users', { edit$: 'edit$', ...fields });
    refused(await entry({ permission: 'rootShell', groups: 'admins' }), 422, /Permission: /, 'unknown permission');
    refused(await entry({ permission: 'ping', groups: '' }), 422, /Groups: Required/, 'no groups');
    refused(await entry({ permission: 'ping', groups: 'sys:root' }), 422, /is not a group/, 'unknown pseudo-group');
    const hostile = await entry({ permission: 'ping', groups: '<img src=x onerror=alert(1)>' });
    refused(hostile, 422, /is not a group/, 'hostile group');
    assert.doesNotMatch(hostile.html, /<img src=x/);
    refused(
      await entry({ permission: 'ping', groups: 'admins' }),
      422,
      /This permission has an entry already/,
      'a second entry of one permission',
    );
    refused(
      await entry({ permission: 'ping', groups: 'admins', cc397785: '999' }),
      422,
      /There is no such entry/,
      'edit out of range',
    );
    refused(
      await post('/admin/permissions/users', { aa876352: '999' }),
      422,
      /There is no such entry/,
      'delete out of range',
    );
    refused(
      await post('/admin/permissions/data', { aa876352: '-1' }),
      200,
      /Permission/,
      'a malformed position deletes nothing',
    );
    // A confirmation that names another permission than the one at the position asks again.
    const moved = await post('/admin/permissions/data', { aa876352: '1', confirm: 'not-this-one' });
    assert.equal(moved.status, 200);
    assert.match(textOf(moved.html), /Delete the entry/);
    refused(await getPage(s, '/admin/permissions/nope', admin), 404, /no service of that name/, 'unknown service');
    assert.deepEqual(await state(), before);
  });

  test('tools, lists and the outbox: unknown choices, oversized values, bad pages, paths', async () => {
    const before = await state();
    refused(
      await post('/admin/tools', { state: 'everything', export$: 'export$' }),
      422,
      /Accounts: /,
      'unknown state',
    );
    refused(
      await post('/admin/tools', { state: 'all', group: long(101), export$: 'export$' }),
      422,
      /Only the group: /,
      'group too long',
    );
    refused(await getPage(s, `/admin/users?search=${long(300)}&search$=1`, admin), 422, /Search: /, 'search too long');
    refused(await getPage(s, '/admin/users?start=0', admin), 422, /Start must be 1 or more/, 'start 0');
    refused(await getPage(s, '/admin/users?start=abc', admin), 422, /Start: /, 'start not a number');
    refused(await getPage(s, '/admin/users?state=root', admin), 422, /State: /, 'unknown state');
    refused(await getPage(s, '/admin/outbox?start=x', admin), 422, /Start must be/, 'outbox start');
    for (const id of ['..%2F..%2Fetc%2Fpasswd', '%2e%2e%2Fsecret', 'x'.repeat(90)])
      refused(await getPage(s, `/admin/outbox/${id}`, admin), 404, /no such mail/, `mail ${id}`);
    assert.deepEqual(await state(), before);
  });

  test('bodies: a file part, a body over the limit, NUL characters, a foreign content type, a cut form', async () => {
    const before = await state();
    refused(
      await post(`/admin/users/${ids.bob}`, { realname: 'x', file: new Blob(['evil']), edit$: 'edit$' }),
      400,
      /takes no file/,
      'file part',
    );
    refused(
      await post(`/admin/users/${ids.bob}`, { realname: long(2 * 1024 * 1024), edit$: 'edit$' }),
      413,
      /longer than 1048576 bytes/,
      'huge field',
    );
    refused(
      await post(`/admin/users/${ids.bob}`, { realname: long(2 * 1024 * 1024), edit$: 'edit$' }, { urlencoded: true }),
      413,
      /too large/,
      'huge urlencoded body',
    );
    refused(
      await post(`/admin/users/${ids.bob}`, { realname: 'a\u0000b', email: 'bob@example.com', edit$: 'edit$' }),
      400,
      /NUL character/,
      'NUL',
    );
    const xml = await fetch(`${s.url}/admin/users/${ids.bob}`, {
      method: 'POST',
      headers: { cookie: admin, origin: s.url, 'content-type': 'application/xml' },
      body: '<x/>',
    });
    refused(
      { status: xml.status, html: await xml.text(), headers: xml.headers, location: null },
      415,
      /form fields/,
      'xml',
    );
    // A multipart form cut short (the body ends before its closing delimiter), in a field or in a
    // file part (the import page's): 400, said on the page.
    const field = (name: string, value: string) =>
      `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}`;
    const file = '--b\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\n\r\ntitle\r\nhalf';
    const cuts: Array<[string, string]> = [
      [`/admin/users/${ids.bob}`, field('csrf', csrf).slice(0, -5)],
      [`/admin/users/${ids.bob}`, `${field('csrf', csrf)}\r\n${field('realname', 'x')}\r\n--b`],
      ['/admin/collections/notes/import', `${field('csrf', csrf)}\r\n${file}`],
    ];
    for (const [path, body] of cuts) {
      const cut = await fetch(s.url + path, {
        method: 'POST',
        headers: { cookie: admin, origin: s.url, 'content-type': 'multipart/form-data; boundary=b' },
        body,
      });
      const page = { status: cut.status, html: await cut.text(), headers: cut.headers, location: null };
      refused(page, 400, /malformed \(no boundary, or cut short\)/, `${path} cut after ${body.slice(-12)}`);
    }
    assert.deepEqual(await state(), before);
    const records = await s.request('/api/collections/notes/records?total=1', undefined, {
      token: adminToken,
      method: 'GET',
    });
    assert.equal(records.body.total, 0, JSON.stringify(records.body));
  });

  test('parallel administrators: one account per name, one rejection, one deletion; the others told why', async () => {
    // Eight creations of one name at once: one account, the others hear the name is taken.
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post('/admin/users/new', {
          name: 'twin',
          email: `twin${i}@example.com`,
          password: 'twin-password-1',
          'password-confirm': 'twin-password-1',
          create$: 'create$',
        }),
      ),
    );
    assert.equal(
      created.filter((r) => r.status === 302 || r.status === 303).length,
      1,
      created.map((r) => r.status).join(','),
    );
    for (const r of created.filter((x) => x.status !== 302 && x.status !== 303))
      refused(r, 422, /taken/, 'the same name at once');
    assert.equal((await s.users('list', { name: 'twin' }, { token: adminToken })).body.total, 1);

    // Six rejections of one sign-up at once: it is removed once; the rest hear it is not waiting.
    await s.users('signupReview', { name: 'pat', email: 'pat@example.com', password: PASSWORD });
    const pat = (await s.users('getUser', { identity: 'pat' }, { token: adminToken })).body.id as string;
    const rejected = await Promise.all(
      Array.from({ length: 6 }, () => post(`/admin/signups/${pat}/reject`, { confirm: pat, reject$: 'reject$' })),
    );
    for (const r of rejected)
      assert.ok([303, 404, 422].includes(r.status), `${r.status}: ${textOf(r.html).slice(0, 200)}`);
    assert.ok(rejected.some((r) => r.status === 303 && r.location === '/admin/signups'));
    assert.equal((await s.users('getUser', { identity: 'pat' }, { token: adminToken })).status, 404);

    // Five confirmed deletions of one permission entry at once: deleted, nothing else touched.
    const entries = async () =>
      (await s.request('/data/api/getPermissions', {}, { token: adminToken })).body.permissions as {
        permission: string;
        groups: string[];
      }[];
    const before = await entries();
    const first = before.find((e) => e.groups.length > 0)!;
    const deleted = await Promise.all(
      Array.from({ length: 5 }, () => post('/admin/permissions/data', { aa876352: '1', confirm: first.permission })),
    );
    for (const r of deleted) assert.ok([200, 303].includes(r.status), `${r.status}: ${textOf(r.html).slice(0, 200)}`);
    const after = await entries();
    assert.deepEqual(after.find((e) => e.permission === first.permission)!.groups, []);
    assert.deepEqual(
      after.filter((e) => e.permission !== first.permission),
      before.filter((e) => e.permission !== first.permission),
    );
    await s.request(
      '/data/api/setPermissions',
      { permissions: [{ permission: first.permission, groups: first.groups, action: 'replace' }] },
      { token: adminToken },
    );
  });
});
