import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, CROSS_SITE, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { programCaller } from '../../src/users/index.js';

/** Webhooks are managed by administrators (core/grants.ts `backendGrants`): the tests call as one. */
const ADMIN = programCaller('test').principal;

/**
 * Nobody but an administrator gets a management page or runs one of its actions: not
 * anonymous, not a signed-in ordinary user (with or without a CSRF token of its own), and no
 * form without the session's CSRF token or sent from another site. Every refused post is
 * checked to have changed nothing.
 */
describe('admin pages: only administrators, only from this site, only with the CSRF token', () => {
  let s: TestServer;
  let adminToken: string;
  let admin: string;
  let alice: string;
  let adminCsrf: string;
  let aliceCsrf: string;
  const ids: Record<string, string> = {};

  const PAGES = [
    '/admin',
    '/admin/users',
    '/admin/users/new',
    '/admin/users/BOB',
    '/admin/users/BOB/remove',
    '/admin/users/BOB/password',
    '/admin/users/BOB/reset',
    '/admin/signups',
    '/admin/signups/CAROL',
    '/admin/signups/CAROL/reject',
    '/admin/settings',
    '/admin/permissions',
    '/admin/permissions/users',
    '/admin/permissions/data',
    '/admin/permissions/files',
    '/admin/outbox',
    '/admin/outbox/MAIL',
    '/admin/jobs',
    '/admin/logs',
    '/admin/tools',
  ];
  /** Every action of the pages, as its form posts it. */
  const ACTIONS: Array<[string, string, Record<string, string>]> = [
    [
      'edit a user',
      '/admin/users/BOB',
      { realname: 'Hacked', email: 'bob@example.com', groups: 'admins', active: 'true', edit$: 'edit$' },
    ],
    ['disable a user', '/admin/users/BOB', { realname: '', email: 'bob@example.com', groups: '', edit$: 'edit$' }],
    ['remove a user', '/admin/users/BOB/remove', { confirm: 'BOB', remove$: 'remove$' }],
    [
      'create a user',
      '/admin/users/new',
      {
        name: 'mallory',
        email: 'mallory@example.com',
        password: 'mallory-password-1',
        'password-confirm': 'mallory-password-1',
        groups: 'admins',
        create$: 'create$',
      },
    ],
    [
      'set a password',
      '/admin/users/BOB/password',
      { password: 'hijacked-password-1', 'password-confirm': 'hijacked-password-1', set$: 'set$' },
    ],
    ['send a reset mail', '/admin/users/BOB/reset', { confirm: 'BOB', send$: 'send$' }],
    ['review a sign-up', '/admin/signups/CAROL', { action: 'accept', submit$: 'submit$' }],
    ['reject a sign-up', '/admin/signups/CAROL/reject', { confirm: 'CAROL', reject$: 'reject$' }],
    [
      'save settings',
      '/admin/settings',
      {
        identityPolicy: 'email',
        signupDirect: 'on',
        signupOptin: 'on',
        signupReview: 'on',
        signupSendpw: 'on',
        signupUid: 'on',
        mailFrom: 'Evil <evil@example.com>',
        save$: 'save$',
      },
    ],
    ['send a test mail', '/admin/settings', { testMailTo: 'someone@example.com', test$: 'test$' }],
    ['reset settings', '/admin/settings', { reset$: 'reset$' }],
    [
      'change a permission',
      '/admin/permissions/users',
      { permission: 'ping', groups: 'sys:noone', cc397785: '1', edit$: 'edit$' },
    ],
    ['delete a permission', '/admin/permissions/data', { aa876352: '1' }],
    ['delete a permission, confirmed', '/admin/permissions/data', { aa876352: '1', confirm: 'PERMISSION' }],
    ['export users', '/admin/tools', { state: 'all', export$: 'export$' }],
    ['purge expired', '/admin/tools', { purge$: 'purge$' }],
    ['add a webhook', '/admin/webhooks', { url: 'http://127.0.0.1:1/x', service: 'data', add$: 'add$' }],
  ];
  const at = (path: string) => path.replace('BOB', ids.bob!).replace('CAROL', ids.carol!).replace('MAIL', ids.mail!);
  const fields = (values: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(values).map(([k, v]) => [
        k,
        v === 'BOB' ? ids.bob! : v === 'CAROL' ? ids.carol! : v === 'PERMISSION' ? ids.permission! : v,
      ]),
    );

  /** What every refused action must leave as it was. */
  async function state() {
    const bob = await s.users('getUser', { identity: 'bob' }, { token: adminToken });
    const carol = await s.users('getUser', { identity: 'carol' }, { token: adminToken });
    const perms = await Promise.all(
      ['/users/api/getPermissions', '/data/api/getPermissions', '/files/api/getPermissions'].map((p) =>
        s.request(p, {}, { token: adminToken }),
      ),
    );
    return {
      bob: [bob.body.realname, bob.body.groups, bob.body.active],
      carol: carol.body.state,
      settings: await s.roost.settings.current(),
      overrides: Object.keys(await s.roost.settings.overrides()),
      permissions: perms.map((p) => p.body.permissions),
      mails: (await s.outbox()).length,
      webhooks: (await s.roost.webhooks.list(ADMIN)).length,
    };
  }

  before(async () => {
    s = await startServer();
    adminToken = await s.adminToken();
    await s.createUser('alice');
    await s.createUser('bob');
    await s.grant('signupReview', ['sys:everyone']);
    await s.users('signupReview', { name: 'carol', email: 'carol@example.com', password: PASSWORD });
    ids.bob = (await s.users('getUser', { identity: 'bob' }, { token: adminToken })).body.id;
    ids.carol = (await s.users('getUser', { identity: 'carol' }, { token: adminToken })).body.id;
    await s.users('resetPassword', { identity: 'bob' });
    ids.mail = (await s.lastMail('bob@example.com')).id;
    // The entry a delete button of /admin/permissions/data at position 1 names.
    const dataPermissions = (await s.request('/data/api/getPermissions', {}, { token: adminToken })).body
      .permissions as { permission: string; groups: string[] }[];
    ids.permission = dataPermissions.find((e) => e.groups.length > 0)!.permission;
    admin = await authCookie(s, 'admin');
    alice = await authCookie(s, 'alice');
    adminCsrf = csrfOf((await getPage(s, '/admin', admin)).html);
    // An ordinary user has a CSRF token too, on the user sign-in page: it opens no admin form.
    aliceCsrf = csrfOf((await getPage(s, '/users/signin', alice)).html);
  });
  after(() => s?.close());

  test('an administrator gets every page', async () => {
    for (const path of PAGES) {
      const page = await getPage(s, at(path), admin);
      assert.equal(page.status, 200, `${path}: ${textOf(page.html).slice(0, 300)}`);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
    }
  });

  test('anonymous callers are sent to the sign-in page; ordinary users get 403; neither sees a page', async () => {
    for (const path of PAGES) {
      const anonymous = await getPage(s, at(path));
      assert.equal(anonymous.status, 303, path);
      assert.equal(anonymous.location, `/admin/signin?next=${encodeURIComponent(at(path))}`);
      const user = await getPage(s, at(path), alice);
      assert.equal(user.status, 403, path);
      assert.match(textOf(user.html), /for administrators/);
      assert.doesNotMatch(user.html, /bob@example\.com|name="csrf"/);
    }
  });

  test('no action runs for anonymous callers, users, without or with a wrong token, or from another site', async () => {
    const before = await state();
    for (const [name, path, values] of ACTIONS) {
      const body = fields(values);
      const anonymous = await postForm(s, at(path), body);
      assert.equal(anonymous.status, 303, `${name} anonymous`);
      const anonymousWithToken = await postForm(s, at(path), { ...body, csrf: adminCsrf });
      assert.equal(anonymousWithToken.status, 303, `${name} anonymous with a token`);
      for (const csrf of [undefined, aliceCsrf, adminCsrf]) {
        const user = await postForm(s, at(path), { ...body, ...(csrf ? { csrf } : {}) }, { cookie: alice });
        assert.equal(
          user.status,
          403,
          `${name} by alice, token ${csrf === undefined ? 'none' : csrf === aliceCsrf ? 'hers' : "the admin's"}`,
        );
        assert.doesNotMatch(user.html, /^id,name/m);
      }
      const noToken = await postForm(s, at(path), body, { cookie: admin });
      assert.equal(noToken.status, 403, `${name} without a token`);
      assert.match(textOf(noToken.html), /out of date or was sent from another site/);
      const wrongToken = await postForm(s, at(path), { ...body, csrf: aliceCsrf }, { cookie: admin });
      assert.equal(wrongToken.status, 403, `${name} with another session's token`);
      const crossSite = await postForm(
        s,
        at(path),
        { ...body, csrf: adminCsrf },
        { cookie: admin, headers: CROSS_SITE },
      );
      assert.equal(crossSite.status, 403, `${name} from another site`);
      const urlencodedCrossSite = await postForm(
        s,
        at(path),
        { ...body, csrf: adminCsrf },
        { cookie: admin, headers: { origin: 'https://evil.example' }, urlencoded: true },
      );
      assert.equal(urlencodedCrossSite.status, 403, `${name} urlencoded from another origin`);
    }
    assert.deepEqual(await state(), before);
  });

  test('messages flashed to the next page come only from this session: a planted cookie shows nothing', async () => {
    const lure = ['Your session expired: sign in at https://evil.example'];
    const planted = `roost_flash=${Buffer.from(JSON.stringify(lure)).toString('base64url')}.forged`;
    assert.doesNotMatch(textOf((await getPage(s, '/admin', `${admin}; ${planted}`)).html), /evil\.example/);
    const unsigned = `roost_flash=${Buffer.from(JSON.stringify(['Go to https://evil.example'])).toString('base64url')}`;
    assert.doesNotMatch(textOf((await getPage(s, '/admin', `${admin}; ${unsigned}`)).html), /evil\.example/);
  });

  test('the same forms with the token, from this site, work for the administrator (refusals were real)', async () => {
    const post = (path: string, values: Record<string, string>) =>
      postForm(s, at(path), { ...fields(values), csrf: adminCsrf }, { cookie: admin, headers: { origin: s.url } });
    const exported = await post('/admin/tools', { state: 'all', export$: 'export$' });
    assert.equal(exported.status, 200);
    assert.match(exported.html, /^id,name,email/);
    const edited = await post('/admin/users/BOB', {
      realname: 'Bob B',
      email: 'bob@example.com',
      groups: 'editors',
      active: 'true',
      edit$: 'edit$',
    });
    assert.equal(edited.status, 302);
    assert.equal((await s.users('getUser', { identity: 'bob' }, { token: adminToken })).body.realname, 'Bob B');
    // A delete button asks first; the confirmation's post deletes.
    const groupsOf = async () =>
      (
        (await s.request('/data/api/getPermissions', {}, { token: adminToken })).body.permissions as {
          permission: string;
          groups: string[];
        }[]
      ).find((e) => e.permission === ids.permission)!.groups;
    const held = await groupsOf();
    const asked = await post('/admin/permissions/data', { aa876352: '1' });
    assert.equal(asked.status, 200);
    assert.match(textOf(asked.html), new RegExp(`Delete the entry ${ids.permission}`));
    assert.deepEqual(await groupsOf(), held);
    const deleted = await post('/admin/permissions/data', { aa876352: '1', confirm: 'PERMISSION' });
    assert.equal(deleted.status, 303);
    assert.deepEqual(await groupsOf(), []);
    await s.request(
      '/data/api/setPermissions',
      { permissions: [{ permission: ids.permission, groups: held, action: 'replace' }] },
      { token: adminToken },
    );
    // Rejecting a sign-up asks first too (/admin/signups/<id>/reject), then removes the account.
    const decided = await post('/admin/signups/CAROL', { action: 'reject', submit$: 'submit$' });
    assert.deepEqual([decided.status, decided.location], [303, at('/admin/signups/CAROL/reject')]);
    assert.equal((await s.users('getUser', { identity: 'carol' }, { token: adminToken })).status, 200);
    const rejected = await post('/admin/signups/CAROL/reject', { confirm: 'CAROL', reject$: 'reject$' });
    assert.deepEqual([rejected.status, rejected.location], [303, '/admin/signups']);
    assert.equal((await s.users('getUser', { identity: 'carol' }, { token: adminToken })).status, 404);
  });

  describe('sign-in and sign-out', () => {
    const signin = (path: string, values: Record<string, string>, headers: Record<string, string> = {}) =>
      postForm(s, path, { ...values, signin$: 'signin$' }, { headers: { origin: s.url, ...headers } });
    const cookieOf = (res: { headers: Headers }) => res.headers.get('set-cookie')?.match(/auth=([^;]*)/)?.[1];
    const sessionsOf = async (name: string) => {
      const user = await s.roost.users.findUser(name);
      const rows = await s.roost.db
        .selectFrom('sessions')
        .select('token_hash')
        .where('user_id', '=', user!.id)
        .execute();
      return rows.length;
    };

    test('an administrator signs in at /admin/signin and lands on `next` when it is a local admin page', async () => {
      const plain = await signin('/admin/signin', { identity: 'admin', password: PASSWORD });
      assert.equal(plain.status, 303);
      assert.equal(plain.location, '/admin');
      assert.ok(cookieOf(plain));
      assert.match(plain.headers.get('set-cookie') ?? '', /HttpOnly/i);
      const next = await signin('/admin/signin', {
        identity: 'admin',
        password: PASSWORD,
        next: '/admin/users?search=bob',
      });
      assert.equal(next.location, '/admin/users?search=bob');
      for (const evil of [
        '//evil.example/admin',
        'https://evil.example/admin',
        '/\\evil.example',
        '/users/api/profile',
        'javascript:alert(1)',
      ]) {
        const res = await signin('/admin/signin', { identity: 'admin', password: PASSWORD, next: evil });
        assert.equal(res.location, '/admin', evil);
      }
      const page = await getPage(s, '/admin', `auth=${cookieOf(plain)}`);
      assert.equal(page.status, 200);
    });

    test('an ordinary user who signs in correctly at /admin/signin gets no session and no page', async () => {
      const before = await sessionsOf('alice');
      const res = await signin('/admin/signin', { identity: 'alice', password: PASSWORD });
      assert.equal(res.status, 422);
      assert.equal(cookieOf(res), undefined);
      assert.match(textOf(res.html), /no access to the management backend/);
      assert.equal(await sessionsOf('alice'), before, 'the token issued on the way is revoked');
    });

    test('wrong credentials, a cross-site sign-in (login CSRF), a signed-in user who is no administrator', async () => {
      const wrong = await signin('/admin/signin', { identity: 'admin', password: 'not-the-password' });
      assert.equal(wrong.status, 422);
      assert.equal(cookieOf(wrong), undefined);
      assert.match(textOf(wrong.html), /Wrong identity or password/);
      assert.doesNotMatch(wrong.html, /not-the-password/);
      const crossSite = await signin('/admin/signin', { identity: 'admin', password: PASSWORD }, CROSS_SITE);
      assert.equal(crossSite.status, 403);
      assert.equal(cookieOf(crossSite), undefined);
      const aliceAtAdmin = await getPage(s, '/admin/signin', alice);
      assert.equal(aliceAtAdmin.status, 200);
      assert.match(textOf(aliceAtAdmin.html), /signed in as alice, who is not an administrator/);
    });

    test('users sign in at /users/signin, see who they are, and sign out (the token is revoked)', async () => {
      const res = await signin('/users/signin', { identity: 'bob', password: PASSWORD });
      assert.equal(res.status, 303);
      assert.equal(res.location, '/users/signin');
      const cookie = `auth=${cookieOf(res)}`;
      const page = await getPage(s, '/users/signin', cookie);
      assert.match(textOf(page.html), /You are signed in as bob/);
      const csrf = csrfOf(page.html);
      const withoutToken = await postForm(s, '/users/signout', {}, { cookie, headers: { origin: s.url } });
      assert.equal(withoutToken.status, 403);
      assert.equal(
        (await s.request('/users/api/profile', undefined, { headers: { cookie } })).status,
        200,
        'still signed in',
      );
      const out = await postForm(s, '/users/signout', { csrf }, { cookie, headers: { origin: s.url } });
      assert.equal(out.status, 303);
      assert.equal(out.location, '/users/signin?signedout=1');
      assert.match(out.headers.get('set-cookie') ?? '', /auth=;/);
      assert.equal(
        (await s.request('/users/api/profile', undefined, { headers: { cookie } })).status,
        401,
        'the session is gone',
      );
      assert.match(textOf((await getPage(s, out.location!)).html), /You are signed out/);
    });

    test('the admin header signs out with the CSRF token; without it nothing happens', async () => {
      const cookie = `auth=${cookieOf(await signin('/admin/signin', { identity: 'admin', password: PASSWORD }))}`;
      const csrf = csrfOf((await getPage(s, '/admin', cookie)).html);
      assert.equal((await postForm(s, '/admin/signout', { csrf }, { cookie, headers: CROSS_SITE })).status, 403);
      assert.equal((await getPage(s, '/admin', cookie)).status, 200, 'still signed in');
      const out = await postForm(s, '/admin/signout', { csrf }, { cookie, headers: { origin: s.url } });
      assert.equal(out.location, '/admin/signin?signedout=1');
      assert.equal((await getPage(s, '/admin', cookie)).status, 303, 'signed out');
    });
  });
});
