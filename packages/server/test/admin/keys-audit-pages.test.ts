import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { useServer } from '../helpers/test-server.js';

/**
 * Issue 42, items 4 and 5 in the admin backend: an administrator makes an API key on its page
 * (shown once), revokes it there; every change of keys, settings, permissions, webhooks and
 * accounts is on the audit log page with who, when, from where, before and after, secrets
 * redacted, filtered by actor, action and time, exported as NDJSON and CSV; old lines are swept
 * by the retention job.
 */
describe('the API keys and audit log pages', () => {
  let now = Date.parse('2026-12-02T09:00:00Z');
  const s = useServer({}, { clock: { now: () => now } });
  const post = async (path: string, fields: Record<string, string>, cookie: string) => {
    const page = await getPage(s, path, cookie);
    assert.equal(page.status, 200, textOf(page.html));
    return postForm(s, path, { ...fields, csrf: csrfOf(page.html) }, { cookie, headers: { origin: s.url } });
  };
  type Line = { at: string; actorName: string; address: string; action: string; target: string } & Record<
    string,
    unknown
  >;
  const exported = async (cookie: string, query: string): Promise<Line[]> => {
    const answer = await getPage(s, `/admin/audit/export?format=ndjson&${query}`, cookie);
    assert.equal(answer.status, 200, answer.html);
    assert.match(answer.headers.get('content-type') ?? '', /ndjson/);
    return answer.html
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  };

  test('a key made on the page is shown once, works, and is revoked on its page; both recorded', async () => {
    await s.adminToken();
    const cookie = await authCookie(s, 'admin');
    const refused = await post('/admin/keys', { name: 'bad', scopes: 'nonsense', add$: 'add$' }, cookie);
    assert.equal(refused.status, 422);
    assert.match(textOf(refused.html), /kind:name:access/);
    assert.equal((await s.roost.keys.list(await principal())).length, 0, 'nothing made');

    const made = await post(
      '/admin/keys',
      { name: 'reporting', scopes: 'store:data:read\ncollection:*:read', days: '30', add$: 'add$' },
      cookie,
    );
    assert.equal(made.status, 200, textOf(made.html));
    const token = /<code id="new-key">(roost_[^<]+)<\/code>/.exec(made.html)?.[1];
    assert.ok(token, 'the key is on the answer');
    const again = await getPage(s, '/admin/keys', cookie);
    assert.ok(!again.html.includes(token), 'and on no other page');
    assert.match(textOf(again.html), /reporting\s+store:data:read collection:\*:read\s+active/);
    const read = await s.request('/data/api/keys', {}, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(read.status, 200, JSON.stringify(read.body));

    const [key] = await s.roost.keys.list(await principal());
    assert.ok(key);
    assert.equal(key.expires, now + 30 * 86_400_000);
    const revoked = await post(`/admin/keys/${key.id}`, { confirm: key.id, revoke$: 'revoke$' }, cookie);
    assert.equal(revoked.status, 303);
    const refusedNow = await s.request('/data/api/keys', {}, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refusedNow.status, 401);

    const lines = await exported(cookie, 'action=key.');
    assert.deepEqual(
      lines.map((l) => [l.action, l.target, l.actorName, l.address]),
      [
        ['key.revoke', key.id, 'admin', '127.0.0.1'],
        ['key.create', key.id, 'admin', '127.0.0.1'],
      ],
    );
    assert.equal(lines[1]?.at, '2026-12-02T09:00:00.000Z', 'ISO 8601 with offset');
    assert.deepEqual((lines[1]?.after as { scopes?: unknown[] } | undefined)?.scopes?.length, 2);
    assert.ok(!JSON.stringify(lines).includes(token.slice(-43)), 'the secret is in no line');
  });

  test('settings, permissions, webhooks, accounts: recorded with before and after, secrets redacted', async () => {
    const cookie = await authCookie(s, 'admin');
    now += 60_000;
    const saved = await post(
      '/admin/settings',
      {
        identityPolicy: 'name',
        signupDirect: 'off',
        signupOptin: 'off',
        signupReview: 'off',
        signupSendpw: 'off',
        signupUid: 'off',
        mailFrom: 'Ops <ops@example.com>',
        smtpUrl: 'smtp://roost:s3cret-pw@127.0.0.1:2525',
        save$: 'save$',
      },
      cookie,
    );
    assert.equal(saved.status, 303, textOf(saved.html));
    const admin = await s.adminToken();
    const changed = await s.request(
      '/data/api/setPermissions',
      { permissions: { permission: 'getItem', groups: ['readers'], action: 'replace' } },
      { token: admin },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const hook = await s.roost.webhooks.add(await principal(), {
      url: 'http://127.0.0.1:1/x',
      service: 'data',
      kinds: [],
    });
    await s.createUser('dora');
    const dora = (await s.users('getUser', { identity: 'dora' }, { token: admin })).body;
    assert.equal(
      (await s.users('setUser', { identity: 'dora', values: { realname: 'Dora D' } }, { token: admin })).status,
      200,
    );

    const settings = (await exported(cookie, 'action=settings.change'))[0];
    assert.ok(settings);
    assert.equal(settings.actorName, 'admin');
    const after = settings.after as Record<string, unknown>;
    assert.equal(after['mail.from'], 'Ops <ops@example.com>');
    assert.equal(after['mail.smtpUrl'], 'smtp://roost:[redacted]@127.0.0.1:2525');
    const all = JSON.stringify(await exported(cookie, ''));
    assert.ok(!all.includes('s3cret-pw'), 'no password in any line');
    assert.ok(!all.includes(hook.secret), 'no webhook secret in any line');

    const permission = (await exported(cookie, 'action=permissions.change'))[0];
    assert.deepEqual(
      [permission?.target, permission?.before, permission?.after],
      ['data', { getItem: ['sys:authenticated', 'admins'] }, { getItem: ['readers'] }],
    );
    assert.equal((await exported(cookie, 'action=webhook.add'))[0]?.target, hook.id);
    const account = (await exported(cookie, 'action=account.update'))[0];
    assert.deepEqual(
      [account?.target, account?.before, account?.after],
      ['dora', { realname: '' }, { realname: 'Dora D' }],
    );
    assert.ok(dora);
    assert.equal((await exported(cookie, 'action=account.create&actor=nobody')).length, 0, 'filtered by actor');
  });

  test('filters by actor, action and time; CSV export; old lines swept by the retention job', async () => {
    const cookie = await authCookie(s, 'admin');
    const page = await getPage(s, '/admin/audit?action=key.&from=2026-12-02T08:59', cookie);
    assert.equal(page.status, 200);
    assert.match(textOf(page.html), /2026-12-02T09:00:00\.000Z\s+admin\s+127\.0\.0\.1\s+key\.create/);
    assert.doesNotMatch(textOf(page.html), /settings\.change/);
    const late = await getPage(s, '/admin/audit?action=key.&from=2026-12-02T10:00Z', cookie);
    assert.match(textOf(late.html), /Nothing recorded here/);
    const bad = await getPage(s, '/admin/audit?from=yesterday', cookie);
    assert.equal(bad.status, 422);
    const csv = await getPage(s, '/admin/audit/export?format=csv&action=permissions.change', cookie);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="audit-.*\.csv"/);
    const [head, row] = csv.html.split('\r\n');
    assert.equal(head, 'at,actor,actorName,address,action,target,before,after');
    assert.match(row ?? '', /^2026-12-02T09:01:00\.000Z,[^,]+,admin,127\.0\.0\.1,permissions\.change,data,/);
    const bob = await s.createUser('bob');
    assert.equal((await getPage(s, '/admin/audit', await authCookie(s, 'bob'))).status, 403);
    assert.ok(bob);

    // The retention job: a year and a day later, every line above is past `audit.retentionDays`.
    const before = (await exported(cookie, '')).length;
    assert.ok(before > 5);
    now += 366 * 86_400_000;
    const fresh = await authCookie(s, 'admin'); // the sessions of a year ago are over
    await s.roost.audit.record({ action: 'test.recent', target: 'x' });
    // Run now on the jobs page: an administrator action with no line of its own gets one.
    const job = '/admin/jobs/schedules/roost.audit-retention';
    const ran = await post(job, { confirm: 'roost.audit-retention', run$: 'run$' }, fresh);
    assert.equal(ran.status, 303, textOf(ran.html));
    await s.roost.jobs.idle();
    const left = await exported(fresh, '');
    assert.deepEqual(
      left.map((l) => [l.action, l.target]),
      [
        ['admin.action', job],
        ['test.recent', 'x'],
      ],
    );
  });

  async function principal() {
    const caller = await s.roost.users.authenticate(await s.adminToken());
    assert.ok(caller);
    return caller.principal;
  }
});
