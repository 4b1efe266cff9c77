import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, csrfOf, getPage, postForm, textOf } from '../helpers/pages.js';
import { sharedS3 } from '../helpers/s3-server.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The rate limit and the S3 access keys on the settings page (issue 42, item 6): validated with the settings' own
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

describe('settings page: the S3 access key of a bucket', () => {
  let s: TestServer;
  let cookie: string;
  let csrf: string;
  let bucket: string;
  const save = (fields: Record<string, string>) =>
    postForm(s, '/admin/settings', { csrf, ...SETTINGS, ...fields }, { cookie, headers: { origin: s.url } });
  let token: string;
  const write = async (name: string) =>
    (await s.request(`/files/${name}/@write`, undefined, { token, method: 'PUT', raw: `contents of ${name}` })).status;

  before(async () => {
    // s3rver accepts the access key S3RVER only (test/helpers/s3-server.ts): the configuration's is wrong.
    const options = await (await sharedS3()).newBucket();
    bucket = options.bucket;
    s = await startServer({ blobs: { ...options, accessKeyId: 'ROTATED-AWAY', secretAccessKey: 'old-secret' } });
    token = await s.adminToken();
    cookie = await authCookie(s, 'admin');
    csrf = csrfOf((await getPage(s, '/admin/settings', cookie)).html);
  });
  after(() => s?.close());

  test('a new key saved on the page is used by the next upload; its secret never shows', async () => {
    assert.equal(await write('before.txt'), 500, 'the configured key is refused by the bucket');
    const page = await getPage(s, '/admin/settings', cookie);
    assert.match(page.html, /id="settings-s3KeyId0"[^>]*value="ROTATED-AWAY"/);
    assert.match(textOf(page.html), new RegExp(`Bucket ${bucket} at http://127\\.0\\.0\\.1:\\d+ \\(us-east-1\\)`));
    assert.doesNotMatch(page.html, /old-secret/);

    // A new key id without its secret is refused at the field; nothing changes.
    const refused = await save({ s3KeyId0: 'S3RVER' });
    assert.equal(refused.status, 422);
    assert.match(textOf(refused.html), /S3 secret access key of .*Give the secret of the new access key id/);
    // The secret is typed twice (the form library's password field): a mismatch is said.
    const mistyped = await save({ s3KeyId0: 'S3RVER', s3Secret0: 'new-secret-value', 's3Secret0-confirm': 'new' });
    assert.equal(mistyped.status, 422);
    assert.match(textOf(mistyped.html), /Password did not match confirm/);
    assert.deepEqual((await s.roost.settings.current()).s3Keys, {});

    const saved = await save({
      s3KeyId0: 'S3RVER',
      s3Secret0: 'new-secret-value',
      's3Secret0-confirm': 'new-secret-value',
    });
    assert.equal(saved.status, 303, textOf(saved.html).slice(0, 300));
    assert.equal(await write('after.txt'), 200);
    const read = await s.request('/files/after.txt', undefined, { token, method: 'GET' });
    assert.equal(read.status, 200);
    const shown = await getPage(s, '/admin/settings', cookie);
    assert.match(shown.html, /id="settings-s3KeyId0"[^>]*value="S3RVER"/);
    assert.doesNotMatch(shown.html, /new-secret-value/);

    // Saved again with the secret left empty: the key in force stays.
    assert.equal((await save({ s3KeyId0: 'S3RVER' })).status, 303);
    assert.deepEqual((await s.roost.settings.current()).s3Keys, {
      [bucket]: { accessKeyId: 'S3RVER', secretAccessKey: 'new-secret-value' },
    });
    // An empty id: the configuration's key again, which the bucket refuses.
    assert.equal((await save({ s3KeyId0: '' })).status, 303);
    assert.deepEqual((await s.roost.settings.current()).s3Keys, {});
    assert.equal(await write('again.txt'), 500);
  });
});
