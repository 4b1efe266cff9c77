import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The rate limit on the settings page (issue 42, item 6): validated with the settings' own
 * schema, stored, and in force for the next request without a restart (core/runtime-settings.ts
 * `liveRateLimit`, read per request from the settings in force).
 */
const SETTINGS = {
  identityPolicy: 'either',
  signupDirect: 'on',
  signupOptin: 'off',
  signupReview: 'off',
  signupSendpw: 'off',
  signupUid: 'off',
  mailFrom: 'Roost <roost@localhost>',
  save$: 'save$',
};

describe('settings page: the rate limit', () => {
  let s: TestServer;
  let cookie: string;
  let csrf: string;
  const save = (fields: Record<string, string>) =>
    postForm(s, '/admin/settings', { csrf, ...SETTINGS, ...fields }, { cookie, headers: { origin: s.url } });
  let n = 0;
  /** A guarded operation (signupDirect) from one address: its status. */
  const signup = async () =>
    (await s.users('signupDirect', { name: `limited${n++}`, password: PASSWORD, email: `l${n}@example.com` })).status;

  before(async () => {
    s = await startServer();
    await s.adminToken();
    await s.grant('signupDirect', ['sys:everyone']);
    cookie = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin/settings', cookie)).html);
  });
  after(() => s?.close());

  test('shown with the boot value; nonsense refused with the reason, nothing stored', async () => {
    const page = await getPage(s, '/admin/settings', cookie);
    assert.match(page.html, /id="settings-rateLimitMax"[^>]*value="10000"/);
    assert.match(textOf(page.html), /Rate limit: window in seconds .*Boot configuration: 60\. Not changed here\./);
    for (const [field, value, words] of [
      ['rateLimitMax', '0', /Rate limit: requests per window: /],
      ['rateLimitMax', '2.5', /Rate limit: requests per window: /],
      ['rateLimitMax', 'ten', /Rate limit: requests per window: /],
      ['rateLimitMax', '99999999', /Rate limit: requests per window: /],
      ['rateLimitWindowSeconds', '-1', /Rate limit: window in seconds: /],
      ['rateLimitWindowSeconds', '86401', /Rate limit: window in seconds: /],
    ] as const) {
      const res = await save({ [field]: value });
      assert.equal(res.status, 422, `${field}=${value}`);
      assert.match(textOf(res.html), words);
    }
    const current = await s.roost.settings.current();
    assert.deepEqual([current.rateLimitMax, current.rateLimitWindowSeconds], [10_000, 60]);
  });

  test('a lower limit saved on the page applies to the next request; raised again, it lifts', async () => {
    assert.equal(await signup(), 200);
    const saved = await save({ rateLimitMax: '3', rateLimitWindowSeconds: '3600' });
    assert.equal(saved.status, 303, textOf(saved.html).slice(0, 300));
    const overrides = await s.roost.settings.overrides();
    assert.equal(overrides.rateLimitMax?.value, 3);
    assert.equal(overrides.rateLimitMax?.changedBy, 'admin');
    // The counter of this window already holds the first sign-up: two more pass, the next is refused.
    assert.deepEqual([await signup(), await signup(), await signup()], [200, 200, 429]);
    const refused = await s.users('signupDirect', { name: 'another', password: PASSWORD });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'rate_limited');
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    assert.ok(Number(refused.headers.get('retry-after')) > 60, 'the window of 3600 s is in force');

    const lifted = await save({ rateLimitMax: '100' });
    assert.equal(lifted.status, 303);
    assert.equal(await signup(), 200);
    // The boot value again removes the stored one: the configuration is followed again.
    await save({ rateLimitMax: '10000', rateLimitWindowSeconds: '60' });
    assert.deepEqual(
      Object.keys(await s.roost.settings.overrides()).filter((k) => k.startsWith('rateLimit')),
      [],
    );
  });
});
