import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CROSS_SITE, getPage, postForm, textOf, type PageResult } from '../helpers/pages.js';
import { PASSWORD, useServer, tokenFromMail } from '../helpers/test-server.js';

/**
 * The public user pages refuse bad input with words on the page and change nothing: missing,
 * wrong, oversized and hostile fields; wrong, used and expired codes; closed sign-up policies;
 * posts from another site; too many posts.
 */
describe('user pages: bad input is said on the page and changes nothing', () => {
  let offset = 0;
  const clock = { now: () => Date.now() + offset };

  function refused(res: PageResult, words: RegExp, status = 422): void {
    assert.equal(res.status, status, textOf(res.html).slice(0, 400));
    assert.match(textOf(res.html), words);
  }
  const accounts = async () =>
    ((await s.users('list', { size: 100 }, { token: await s.adminToken() })).body.users as Array<{ name: string }>)
      .map((u) => u.name)
      .sort();
  const signsIn = async (identity: string, password: string) =>
    (await s.users('token', { identity, password })).body?.token !== undefined;
  const signup = (fields: Record<string, string>, policy = 'signupDirect', options = {}) =>
    postForm(s, `/users/signup?policy=${policy}`, { signup$: 'signup$', ...fields }, options);
  const good = {
    name: 'newbie',
    email: 'newbie@example.com',
    password: 'newbie-password',
    'password-confirm': 'newbie-password',
  };

  const s = useServer({ bodyLimit: 16 * 1024 }, { clock });
  before(async () => {
    await s.adminToken();
  });

  test('sign-up closed: the page says so and a posted form creates nothing', async () => {
    const page = await getPage(s, '/users/signup');
    assert.equal(page.status, 200);
    assert.match(textOf(page.html), /Sign-up is closed/);
    assert.doesNotMatch(page.html, /<form/);
    for (const policy of ['signupDirect', 'signupUid']) {
      const res = await signup(good, policy);
      assert.match(textOf(res.html), /Sign-up is closed/);
    }
    assert.deepEqual(await accounts(), ['admin']);
  });

  test('sign-up: missing, wrong, hostile, taken, oversized, NUL; a closed policy asked by name not run', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    refused(await signup({ ...good, name: '' }), /User name: Required/);
    refused(await signup({ ...good, email: 'not-an-email' }), /Email: .*valid email/i);
    refused(await signup({ ...good, password: 'short', 'password-confirm': 'short' }), /At least 8 characters/);
    refused(await signup({ ...good, 'password-confirm': 'something-else' }), /did not match/);
    refused(await signup({ ...good, name: '<script>alert(1)</script>' }), /Only letters, digits/);
    refused(await signup({ ...good, name: 'x'.repeat(41) }), /User name: .*(long|Longer)/i);
    refused(await signup({ ...good, name: 'admin' }), /This name is taken/);
    refused(await signup({ ...good, email: 'admin@example.com' }), /An account with this email exists already/);
    refused(await signup({ ...good, realname: 'r'.repeat(20 * 1024) }), /A field is longer than 16384 bytes/, 413);
    refused(await signup({ ...good, realname: 'nul\u0000' }), /NUL character/, 400);
    // signupUid is closed: asking for it shows (and runs) the open policy only.
    const uid = await signup({ password: 'some-password', 'password-confirm': 'some-password' }, 'signupUid');
    refused(uid, /User name: Required/);
    assert.deepEqual(await accounts(), ['admin']);
    // The hostile name is shown escaped when the form comes back.
    const hostile = await signup({ ...good, name: '"><script>alert(1)</script>' });
    assert.doesNotMatch(hostile.html, /<script>alert/);
  });

  test('sign-up from another site is refused before anything is read', async () => {
    refused(await signup(good, 'signupDirect', { headers: CROSS_SITE }), /Cross-site requests/, 403);
    refused(
      await signup(good, 'signupDirect', { headers: { origin: 'https://evil.example' } }),
      /Cross-site requests/,
      403,
    );
    assert.deepEqual(await accounts(), ['admin']);
    // The same post from this site works (the control).
    const ok = await signup(good, 'signupDirect', { headers: { origin: s.url, 'sec-fetch-site': 'same-origin' } });
    assert.equal(ok.status, 200);
    assert.match(textOf(ok.html), /You can sign in now/);
    assert.deepEqual(await accounts(), ['admin', 'newbie']);
  });

  test('activation: empty, wrong, oversized, used and expired codes', async () => {
    await s.grant('signupOptin', ['sys:everyone']);
    const activate = (token: string) => postForm(s, '/users/activate', { token, confirm$: 'confirm$' });
    refused(await activate(''), /Code from the mail: Required/);
    refused(await activate('not-a-real-code'), /The code is unknown, used or expired/);
    refused(await activate('t'.repeat(300)), /This is not a code we sent/);
    // Used: the second time.
    assert.equal(
      (await s.users('signupOptin', { name: 'opal', email: 'opal@example.com', password: PASSWORD })).body.result,
      true,
    );
    const code = tokenFromMail(await s.lastMail('opal@example.com'));
    assert.equal((await activate(code)).status, 200);
    refused(await activate(code), /The code is unknown, used or expired/);
    // Expired: past the activation lifetime (3 days by default), the account stays pending.
    assert.equal(
      (await s.users('signupOptin', { name: 'olga', email: 'olga@example.com', password: PASSWORD })).body.result,
      true,
    );
    const late = tokenFromMail(await s.lastMail('olga@example.com'));
    offset = 4 * 24 * 3600 * 1000;
    try {
      refused(await activate(late), /The code is unknown, used or expired/);
    } finally {
      offset = 0;
    }
    assert.ok(!(await signsIn('olga', PASSWORD)));
    // The link's code is shown in the form, escaped: a hostile "code" cannot break out of it.
    const shown = await getPage(s, `/users/activate?token=${encodeURIComponent('"><script>alert(1)</script>')}`);
    assert.doesNotMatch(shown.html, /<script>alert/);
    assert.match(shown.html, /value="&quot;&gt;&lt;script&gt;/);
  });

  test('email verification: wrong and used codes change no address', async () => {
    const token = await s.createUser('vic');
    refused(
      await postForm(s, '/users/verify-email', { token: 'wrong', confirm$: 'confirm$' }),
      /unknown, used or expired/,
    );
    await s.users('verifyEmail', { email: 'vic2@example.com' }, { token });
    const code = tokenFromMail(await s.lastMail('vic2@example.com'));
    assert.equal((await postForm(s, '/users/verify-email', { token: code, confirm$: 'confirm$' })).status, 200);
    refused(
      await postForm(s, '/users/verify-email', { token: code, confirm$: 'confirm$' }),
      /unknown, used or expired/,
    );
    assert.equal((await s.users('profile', {}, { token })).body.email, 'vic2@example.com');
  });

  test('password reset: short, mismatched, wrong, used and expired codes keep the old password', async () => {
    await s.createUser('rose', { password: 'rose-old-password' });
    const reset = (fields: Record<string, string>) =>
      postForm(s, '/users/reset-password', { confirm$: 'confirm$', ...fields });
    const requested = await postForm(s, '/users/reset-password', { identity: 'rose', request$: 'request$' });
    assert.match(textOf(requested.html), /If an account matches/);
    // An unknown identity gets the same words (the page finds no accounts).
    assert.match(
      textOf((await postForm(s, '/users/reset-password', { identity: 'nobody-at-all', request$: 'request$' })).html),
      /If an account matches/,
    );
    refused(
      await postForm(s, '/users/reset-password', { identity: '', request$: 'request$' }),
      /Your user name or email: Required/,
      200,
    );
    const code = tokenFromMail(await s.lastMail('rose@example.com'));
    refused(
      await reset({ token: code, newpassword: 'short', 'newpassword-confirm': 'short' }),
      /At least 8 characters/,
    );
    refused(
      await reset({ token: code, newpassword: 'rose-new-password', 'newpassword-confirm': 'rose-other' }),
      /did not match/,
    );
    refused(
      await reset({ token: 'wrong', newpassword: 'rose-new-password', 'newpassword-confirm': 'rose-new-password' }),
      /unknown, used or expired/,
    );
    refused(await reset({ token: code, newpassword: '', 'newpassword-confirm': '' }), /New password: Required/);
    assert.ok(await signsIn('rose', 'rose-old-password'));
    assert.equal(
      (await reset({ token: code, newpassword: 'rose-new-password', 'newpassword-confirm': 'rose-new-password' }))
        .status,
      200,
    );
    refused(
      await reset({ token: code, newpassword: 'rose-third-password', 'newpassword-confirm': 'rose-third-password' }),
      /unknown, used or expired/,
    );
    assert.ok(await signsIn('rose', 'rose-new-password'));
    // Expired: the reset lifetime is an hour by default.
    await s.users('resetPassword', { identity: 'rose' });
    const late = tokenFromMail(await s.lastMail('rose@example.com'));
    offset = 2 * 3600 * 1000;
    try {
      refused(
        await reset({ token: late, newpassword: 'rose-late-password', 'newpassword-confirm': 'rose-late-password' }),
        /unknown, used or expired/,
      );
    } finally {
      offset = 0;
    }
    assert.ok(await signsIn('rose', 'rose-new-password'));
  });
});

describe('user pages: posts are rate limited like the operations they run', () => {
  const s = useServer({ rateLimit: { max: 3 } });

  test('past the limit: 429 with a page that says so; pages still load', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await postForm(s, '/users/activate', { token: 'wrong', confirm$: 'confirm$' })).status);
    assert.deepEqual(statuses, [422, 422, 422, 429, 429]);
    const limited = await postForm(s, '/users/activate', { token: 'wrong', confirm$: 'confirm$' });
    assert.match(textOf(limited.html), /Too many requests/);
    assert.equal((await getPage(s, '/users/activate')).status, 200);
  });
});
