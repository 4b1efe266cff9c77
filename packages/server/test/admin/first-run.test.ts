import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The first run's setup link (admin/setup-links.ts, admin/pages/setup-page.ts): it makes the
 * first administrator in the browser, once, within its hour, and only while none exists.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: '' };

async function post(s: TestServer, fields: Record<string, string>): Promise<Response> {
  return fetch(`${s.url}/admin/setup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, origin: s.url },
    body: new URLSearchParams({ create$: 'Create', ...fields }),
  });
}

const GOOD = {
  name: 'root',
  email: 'root@example.com',
  password: 'a-long-secret-1',
  'password-confirm': 'a-long-secret-1',
};

describe('the first administrator from the setup link', () => {
  test('with a second factor required of admins, the setup sends to the sign-in, which sets it up', async () => {
    const s = await startServer({ users: { secondFactorGroups: ['admins'] } });
    try {
      const token = s.roost.setupLinks.issue();
      const made = await post(s, { ...GOOD, token });
      assert.equal(made.status, 303, await made.clone().text());
      assert.equal(made.headers.get('location'), '/admin/signin');
      assert.doesNotMatch(made.headers.get('set-cookie') ?? '', /auth=[^;]/, 'no session without the second factor');
      const flashCookie = made.headers.get('set-cookie')?.match(/roost_flash=[^;]+/)?.[0];
      assert.ok(flashCookie);
      const signin = await fetch(`${s.url}/admin/signin`, { headers: { cookie: flashCookie } });
      assert.match(await signin.text(), /The administrator is made\. Sign in to set up its second factor\./);
      const first = await s.users('token', { identity: 'root', password: GOOD.password });
      assert.equal(first.body.code, 'second_factor_required');
      assert.equal(first.body.enrol, true);
    } finally {
      await s.close();
    }
  });

  test('the link shows the form; the post makes and signs in an administrator; the link then dies', async () => {
    const s = await startServer();
    try {
      const token = s.roost.setupLinks.issue();
      const page = await fetch(`${s.url}/admin/setup?token=${token}`);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer', 'the token stays out of Referer headers');
      const html = await page.text();
      for (const field of ['name', 'email', 'password']) assert.match(html, new RegExp(`name="${field}"`));
      assert.match(html, new RegExp(`name="token" value="${token}"`));

      const made = await post(s, { ...GOOD, token });
      assert.equal(made.status, 303, await made.clone().text());
      assert.equal(made.headers.get('location'), '/admin');
      const cookie = made.headers.get('set-cookie')?.match(/auth=([^;]+)/)?.[1];
      assert.ok(cookie, 'signed in');
      const dashboard = await fetch(`${s.url}/admin`, { headers: { cookie: `auth=${cookie}` }, redirect: 'manual' });
      assert.equal(dashboard.status, 200);
      const root = await s.roost.users.findUser('root');
      assert.deepEqual([root?.state, root?.groups], ['active', ['admins']]);
      assert.equal(await s.roost.users.hasAdministrator(), true);

      // Used: the page now only points to the sign-in, for this token and any other.
      const again = await fetch(`${s.url}/admin/setup?token=${token}`);
      assert.equal(again.status, 410);
      assert.match(await again.text(), /\/admin\/signin/);
      assert.equal((await post(s, { ...GOOD, name: 'intruder', email: 'x@example.com', token })).status, 410);
      assert.equal(await s.roost.users.findUser('intruder'), null);
    } finally {
      await s.close();
    }
  });

  test('a wrong, missing, replaced or expired token makes nothing and says what to do', async () => {
    let now = Date.now();
    const s = await startServer({}, { clock: { now: () => now } });
    try {
      const first = s.roost.setupLinks.issue();
      for (const token of ['', 'x'.repeat(32), `${first}x`, '<script>alert(1)</script>', 'ü'.repeat(300)]) {
        const res = await fetch(`${s.url}/admin/setup?token=${encodeURIComponent(token)}`);
        assert.equal(res.status, 403, token);
        const body = await res.text();
        assert.match(body, /not valid/);
        assert.match(body, /roost user add/);
        assert.doesNotMatch(body, /<script>alert/);
        assert.equal((await post(s, { ...GOOD, token })).status, 403);
      }
      // A new link replaces the old one (a restart prints a new one).
      const second = s.roost.setupLinks.issue();
      assert.equal((await fetch(`${s.url}/admin/setup?token=${first}`)).status, 403);
      assert.equal((await fetch(`${s.url}/admin/setup?token=${second}`)).status, 200);
      now += 61 * 60_000;
      assert.equal((await fetch(`${s.url}/admin/setup?token=${second}`)).status, 403, 'expired after an hour');
      assert.equal((await post(s, { ...GOOD, token: second })).status, 403);
      assert.equal(await s.roost.users.hasAdministrator(), false);
    } finally {
      await s.close();
    }
  });

  test('bad input is shown at its fields and keeps the link; another site cannot post it', async () => {
    const s = await startServer();
    try {
      const token = s.roost.setupLinks.issue();
      const bad = await post(s, {
        name: 'r',
        email: 'not-an-email',
        password: 'short',
        'password-confirm': 'short',
        token,
      });
      assert.equal(bad.status, 422);
      const html = await bad.text();
      assert.ok((html.match(/aria-invalid="true"/g) ?? []).length >= 3, 'name, email and password are marked');
      const missing = await post(s, { token });
      assert.equal(missing.status, 422);
      const oversized = await post(s, { ...GOOD, name: 'n'.repeat(5000), token });
      assert.equal(oversized.status, 422);
      assert.equal(await s.roost.users.hasAdministrator(), false);
      const foreign = await fetch(`${s.url}/admin/setup`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        },
        body: new URLSearchParams({ create$: 'Create', ...GOOD, token }),
      });
      assert.equal(foreign.status, 403);
      assert.equal(await s.roost.users.hasAdministrator(), false);
      // The link still works after the refusals.
      assert.equal((await post(s, { ...GOOD, token })).status, 303);
    } finally {
      await s.close();
    }
  });

  test('twelve posts at once make exactly one administrator', async () => {
    const s = await startServer();
    try {
      const token = s.roost.setupLinks.issue();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          post(s, {
            name: `root${i}`,
            email: `root${i}@example.com`,
            password: 'a-long-secret-1',
            'password-confirm': 'a-long-secret-1',
            token,
          }),
        ),
      );
      assert.equal(answers.filter((a) => a.status === 303).length, 1, answers.map((a) => a.status).join(','));
      const admins = (await s.roost.users.listUsers({ start: 1, sort: 'name', order: '<', group: 'admins' }, 100))
        .users;
      assert.equal(admins.length, 1);
    } finally {
      await s.close();
    }
  });

  test('with an administrator there, the page points to the sign-in', async () => {
    const s = await startServer();
    try {
      await s.adminToken();
      const token = s.roost.setupLinks.issue();
      const res = await fetch(`${s.url}/admin/setup?token=${token}`);
      assert.equal(res.status, 410);
    } finally {
      await s.close();
    }
  });
});
