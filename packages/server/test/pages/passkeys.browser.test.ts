import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/users/signin-methods/totp/totp.js';
import { addVirtualAuthenticator, launchBrowser, screenshot, signedInContext } from '../helpers/browser.js';
import { freePort, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Passkeys end to end in Debian's chromium with the DevTools protocol's virtual authenticator
 * (a platform authenticator that verifies the user): registered on the account page, used to
 * sign in on the sign-in page without a name, renamed and removed; used as the second step of a
 * password sign-in through the served connector. Refused: a replayed assertion, another
 * account's passkey as a second step, an assertion made on a page of another origin. WebAuthn
 * needs a host name, not an IP address, as its relying party: Roost's public address is
 * `http://localhost:<port>`, which chromium maps to 127.0.0.1.
 */
const SUITE = 'passkeys';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

interface PageRoost {
  users(options: object): {
    passkeySecondStep(challenge: string): Promise<{ token: string }>;
  };
}

describe('passkeys in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let other: Server;
  let otherUrl = '';
  const contexts: BrowserContext[] = [];

  /** An assertion the page's authenticator makes for `challenge`, as the connector would send it (not sent). */
  const assertion = (page: Page, challenge: string) =>
    page.evaluate(async (challenge) => {
      const b64 = (buffer: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(buffer)))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
      const raw = Uint8Array.from(atob(challenge.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const credential = (await navigator.credentials.get({
        publicKey: { challenge: raw, rpId: 'localhost', userVerification: 'preferred' },
      })) as PublicKeyCredential;
      const r = credential.response as AuthenticatorAssertionResponse;
      return {
        id: credential.id,
        rawId: b64(credential.rawId),
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64(r.clientDataJSON),
          authenticatorData: b64(r.authenticatorData),
          signature: b64(r.signature),
          ...(r.userHandle ? { userHandle: b64(r.userHandle) } : {}),
        },
      };
    }, challenge);

  async function signedInPage(name: string): Promise<Page> {
    const context = await signedInContext(browser, s.url, name, PASSWORD);
    contexts.push(context);
    const page = await context.newPage();
    // tsx compiles functions handed to page.evaluate with esbuild's keepNames, which calls `__name`.
    await page.addInitScript('window.__name = (f) => f;');
    await addVirtualAuthenticator(page);
    return page;
  }

  async function addPasskey(page: Page, name: string): Promise<void> {
    await page.goto('/users/account');
    await page.waitForSelector('html[data-passkeys=ready]', { state: 'attached' });
    await page.fill('#passkey-name', name);
    await page.fill('#passkey-password', PASSWORD);
    await page.click('[data-passkey-register]');
    await page.locator(`.passkeys li:has-text("${name}")`).waitFor();
  }

  /** A passkey sign-in on the sign-in page, after signing out; the request's body, for replays. */
  async function passkeySignin(page: Page): Promise<string> {
    await page.context().clearCookies();
    let body = '';
    const listener = (r: { url(): string; postData(): string | null }) => {
      if (r.url().endsWith('/users/api/passkeySignin')) body = r.postData() ?? '';
    };
    page.on('request', listener);
    await page.goto('/users/signin');
    await page.waitForSelector('html[data-passkeys=ready]', { state: 'attached' });
    await page.click('[data-passkey-signin]');
    await page.locator('text=You are signed in as').waitFor();
    page.off('request', listener);
    return body;
  }

  before(async () => {
    const port = await freePort();
    s = await startServer({ port, publicUrl: `http://localhost:${port}` });
    // The test server answers on 127.0.0.1; its pages are browsed by the name the passkeys need.
    s.url = `http://localhost:${port}`;
    browser = await launchBrowser(['--host-resolver-rules=MAP localhost 127.0.0.1']);
    other = createServer((_req, res) => res.end('<!doctype html><title>another site</title><p>another site</p>'));
    const otherPort = await freePort();
    await new Promise<void>((resolve) => other.listen(otherPort, '127.0.0.1', resolve));
    otherUrl = `http://localhost:${otherPort}`;
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await s?.close();
    other?.closeAllConnections();
    other?.close();
  });

  test('registered on the account page, signs in without a name, renamed and removed', async () => {
    await s.createUser('pat');
    const page = await signedInPage('pat');
    await addPasskey(page, 'laptop');
    await screenshot(page, SUITE, 'account');

    await passkeySignin(page);
    assert.match(await page.locator('main').innerText(), /signed in as pat/i);
    const admin = { token: await s.adminToken() };
    // The administrator sees how many passkeys the account has.
    assert.equal((await s.users('userFactors', { identity: 'pat' }, admin)).body.passkeys, 1);
    const sessions = (await s.users('userSessions', { identity: 'pat' }, admin)).body.sessions as { method: string }[];
    assert.ok(sessions.some((x) => x.method === 'passkey'));

    await page.goto('/users/account');
    await page.fill('.passkeys input[name="name"]', 'work laptop');
    await page.click('.passkeys button:has-text("Rename")');
    assert.match(await page.locator('main').innerText(), /The passkey is renamed/);
    assert.match(await page.locator('.passkeys').innerText(), /work laptop/);
    await page.fill('.passkeys form:has(button:has-text("Remove")) input[name="password"]', PASSWORD);
    await page.click('.passkeys button:has-text("Remove")');
    assert.match(await page.locator('main').innerText(), /The passkey is removed[\s\S]*No passkeys yet/);
  });

  test('a session alone neither adds nor removes a passkey: the password again (API and account page)', async () => {
    const token = await s.createUser('kai');
    const alone = await s.users('passkeyOptions', {}, { token });
    assert.deepEqual(
      [alone.status, alone.body.result, alone.body.code, alone.body.invalid],
      [200, false, 'validation_failure', [['password', 'required']]],
    );
    const wrong = await s.users('passkeyOptions', { password: 'not-the-password' }, { token });
    assert.deepEqual([wrong.body.code, wrong.body.invalid], ['validation_failure', [['password', 'invalid']]]);
    const page = await signedInPage('kai');
    await page.goto('/users/account');
    await page.waitForSelector('html[data-passkeys=ready]', { state: 'attached' });
    await page.click('[data-passkey-register]');
    await page.locator('[data-passkey-message]:has-text("password")').waitFor();
    assert.deepEqual((await s.users('passkeys', {}, { token })).body.passkeys, []);

    await addPasskey(page, 'kept');
    const [passkey] = (await s.users('passkeys', {}, { token })).body.passkeys as { id: string }[];
    const removal = await s.users('removePasskey', { id: passkey?.id }, { token });
    assert.deepEqual([removal.body.code, removal.body.invalid], ['validation_failure', [['password', 'required']]]);
    await page.goto('/users/account');
    await page.fill('.passkeys form:has(button:has-text("Remove")) input[name="password"]', 'not-the-password');
    await page.click('.passkeys button:has-text("Remove")');
    assert.match(await page.locator('main').innerText(), /missing or invalid/);
    assert.equal((await s.users('passkeys', {}, { token })).body.passkeys.length, 1);
    const removed = await s.users('removePasskey', { id: passkey?.id, password: PASSWORD }, { token });
    assert.equal(removed.body.result, true);
  });

  test("an assertion whose user handle is another account's, or missing, is refused", async () => {
    await s.createUser('hal');
    const ivy = (await s.users('identity', {}, { token: await s.createUser('ivy') })).body.id as string;
    const page = await signedInPage('hal');
    await addPasskey(page, 'key');
    const signin = async (edit: (r: Record<string, unknown>) => void) => {
      const { options } = (await s.users('passkeySigninOptions', {})).body;
      const response = await assertion(page, options.challenge as string);
      edit(response.response);
      return s.users('passkeyToken', { response });
    };
    const foreign = await signin((r) => {
      r.userHandle = Buffer.from(ivy, 'utf8').toString('base64url');
    });
    assert.deepEqual([foreign.status, foreign.body.code], [401, 'invalid_passkey']);
    const missing = await signin((r) => {
      delete r.userHandle;
    });
    assert.deepEqual([missing.status, missing.body.code], [401, 'invalid_passkey']);
    // The same passkey with its own handle signs in: only the handle was wrong.
    const own = await signin(() => {});
    assert.equal(typeof own.body.token, 'string');
  });

  test('a replayed assertion is refused; the counter and the challenge are taken once', async () => {
    await s.createUser('rae');
    const page = await signedInPage('rae');
    await addPasskey(page, 'phone');
    const body = await passkeySignin(page);
    assert.match(body, /"response"/);
    for (const op of ['passkeySignin', 'passkeyToken']) {
      const replay = await fetch(`${s.url}/users/api/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: s.url },
        body,
      });
      assert.equal(replay.status, 401, op);
      assert.equal((await replay.json()).code, 'invalid_passkey');
    }
  });

  test("a passkey as the second step; another account's passkey is refused there", async () => {
    // Sam has a passkey and an authenticator app; a password sign-in asks for either.
    const samToken = await s.createUser('sam');
    const page = await signedInPage('sam');
    await addPasskey(page, 'key');
    const { secret } = (await s.users('totpEnrol', {}, { token: samToken })).body;
    await s.users('totpConfirm', { code: totpCode(secret, Date.now()), password: PASSWORD }, { token: samToken });
    const first = await s.users('token', { identity: 'sam', password: PASSWORD });
    assert.equal(first.body.code, 'second_factor_required');
    assert.deepEqual(first.body.methods, ['totp', 'recovery', 'passkey']);
    const secondStep = (challenge: string) =>
      page.evaluate(async (challenge) => {
        const roost = (await import('/static/roost-client.js' as string)) as PageRoost;
        const auth = roost.users({ credentials: 'same-origin' });
        return auth.passkeySecondStep(challenge).then(
          (a) => typeof a.token,
          (e: { code: string }) => e.code,
        );
      }, challenge);
    assert.equal(await secondStep(first.body.challenge), 'string');

    // Tia's sign-in, answered with Sam's passkey (the only one in this browser): refused.
    const tiaToken = await s.createUser('tia');
    const tiaSecret = (await s.users('totpEnrol', {}, { token: tiaToken })).body.secret;
    await s.users('totpConfirm', { code: totpCode(tiaSecret, Date.now()), password: PASSWORD }, { token: tiaToken });
    const tia = await s.users('token', { identity: 'tia', password: PASSWORD });
    assert.equal(await secondStep(tia.body.challenge), 'invalid_code');
  });

  test('one assertion sent by eight callers at once makes one session', async () => {
    await s.createUser('vera');
    const page = await signedInPage('vera');
    await addPasskey(page, 'key');
    const { options } = (await s.users('passkeySigninOptions', {})).body;
    const response = await assertion(page, options.challenge as string);
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.users('passkeyToken', { response })));
    assert.equal(answers.filter((a) => typeof a.body.token === 'string').length, 1);
    assert.ok(answers.every((a) => typeof a.body.token === 'string' || a.body.code === 'invalid_passkey'));
  });

  test('an assertion made on a page of another origin is refused', async () => {
    await s.createUser('uli');
    const page = await signedInPage('uli');
    await addPasskey(page, 'desk');
    const { options } = (await s.users('passkeySigninOptions', {})).body;
    // Another site on the same host name (so the relying party id `localhost` is valid there).
    await page.goto(otherUrl);
    const response = await assertion(page, options.challenge as string);
    const answer = await s.users('passkeyToken', { response });
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'invalid_passkey');
  });
});
