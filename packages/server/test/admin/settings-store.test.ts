import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRoost, type Roost } from '../../src/roost.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The runtime settings over HTTP, on SQLite and on PostgreSQL: the boot configuration is the
 * default, a value saved on the settings page wins at once (no restart), saving the boot value
 * or "Use the boot configuration" gives the key back to the configuration, and a second Roost
 * process on the same database follows within its cache time (a second). Mail settings too: an
 * SMTP server set on the page carries the next mails of both processes, test mail included.
 */
describe('runtime settings: stored over the boot configuration, applied without a restart, shared by processes', () => {
  let s: TestServer;
  let second: Roost;
  let secondUrl: string;
  let smtp: TestSmtpServer;
  let smtpPort: number;
  let admin: string;
  let csrf: string;
  const BOOT_ACTIVATION = 'https://boot.example/activate';

  const allSettings = {
    identityPolicy: 'name',
    signupDirect: 'off',
    signupOptin: 'off',
    signupReview: 'off',
    signupSendpw: 'off',
    signupUid: 'off',
    mailFrom: 'Boot <boot@example.com>',
    activationUrl: BOOT_ACTIVATION,
  };
  const save = (fields: Record<string, string>) =>
    postForm(
      s,
      '/admin/settings',
      { ...allSettings, ...fields, csrf, save$: 'save$' },
      { cookie: admin, headers: { origin: s.url } },
    );
  const token = (url: string, identity: string) =>
    fetch(`${url}/users/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity, password: PASSWORD }),
    });

  /** Polls until `check` holds (a process's cache lets a change through within a second). */
  async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
    const until = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > until) assert.fail(`${what} did not happen`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  before(async () => {
    // Plain SMTP on loopback with a login: the password Roost sends must be the stored one.
    smtp = await startSmtpServer({ login: { user: 'roost', password: 's3cret-pw' } });
    smtpPort = smtp.port;
    s = await startServer({
      users: { identityPolicy: 'name', activationUrl: BOOT_ACTIVATION },
      mail: { from: 'Boot <boot@example.com>' },
    });
    await s.adminToken();
    await s.createUser('bob');
    // A second process: the same configuration, so the same database (SQLite file or PostgreSQL).
    second = await createRoost(s.roost.config);
    secondUrl = await second.listen({ port: 0, host: '127.0.0.1' });
    admin = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin/settings', admin)).html);
  });
  after(async () => {
    await second?.close();
    await s?.close();
    await smtp?.close();
  });

  test('the page shows the boot values; a saved value wins here at once, in the other within a second', async () => {
    const page = textOf((await getPage(s, '/admin/settings', admin)).html);
    assert.match(page, /Boot configuration: name\. Not changed here\./);
    assert.match(page, new RegExp(`Boot configuration: ${BOOT_ACTIVATION}`));
    assert.equal((await token(s.url, 'bob')).status, 200);
    assert.equal((await token(s.url, 'bob@example.com')).status, 401);

    const saved = await save({
      identityPolicy: 'email',
      signupOptin: 'on',
      activationUrl: 'https://app.example/activate',
    });
    assert.equal(saved.status, 303, textOf(saved.html));
    assert.equal((await token(s.url, 'bob@example.com')).status, 200, 'the email signs in at once');
    assert.equal((await token(s.url, 'bob')).status, 401, 'the name no longer does');
    await eventually(
      async () => (await token(secondUrl, 'bob@example.com')).status === 200,
      'the second process signing in by email',
    );
    assert.equal((await token(secondUrl, 'bob')).status, 401);

    // The sign-up policy is the permission entry, seen by the API of both processes.
    const optin = await fetch(`${secondUrl}/users/api/signupOptin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'olga', email: 'olga@example.com', password: PASSWORD }),
    });
    assert.deepEqual(await optin.json(), { result: true });
    const mail = await s.lastMail('olga@example.com');
    assert.ok(mail.text.includes('https://app.example/activate?token='), 'the mail links to the page set here');
    assert.equal(mail.from, 'Boot <boot@example.com>');

    const stored = await s.roost.db.selectFrom('settings').select(['key', 'changed_by']).orderBy('key').execute();
    assert.deepEqual(
      stored.map((r) => [r.key, r.changed_by]),
      [
        ['users.activationUrl', 'admin'],
        ['users.identityPolicy', 'admin'],
      ],
    );
    assert.match(
      textOf((await getPage(s, '/admin/settings', admin)).html),
      /Boot configuration: name\. Set here \d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d UTC by admin\./,
    );
  });

  test('saving the boot value hands the key back to the configuration; "Use the boot configuration" all', async () => {
    assert.equal(
      (await save({ identityPolicy: 'name', signupOptin: 'on', activationUrl: 'https://app.example/activate' })).status,
      303,
    );
    assert.deepEqual(
      Object.keys(await s.roost.settings.overrides()),
      ['activationUrl'],
      'the boot value is not stored',
    );
    assert.equal((await token(s.url, 'bob')).status, 200);
    const reset = await postForm(
      s,
      '/admin/settings',
      { csrf, reset$: 'reset$' },
      { cookie: admin, headers: { origin: s.url } },
    );
    assert.equal(reset.status, 303);
    assert.deepEqual(await s.roost.settings.overrides(), {});
    assert.equal((await s.roost.settings.current()).activationUrl, BOOT_ACTIVATION);
    await eventually(async () => (await token(secondUrl, 'bob')).status === 200, 'the second process back on names');
    const perms = await s.users('getPermissions', {}, { token: await s.adminToken() });
    assert.deepEqual(
      perms.body.permissions.find((p: { permission: string }) => p.permission === 'signupOptin').groups,
      ['sys:everyone'],
      'sign-up policies are permissions, not settings: a reset keeps them',
    );
  });

  test('an SMTP server set on the page carries the mails of both processes; the password never shows', async () => {
    const smtpUrl = `smtp://roost:s3cret-pw@127.0.0.1:${smtpPort}`;
    assert.equal(
      (
        await save({
          signupOptin: 'on',
          mailFrom: 'Roost <roost@example.org>',
          adminAddress: 'ops@example.org',
          smtpUrl,
        })
      ).status,
      303,
    );
    const page = await getPage(s, '/admin/settings', admin);
    assert.doesNotMatch(page.html, /s3cret-pw/);
    assert.match(page.html, /value="smtp:\/\/roost:\*\*\*\*@127\.0\.0\.1/);
    // Saving the page again as it shows keeps the stored password.
    assert.equal(
      (
        await save({
          signupOptin: 'on',
          mailFrom: 'Roost <roost@example.org>',
          adminAddress: 'ops@example.org',
          smtpUrl: `smtp://roost:****@127.0.0.1:${smtpPort}`,
        })
      ).status,
      303,
    );
    assert.equal((await s.roost.settings.current()).smtpUrl, `${smtpUrl}`);

    const outboxBefore = (await s.outbox()).length;
    const test = await postForm(
      s,
      '/admin/settings',
      { csrf, testMailTo: '', test$: 'test$' },
      { cookie: admin, headers: { origin: s.url } },
    );
    assert.equal(test.status, 303, textOf(test.html));
    const testMail = await smtp.waitFor((m) => m.to.includes('ops@example.org'));
    assert.match(testMail.raw, /^Subject: Roost test mail/m);
    assert.match(testMail.raw, /^From: Roost <roost@example\.org>/m);
    assert.doesNotMatch(testMail.raw, /s3cret-pw/);

    // The other process sends through the new server as well, without a restart.
    await eventually(
      async () => (await second.settings.current()).smtpUrl === smtpUrl,
      'the second process seeing the SMTP server',
    );
    const optin = await fetch(`${secondUrl}/users/api/signupOptin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'pia', email: 'pia@example.com', password: PASSWORD }),
    });
    assert.deepEqual(await optin.json(), { result: true });
    const piaMail = await smtp.waitFor((m) => m.to.includes('pia@example.com'));
    assert.equal((await s.outbox()).length, outboxBefore, 'nothing went to the outbox meanwhile');
    const outboxPage = textOf((await getPage(s, '/admin/outbox', admin)).html);
    assert.match(outboxPage, /Mail goes out through the SMTP server smtp:\/\/roost:\*\*\*\*@127\.0\.0\.1/);
    assert.doesNotMatch(outboxPage, /s3cret-pw/);

    // A server that refuses: the page says why, nothing is stored.
    assert.equal(
      (
        await save({
          signupOptin: 'on',
          mailFrom: 'Roost <roost@example.org>',
          adminAddress: 'ops@example.org',
          smtpUrl: 'smtp://127.0.0.1:1',
        })
      ).status,
      303,
    );
    const failed = await postForm(
      s,
      '/admin/settings',
      { csrf, testMailTo: 'ops@example.org', test$: 'test$' },
      { cookie: admin, headers: { origin: s.url } },
    );
    assert.equal(failed.status, 422);
    assert.match(
      textOf(failed.html),
      /The test mail could not be sent through the SMTP server smtp:\/\/127\.0\.0\.1:1\/?: .*ECONNREFUSED/,
    );
    // Back to the outbox, so the activation of pia's account by its token works as usual.
    await postForm(s, '/admin/settings', { csrf, reset$: 'reset$' }, { cookie: admin, headers: { origin: s.url } });
    const raw = piaMail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const activation = /token=([A-Za-z0-9_-]+)/.exec(raw)?.[1];
    assert.ok(activation);
    assert.deepEqual((await s.users('activate', { token: activation })).body, { result: true });
  });
});
