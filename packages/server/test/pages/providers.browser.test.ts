import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { launchBrowser, screenshot, signedInContext } from '../helpers/browser.js';
import { startOpenIdProvider, type TestOpenIdProvider } from '../helpers/oidc-provider.js';
import { freePort, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';
import { programCaller } from '../../src/users/index.js';

/**
 * Sign-in through an OpenID Connect provider, end to end in Debian's chromium against a real
 * provider on 127.0.0.1 (npm `oidc-provider`, test/helpers/oidc-provider.ts): the sign-in page's
 * button, the provider's own login and consent pages, and back to Roost. A first sign-in follows
 * each sign-up policy (direct, review, opt-in with a verified and an unverified email, off);
 * a tampered `state`, a wrong `nonce`, a replayed callback and a redirect off the list are
 * refused; a signed-in user links and unlinks the provider on the account page; an app gets a
 * one-time grant it trades for a session once; an account with a second factor is asked for it.
 */
const SUITE = 'providers';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

/** Provider ids of Roost, each the same test provider under another sign-up setting. */
const IDS = ['corp', 'corp-review', 'corp-off', 'later'] as const;

describe('sign-in providers (OpenID Connect) in a browser', { skip }, () => {
  let s: TestServer;
  let op: TestOpenIdProvider;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** An app on the redirect list: it only notes the addresses browsers arrive at. */
  let app: Server;
  let APP = '';
  const landed: string[] = [];
  /** The grant of the app's latest arrival (the browser also asks the app for its favicon). */
  const lastGrant = () =>
    new URL(landed.filter((u) => u.includes('roost_signin=')).at(-1) ?? 'http://none/').searchParams.get(
      'roost_signin',
    ) ?? '';

  async function freshContext(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ baseURL: s.url });
    contexts.push(context);
    return { context, page: await context.newPage() };
  }

  /** The provider's login and consent pages: any password signs `login` in. */
  async function providerLogin(page: Page, login: string): Promise<void> {
    await page.waitForURL(`${op.issuer}/**`);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    await page.waitForLoadState();
    if (page.url().startsWith(op.issuer)) await page.click('button[type="submit"]');
    await page.waitForURL((url) => !url.href.startsWith(op.issuer));
  }

  /** Starts a sign-in by the API route in the page's context (its cookies): the provider's address. */
  async function started(context: BrowserContext, id: string, redirect = '/users/account'): Promise<string> {
    const res = await context.request.get(`/users/providers/${id}/start?redirect=${encodeURIComponent(redirect)}`, {
      maxRedirects: 0,
    });
    assert.equal(res.status(), 303);
    return res.headers().location ?? '';
  }

  const account = async (name: string) => s.roost.users.findUser(name);

  before(async () => {
    const appPort = await freePort();
    APP = `http://127.0.0.1:${appPort}/app/`;
    app = createServer((req, res) => {
      landed.push(`http://127.0.0.1:${appPort}${req.url}`);
      res.end('the app');
    });
    await new Promise<void>((resolve) => app.listen(appPort, '127.0.0.1', resolve));
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    op = await startOpenIdProvider(IDS.map((id) => `${publicUrl}/users/providers/${id}/callback`));
    const common = { kind: 'oidc' as const, issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret };
    s = await startServer({
      port,
      publicUrl,
      users: {
        providers: [
          { id: 'corp', name: 'Corp', ...common },
          { id: 'corp-review', name: 'Corp (review)', signup: 'signupReview', ...common },
          { id: 'corp-off', name: 'Corp (closed)', signup: 'off', ...common },
        ],
        providerRedirects: [APP],
      },
      mail: { adminAddress: 'boss@example.com' },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await s?.close();
    await op?.close();
    app?.closeAllConnections();
    app?.close();
  });

  test('direct: the button, the provider, and back signed in with a new active account', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const { page } = await freshContext();
    await page.goto('/users/signin');
    await screenshot(page, SUITE, 'signin-buttons');
    await page.click('a.provider:has-text("Sign in with Corp")');
    await providerLogin(page, 'ann');
    assert.equal(new URL(page.url()).pathname, '/users/signin');
    assert.match(await page.locator('main').innerText(), /signed in as ann/i);
    const ann = await account('ann');
    assert.equal(ann?.state, 'active');
    assert.equal(ann?.email, 'ann@example.com');
    await page.goto('/users/account');
    assert.match(await page.locator('.providers').innerText(), /Corp: linked as ann@example\.com/);
    // A second sign-in finds the same account, and the session says how it began.
    const again = await freshContext();
    await again.page.goto('/users/signin');
    await again.page.click('a.provider:has-text("Sign in with Corp")');
    await providerLogin(again.page, 'ann');
    const listed = await s.users('userSessions', { identity: 'ann' }, { token: await s.adminToken() });
    const sessions = (listed.body.sessions as { method: string }[]).map((r) => r.method);
    assert.deepEqual(sessions, ['provider', 'provider']);
    await s.grant('signupDirect', ['sys:noone']);
  });

  test('review: a pending account that waits for an administrator, who is told', async () => {
    await s.grant('signupReview', ['sys:everyone']);
    const { page } = await freshContext();
    await page.goto('/users/signin');
    await page.click('a.provider:has-text("Corp (review)")');
    await providerLogin(page, 'rita');
    assert.match(await page.locator('main').innerText(), /waits for an administrator/);
    const rita = await account('rita');
    assert.equal(rita?.state, 'pending');
    assert.equal(rita?.pending, 'review');
    assert.match((await s.lastMail('boss@example.com')).text, /rita/);
    await s.grant('signupReview', ['sys:noone']);
  });

  test('opt-in: a verified email is active at once, an unverified one gets the activation mail', async () => {
    await s.grant('signupOptin', ['sys:everyone']);
    const verified = await freshContext();
    await verified.page.goto('/users/providers/corp/start');
    await providerLogin(verified.page, 'olga');
    assert.equal((await account('olga'))?.state, 'active');

    op.accounts.set('otto', { email: 'otto@example.com', emailVerified: false });
    const unverified = await freshContext();
    await unverified.page.goto('/users/providers/corp/start');
    await providerLogin(unverified.page, 'otto');
    assert.match(await unverified.page.locator('main').innerText(), /follow its link to activate/);
    const otto = await account('otto');
    assert.equal(otto?.state, 'pending');
    assert.equal(otto?.pending, 'optin');
    assert.match((await s.lastMail('otto@example.com')).text, /activate/i);
    await s.grant('signupOptin', ['sys:noone']);
  });

  test('a policy that is off refuses, and no account is made', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const { page } = await freshContext();
    await page.goto('/users/providers/corp-off/start');
    await providerLogin(page, 'fred');
    assert.match(await page.locator('main').innerText(), /new accounts cannot be made this way/);
    assert.equal(await account('fred'), null);
    // Every policy closed: `auto` refuses too.
    await s.grant('signupDirect', ['sys:noone']);
    const closed = await freshContext();
    await closed.page.goto('/users/providers/corp/start');
    await providerLogin(closed.page, 'fred');
    assert.match(await closed.page.locator('main').innerText(), /new accounts cannot be made this way/);
    assert.equal(await account('fred'), null);
  });

  test('a tampered state, a wrong nonce and a replayed callback are refused', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    // The state changed on the way to the provider: it comes back unknown to this browser.
    const a = await freshContext();
    const tampered = new URL(await started(a.context, 'corp'));
    tampered.searchParams.set('state', 'forged-state-value');
    await a.page.goto(tampered.href);
    await providerLogin(a.page, 'tina');
    assert.match(await a.page.locator('main').innerText(), /failed, took too long or was used already/);
    assert.equal(await account('tina'), null);

    // The nonce changed: the provider signs an ID token for another nonce, which Roost refuses.
    const b = await freshContext();
    const wrongNonce = new URL(await started(b.context, 'corp'));
    wrongNonce.searchParams.set('nonce', 'not-the-nonce-roost-sent');
    await b.page.goto(wrongNonce.href);
    await providerLogin(b.page, 'nina');
    assert.match(await b.page.locator('main').innerText(), /failed/);
    assert.equal(await account('nina'), null);

    // A good sign-in, whose callback is then replayed in the same browser: nothing to take.
    const c = await freshContext();
    let callback = '';
    c.page.on('request', (r) => {
      if (r.url().includes('/users/providers/corp/callback')) callback = r.url();
    });
    await c.page.goto(await started(c.context, 'corp', '/users/signin'));
    await providerLogin(c.page, 'rex');
    assert.equal((await account('rex'))?.state, 'active');
    assert.ok(callback);
    // Pages answer an invalid request with 422 (admin/page-kit/page-errors.ts).
    const replay = await c.context.request.get(callback, { maxRedirects: 0 });
    assert.equal(replay.status(), 422);
    assert.match(await replay.text(), /failed, took too long or was used already/);
    // Another browser with the same callback address: not its state either.
    const d = await freshContext();
    assert.equal((await d.context.request.get(callback, { maxRedirects: 0 })).status(), 422);
    await s.grant('signupDirect', ['sys:noone']);
  });

  test('a redirect off the list and an unknown provider are refused before the provider is asked', async () => {
    const { context } = await freshContext();
    for (const redirect of [
      'https://evil.example/',
      '//evil.example/x',
      `${APP.slice(0, -1)}x/`,
      'javascript:alert(1)',
    ]) {
      const res = await context.request.get(`/users/providers/corp/start?redirect=${encodeURIComponent(redirect)}`, {
        maxRedirects: 0,
      });
      assert.equal(res.status(), 422, redirect);
      assert.match(await res.text(), /may not return to this address/);
    }
    assert.equal((await context.request.get('/users/providers/nope/start', { maxRedirects: 0 })).status(), 404);
    assert.equal((await context.request.get('/users/providers/corp/callback?state=x&code=y')).status(), 422);
  });

  test('an app on the list gets a one-time grant, traded once for a session', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const { context, page } = await freshContext();
    await page.goto(await started(context, 'corp', `${APP}done?x=1`));
    await providerLogin(page, 'appy');
    const url = new URL(landed.filter((u) => u.includes('roost_signin=')).at(-1) ?? 'http://none/');
    assert.equal(url.searchParams.get('x'), '1');
    const grant = url.searchParams.get('roost_signin') ?? '';
    assert.match(grant, /^[A-Za-z0-9_-]{40,}$/);
    const first = await s.users('signinProvider2', { grant });
    assert.equal(typeof first.body.token, 'string');
    const identity = await s.users('identity', {}, { token: first.body.token });
    assert.equal(identity.body.name, 'appy');
    const second = await s.users('signinProvider2', { grant });
    assert.equal(second.body.code, 'invalid_token');
    // In parallel, one grant makes one session at most.
    await page.goto(await started(context, 'corp', `${APP}done`));
    // The provider asks again (`prompt=login`, users/provider-clients.ts), signed in there or not.
    await providerLogin(page, 'appy');
    const grant2 = lastGrant();
    assert.notEqual(grant2, grant);
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.users('signinProvider2', { grant: grant2 })));
    // Invalid input answers 200 with `result: false` in the original protocol: count the tokens.
    assert.equal(answers.filter((a) => typeof a.body.token === 'string').length, 1);
    assert.ok(answers.every((a) => typeof a.body.token === 'string' || a.body.code === 'invalid_token'));
    await s.grant('signupDirect', ['sys:noone']);
  });

  test('link on the account page, sign in with it, unlink; a taken email is not joined unless configured', async () => {
    await s.createUser('lena', { email: 'lena@example.com' });
    const { page } = await freshContext();
    // Signing in with a provider account of the same email, not linked: refused as taken.
    await page.goto('/users/providers/corp/start');
    await providerLogin(page, 'lena');
    assert.match(await page.locator('main').innerText(), /An account with this email exists/);

    await page.goto('/users/signin?next=/users/account');
    await page.fill('#signin-identity', 'lena');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signinsignin\\$');
    // Linking asks for the password again (users/provider-ops.ts): the session alone is not enough.
    const linkForm = page.locator('form[action="/users/providers/corp/link"]');
    await linkForm.locator('input[name="password"]').fill('not-the-password');
    await linkForm.locator('button').click();
    assert.match(await page.locator('main').innerText(), /missing or invalid/);
    await page.goto('/users/account');
    await linkForm.locator('input[name="password"]').fill(PASSWORD);
    await linkForm.locator('button').click();
    // The provider remembers this browser: no login form this time, straight back.
    await page.locator('text=The provider is linked').waitFor();
    assert.match(await page.locator('.providers').innerText(), /Corp: linked as lena@example\.com/);
    await screenshot(page, SUITE, 'account-linked');
    const fresh = await freshContext();
    await fresh.page.goto('/users/providers/corp/start');
    await providerLogin(fresh.page, 'lena');
    assert.match(await fresh.page.locator('main').innerText(), /signed in as lena/i);
    await page.fill('.providers form:has(button[name="unlink$"]) input[name="password"]', PASSWORD);
    await page.click('button:has-text("Unlink")');
    assert.match(await page.locator('main').innerText(), /The provider is unlinked/);

    // Joining by a verified email, when configured.
    await s.roost.settings.change({ linkProvidersByEmail: true }, 'test');
    const joined = await freshContext();
    await joined.page.goto('/users/providers/corp/start');
    await providerLogin(joined.page, 'lena');
    assert.match(await joined.page.locator('main').innerText(), /signed in as lena/i);
    // Not by an unverified one.
    await s.createUser('uma', { email: 'uma@example.com' });
    op.accounts.set('uma', { email: 'uma@example.com', emailVerified: false });
    const unverified = await freshContext();
    await unverified.page.goto('/users/providers/corp/start');
    await providerLogin(unverified.page, 'uma');
    assert.match(await unverified.page.locator('main').innerText(), /An account with this email exists/);
    await s.roost.settings.change({ linkProvidersByEmail: false }, 'test');
  });

  test('an account with an authenticator is asked for its code after the provider', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const first = await freshContext();
    await first.page.goto('/users/providers/corp/start');
    await providerLogin(first.page, 'tom');
    // Tom sets a password and an authenticator through the API (a recovery code is the second step
    // here: a TOTP code of the step the confirmation used would be refused as used).
    const admin = { token: await s.adminToken() };
    await s.users('setUser', { identity: 'tom', values: { password: PASSWORD } }, admin);
    const token = (await s.users('token', { identity: 'tom', password: PASSWORD })).body.token as string;
    const { secret } = (await s.users('totpEnrol', {}, { token })).body;
    const confirmed = await s.users(
      'totpConfirm',
      { code: totpCode(secret, Date.now()), password: PASSWORD },
      { token },
    );
    const [recovery] = confirmed.body.recoveryCodes as string[];

    const { page } = await freshContext();
    await page.goto('/users/providers/corp/start?redirect=/users/account');
    await providerLogin(page, 'tom');
    await page.locator('#verify-code').waitFor();
    await screenshot(page, SUITE, 'second-step');
    await page.fill('#verify-code', recovery ?? '');
    await page.click('#verifyverify\\$');
    await page.waitForURL('**/users/account');
    assert.match(await page.locator('main').innerText(), /Corp: linked as tom@example\.com/);
    // An app's grant asks for it too.
    const inApp = await freshContext();
    await inApp.page.goto(await started(inApp.context, 'corp', APP));
    await providerLogin(inApp.page, 'tom');
    const grant = lastGrant();
    const traded = await s.users('signinProvider2', { grant });
    assert.equal(traded.status, 401);
    assert.equal(traded.body.code, 'second_factor_required');
    await s.grant('signupDirect', ['sys:noone']);
  });

  test('a provider added on the settings page works at once; its secret shows as **** and is kept', async () => {
    await s.roost.users.createUser(programCaller('test'), { name: 'chief', password: PASSWORD, groups: ['admins'] });
    const context = await signedInContext(browser, s.url, 'chief', PASSWORD);
    contexts.push(context);
    const page = await context.newPage();
    // The administrator sees how an account signs in.
    const ann = await account('ann');
    await page.goto(`/admin/users/${ann?.id}/security`);
    assert.match(await page.locator('.facts').innerText(), /Sign-in providers\s+corp/);
    await page.goto('/admin/settings');
    const listed = JSON.parse(await page.inputValue('#settings-providers')) as { clientSecret?: string }[];
    assert.equal(listed.length, 3);
    assert.ok(listed.every((p) => p.clientSecret === '****'));
    assert.doesNotMatch(await page.content(), new RegExp(op.clientSecret));
    const later = { id: 'later', kind: 'oidc', name: 'Later', issuer: op.issuer, clientId: op.clientId };
    await page.fill(
      '#settings-providers',
      JSON.stringify([...listed, { ...later, clientSecret: op.clientSecret }], null, 2),
    );
    await page.click('#settingssave\\$');
    assert.match(await page.locator('main').innerText(), /Settings saved/);
    // Saved again as shown (every secret ****): the secrets stay.
    await page.click('#settingssave\\$');
    const current = await s.roost.settings.current();
    assert.equal(current.providers.find((p) => p.id === 'later')?.clientSecret, op.clientSecret);

    await s.grant('signupDirect', ['sys:everyone']);
    const visitor = await freshContext();
    await visitor.page.goto('/users/signin');
    await visitor.page.click('a.provider:has-text("Sign in with Later")');
    await providerLogin(visitor.page, 'lara');
    assert.match(await visitor.page.locator('main').innerText(), /signed in as lara/i);
    await s.grant('signupDirect', ['sys:noone']);
    // A list that is not valid is refused with the reason, and nothing changes.
    await page.goto('/admin/settings');
    await page.fill('#settings-providers', '[{"id": "Bad Id", "kind": "oidc"}]');
    await page.click('#settingssave\\$');
    assert.match(await page.locator('main').innerText(), /Enter a JSON list of providers/);
    assert.equal((await s.roost.settings.current()).providers.length, 4);
  });
});
