import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { datastore, filestore } from '../src/index.js';
import { totpCode } from '../../server/src/users/signin-methods/totp/totp.js';
import { startOpenIdProvider } from '../../server/test/helpers/oidc-provider.js';
import { receiver } from '../../server/test/helpers/webhook-receiver.js';
import {
  assertNoPageErrors,
  BUNDLE_PAGE,
  launchBrowser,
  openPage,
  withSlowUploads,
  type BundleGlobals,
  type TestPage,
} from './helpers/pages.js';
import {
  documentedOperations,
  PASSKEY_OPERATIONS,
  passwordFromMail,
  PASSWORD,
  startRoost,
  tokenFromMail,
  type TestServer,
} from './helpers/roost.js';

/**
 * The browser bundle Roost serves (`/static/roost-client.js`), loaded by a plain
 * `<script type="module">` in chromium on Roost's origin: every operation of every service,
 * cookie mode with `credentials`, an upload with progress events (XMLHttpRequest), downloads,
 * and failures.
 */

type PageGlobals = BundleGlobals;
type Roost = BundleGlobals['roost'];

const UPLOAD_BYTES = 3 * 1024 * 1024;

describe('the served browser bundle in chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let tp: TestPage;
  let adminToken: string;
  let gateway: Awaited<ReturnType<typeof receiver>>;

  before(async () => {
    gateway = await receiver();
    s = await startRoost({ maxFileBytes: 4 * 1024 * 1024, smsGateway: gateway.url });
    adminToken = await s.adminToken();
    browser = await launchBrowser();
    tp = await openPage(browser, s.url, { html: BUNDLE_PAGE });
    await tp.page.waitForSelector('body[data-ready=yes]', { state: 'attached' });
  });
  after(async () => {
    await tp?.close();
    await browser?.close();
    await s?.close();
    await gateway?.close();
  });

  test('the bundle is ESM JavaScript with an ETag, and a plain module script loads it', async () => {
    const res = await fetch(`${s.url}/static/roost-client.js`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const etag = res.headers.get('etag') as string;
    assert.match(etag, /^"[\w-]{43}"$/);
    const code = await res.text();
    assert.match(code, /export\{/);
    assert.doesNotMatch(code, /\bimport\s*[{*]|\brequire\(/, 'the bundle has no imports left');
    assert.equal((await fetch(`${s.url}/static/roost-client.js`, { headers: { 'if-none-match': etag } })).status, 304);
    const exported = await tp.page.evaluate(() => Object.keys((window as unknown as PageGlobals).roost).sort());
    assert.deepEqual(exported, [
      'Collection',
      'CollectionsConnector',
      'DataStore',
      'FileStore',
      'PROTOCOL_RELEASE',
      'Realtime',
      'RoostError',
      'Users',
      'collection',
      'collections',
      'datastore',
      'filestore',
      'filter',
      'isRoostError',
      'realtime',
      'secondFactorChallenge',
      'users',
    ]);
  });

  test('cookie mode: signin sets the HttpOnly cookie every connector then sends; signout ends it', async () => {
    await s.grant('signupDirect', ['sys:everyone']);
    const result = await tp.page.evaluate(async (password) => {
      const { roost, track } = window as unknown as PageGlobals;
      const options = { credentials: 'same-origin' as const };
      const auth = roost.users({ ...options, ...track('users') });
      await auth.signupDirect('alice', 'alice@example.com', password, { realname: 'Alice Adams' });
      const anonymous = await auth.authenticated();
      await auth.signin('alice', password);
      const identity = await auth.identity();
      const data = roost.datastore('data', { ...options, ...track('data') });
      await data.newItem('color', 'blue');
      const item = await data.getItem('color');
      const files = roost.filestore('files', { ...options, ...track('files') });
      await files.newItem('', 'alice', { type: 'd' });
      // A plain link to the file works with the cookie too.
      await files.write('alice/note.txt', 'cookie note', { mime: 'text/plain' });
      const viaLink = await (await fetch(files.url('alice/note.txt'))).text();
      const cookieVisible = document.cookie.includes('auth=');
      await auth.signout();
      const after = await auth.authenticated();
      const refused = await data.getItem('color').then(
        () => null,
        (e: InstanceType<Roost['RoostError']>) => [e.status, e.code],
      );
      return {
        baseUrl: auth.options.baseUrl,
        anonymous: anonymous.result,
        name: identity.name,
        owner: item.owner,
        viaLink,
        cookieVisible,
        after: after.result,
        refused,
      };
    }, PASSWORD);
    assert.deepEqual(result, {
      baseUrl: s.url,
      anonymous: false,
      name: 'alice',
      owner: 'alice',
      viaLink: 'cookie note',
      cookieVisible: false,
      after: false,
      refused: [401, 'not_signed_in'],
    });
    // What the page stored is on the server.
    const alice = await s.createUser('alice2');
    assert.equal((await datastore('data', { baseUrl: s.url, token: alice }).getItem('color')).value, 'blue');
  });

  test('the user service: every operation, mailed tokens read by the test', async () => {
    await s.grant('signupOptin', ['sys:everyone']);
    await s.grant('signupReview', ['sys:everyone']);
    await s.grant('signupSendpw', ['sys:everyone']);
    await s.grant('signupUid', ['sys:everyone']);
    const page = tp.page;
    const first = await page.evaluate(
      async ({ password, adminToken }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const anyone = roost.users(track('users'));
        const admin = roost.users({ token: adminToken, ...track('users') });
        await anyone.ping();
        await anyone.challenge();
        await admin.getPermissions();
        await admin.setPermissions({ permission: 'message', groups: ['sys:authenticated'], action: 'replace' });
        await admin.setPermissions({ permission: 'signinAnonymous', groups: ['sys:everyone'], action: 'replace' });
        const guest = roost.users(track('users'));
        await guest.signinAnonymous();
        await guest.upgradeAnonymous('gail', password, { email: 'gail@example.com' });
        await anyone.signupOptin('olga', 'olga@example.com', password);
        await anyone.signupReview('rita', 'rita@example.com', password);
        await admin.review('rita', 'accept');
        await anyone.signupSendpw('sven', 'sven@example.com');
        const uid = await anyone.signupUid(password, 'uid@example.com');
        const bert = roost.users(track('users'));
        await anyone.signupDirect('bert', 'bert@example.com', password);
        const token = await bert.token('bert', password);
        const name = await bert.name();
        const profile = await bert.profile();
        const allowed = await bert.allowed(['profile', 'getUser']);
        const member = await bert.authenticated('admins');
        await bert.update({ realname: 'Bert B.', notify: true });
        await bert.updatePassword(password, 'bert-password-2');
        await admin.updateEmail('root@example.com');
        await bert.verifyEmail('bert@example.org');
        await bert.message('Hello from the browser');
        return {
          uid: uid.name.length,
          kept: bert.options.token === token.token,
          name,
          realname: profile.realname,
          allowed,
          member: member.result,
        };
      },
      { password: PASSWORD, adminToken },
    );
    assert.deepEqual(first, {
      uid: 30,
      kept: true,
      name: { name: 'bert', realname: '' },
      realname: '',
      allowed: { result: false, profile: true, getUser: false },
      member: false,
    });

    const tokens = {
      activation: tokenFromMail(await s.lastMail('olga@example.com')),
      verify: tokenFromMail(await s.lastMail('bert@example.org')),
      sendpw: passwordFromMail((await s.lastMail('sven@example.com')).text),
    };
    const second = await page.evaluate(
      async ({ password, adminToken, tokens }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const anyone = roost.users(track('users'));
        const admin = roost.users({ token: adminToken, ...track('users') });
        await anyone.activate(tokens.activation);
        await anyone.verifyEmail2(tokens.verify);
        const sven = roost.users(track('users'));
        await sven.token('sven', tokens.sendpw);
        await anyone.resetPassword('olga');
        const user = await admin.getUser('bert');
        await admin.setUser('bert', { groups: ['editors'] });
        const list = await admin.list({ search: 'bert' });
        const identities = await admin.identities({ name: 'olga' });
        await admin.removeUser('rita');
        const dora = roost.users(track('users'));
        await anyone.signupDirect('dora', 'dora@example.com', password);
        await dora.token('dora', password);
        await dora.disable();
        const dirk = roost.users(track('users'));
        await anyone.signupDirect('dirk', 'dirk@example.com', password);
        await dirk.token('dirk', password);
        await dirk.delete();
        await sven.signout();
        return {
          email: user.email,
          groups: list.users[0]?.groups,
          identities: identities.users.map((u) => u.name),
          forgotten: [dora.options.token, dirk.options.token, sven.options.token],
        };
      },
      { password: PASSWORD, adminToken, tokens },
    );
    assert.deepEqual(second, {
      email: 'bert@example.org',
      groups: ['editors'],
      identities: ['olga'],
      forgotten: [undefined, undefined, undefined],
    });

    const reset = tokenFromMail(await s.lastMail('olga@example.com'));
    await page.evaluate(async (token) => {
      const { roost, track } = window as unknown as PageGlobals;
      await roost.users(track('users')).resetPassword2(token, 'olga-password-2');
    }, reset);
    assert.match((await s.lastMail('postmaster@example.com')).text, /Hello from the browser/);
  });

  test('a data store: every operation', async () => {
    const token = await s.createUser('carol');
    const result = await tp.page.evaluate(
      async ({ token, adminToken }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const data = roost.datastore('data', { token, ...track('data') });
        const admin = roost.datastore('data', { token: adminToken, ...track('data') });
        await data.ping();
        await data.newItem([
          { key: 'c1', value: 1 },
          { key: 'c2', value: 'two' },
        ]);
        await data.setItem('c1', 10);
        const one = await data.getItem('c1');
        const page = await data.list({ owner: 'carol', sort: 'key', order: '>', size: 1, start: 2 });
        const keys = await data.keys({ owner: 'carol' });
        const owner = await data.getOwner('c2');
        const allowed = await data.allowed(['newItem', 'setOwner']);
        await admin.getPermissions();
        await admin.setPermissions({ permission: 'keys', groups: 'sys:everyone' });
        await admin.setOwner('admin', 'c2');
        const removed = await data.removeItem(['c1', 'missing']);
        return {
          value: one.value,
          page: [page.items.map((i) => i.key), page.total],
          keys: keys.keys,
          owner: owner.owner,
          allowed,
          removed: removed.result,
        };
      },
      { token, adminToken },
    );
    assert.deepEqual(result, {
      value: 10,
      page: [['c1'], 2],
      keys: ['c1', 'c2'],
      owner: 'carol',
      allowed: { result: false, newItem: true, setOwner: false },
      removed: 1,
    });
  });

  test('a file store: every operation; upload with progress (XHR); download as Blob, bytes, text, stream', async () => {
    const token = await s.createUser('dave');
    const result = await withSlowUploads(tp.page, 6 * 1024 * 1024, () =>
      tp.page.evaluate(
        async ({ token, adminToken, size }) => {
          const { roost, track } = window as unknown as PageGlobals;
          const files = roost.filestore('files', { token, ...track('files') });
          const admin = roost.filestore('files', { token: adminToken, ...track('files') });
          await files.ping();
          await files.newItem('', 'dave', { type: 'd' });
          const bytes = new Uint8Array(size);
          for (let i = 0; i < size; i++) bytes[i] = (i * 7) % 251;
          const events: { loaded: number; total: number | undefined }[] = [];
          await files.upload('dave/photo.bin', new Blob([bytes], { type: 'application/x-photo' }), {
            onProgress: (p) => events.push(p),
          });
          const through = performance
            .getEntriesByType('resource')
            .filter((e) => e.name.endsWith('/files/dave/photo.bin/@write'))
            .map((e) => (e as PerformanceResourceTiming).initiatorType);
          const entry = await files.getItem('dave/photo.bin');
          const blob = await files.read('dave/photo.bin', { as: 'blob' });
          const buffer = await files.read('dave/photo.bin', { start: 0, end: 9 });
          const stream = await files.read('dave/photo.bin', { as: 'stream' });
          let streamed = 0;
          for (const reader = stream.getReader(); ; ) {
            const { done, value } = await reader.read();
            if (done) break;
            streamed += value.byteLength;
          }
          await files.newItem('dave', 'hello.txt', { contents: 'hello' });
          await files.setItem('dave/hello.txt', { contents: 'hello again', cache: 'max-age=60' });
          const text = await files.read('dave/hello.txt', { as: 'text' });
          await files.move('dave/hello.txt', 'dave/renamed.txt');
          const listing = await files.list('dave', { sort: 'size' });
          const owner = await files.getOwner('dave/photo.bin');
          const allowed = await files.allowed(['write', 'setOwner'], 'dave/photo.bin');
          await admin.getPermissions();
          await admin.setPermissions({
            permission: 'list',
            groups: ['sys:authenticated', 'admins'],
            action: 'replace',
          });
          await admin.setOwner('dave/renamed.txt', 'admin');
          const removed = (await files.removeItem('dave', { recursive: true })).result;
          const digest = Array.from(
            new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer())),
            (b) => b.toString(16).padStart(2, '0'),
          ).join('');
          return {
            events: events.length,
            increasing: events.every((e, i) => i === 0 || e.loaded >= (events[i - 1]?.loaded ?? 0)),
            last: events.at(-1),
            through,
            entry: [entry.size, entry.mime],
            blob: [blob.size, blob.type],
            digest,
            head: Array.from(new Uint8Array(buffer)),
            streamed,
            text,
            listing: listing.items.map((e) => e.name),
            owner: owner.owner,
            allowed,
            removed,
          };
        },
        { token, adminToken, size: UPLOAD_BYTES },
      ),
    );
    const bytes = Buffer.alloc(UPLOAD_BYTES);
    for (let i = 0; i < UPLOAD_BYTES; i++) bytes[i] = (i * 7) % 251;
    assert.ok(result.events >= 3, `${result.events} progress events`);
    assert.equal(result.increasing, true);
    assert.deepEqual(result.last, { loaded: UPLOAD_BYTES, total: UPLOAD_BYTES });
    assert.deepEqual(result.through, ['xmlhttprequest']);
    assert.deepEqual(result.entry, [UPLOAD_BYTES, 'application/x-photo']);
    assert.deepEqual(result.blob, [UPLOAD_BYTES, 'application/x-photo']);
    assert.equal(result.digest, createHash('sha256').update(bytes).digest('hex'));
    assert.deepEqual(result.head, [...bytes.subarray(0, 10)]);
    assert.equal(result.streamed, UPLOAD_BYTES);
    assert.equal(result.text, 'hello again');
    assert.deepEqual(result.listing, ['renamed.txt', 'photo.bin']);
    assert.equal(result.owner, 'dave');
    assert.deepEqual(result.allowed, { result: false, write: true, setOwner: false });
    // The directory and its two files; the check is on the directory, which dave owns.
    assert.equal(result.removed, 3);
    const check = filestore('files', { baseUrl: s.url, token });
    await assert.rejects(check.getItem('dave'), { code: 'not_found' });
  });

  test('failures in the browser: 401, 413 during an XHR upload, 200 with result false, a network error', async () => {
    const token = await s.createUser('erin');
    const result = await tp.page.evaluate(
      async ({ token }) => {
        const { roost } = window as unknown as PageGlobals;
        const summary = (e: unknown) => {
          const error = e as InstanceType<Roost['RoostError']>;
          return { guard: roost.isRoostError(e), status: error.status, code: error.code, fields: error.fields };
        };
        const fail = (promise: Promise<unknown>) => promise.then(() => null, summary);
        const files = roost.filestore('files', { token });
        const progress: number[] = [];
        return {
          anonymous: await fail(roost.users({ credentials: 'omit' }).profile()),
          tooLarge: await fail(
            files.upload('big.bin', new Blob([new Uint8Array(5 * 1024 * 1024)]), {
              onProgress: (p) => progress.push(p.loaded),
            }),
          ),
          validation: await fail(roost.users({ token }).update({ data: 'x'.repeat(10_001) })),
          network: await fail(roost.users({ baseUrl: 'http://127.0.0.1:9' }).ping()),
        };
      },
      { token },
    );
    assert.deepEqual(result, {
      anonymous: { guard: true, status: 401, code: 'not_signed_in', fields: [] },
      tooLarge: { guard: true, status: 413, code: 'storage_limit', fields: [] },
      validation: { guard: true, status: 200, code: 'validation_failure', fields: [['data', 'too long']] },
      network: { guard: true, status: 0, code: 'network_error', fields: [] },
    });
    await assert.rejects(datastore('data', { baseUrl: s.url, token }).getItem('big.bin'), { status: 404 });
  });

  test('the second factor, sessions and sign-in by mail through the bundle', async () => {
    const token = await s.createUser('tia');
    const page = tp.page;
    const secret = await page.evaluate(async (token) => {
      const { roost, track } = window as unknown as PageGlobals;
      return (await roost.users({ token, ...track('users') }).totpEnrol()).secret;
    }, token);
    const code = totpCode(secret, Date.now());
    await s.grant('signinMail', ['sys:everyone']);
    const done = await page.evaluate(
      async ({ token, code, password, adminToken }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const tia = roost.users({ token, ...track('users') });
        const admin = roost.users({ token: adminToken, ...track('users') });
        const { recoveryCodes } = await tia.totpConfirm(code, password);
        const phone = roost.users(track('users'));
        const step = await phone.token('tia', password).catch((e: unknown) => roost.secondFactorChallenge(e));
        if (!step || !('challenge' in step)) throw new Error('no challenge');
        await phone.token2(step.challenge, { recoveryCode: recoveryCodes[0] as string });
        // Cookie mode, then signed out again so the page's cookie does not outlive the test.
        const cookie = roost.users({ credentials: 'same-origin', ...track('users') });
        const viaCookie = await cookie.signin('tia', password).catch((e: unknown) => roost.secondFactorChallenge(e));
        if (!viaCookie || !('challenge' in viaCookie)) throw new Error('no challenge');
        await cookie.signin2(viaCookie.challenge, { recoveryCode: recoveryCodes[1] as string });
        await cookie.signout();
        const listed = (await tia.sessions()).sessions;
        await tia.revokeSession(listed.find((x) => !x.current)?.id as string);
        await tia.revokeOtherSessions();
        await tia.recoveryCodes({ password });
        const state = await tia.secondFactor();
        await tia.totpRemove({ password });
        const factors = await admin.userFactors('tia');
        await admin.resetSecondFactor('tia');
        const sessions = (await admin.userSessions('tia')).sessions.length;
        await roost.users(track('users')).signinMail('tia');
        return { state, factors: factors.totp, sessions };
      },
      { token, code, password: PASSWORD, adminToken },
    );
    assert.deepEqual(done, {
      state: { result: true, totp: true, recoveryCodes: 10, required: false, providers: [], passkeys: 0, sms: false },
      factors: false,
      sessions: 1,
    });
    const mailed = /sign-in code is (\d{6})/.exec((await s.lastMail('tia@example.com')).text)?.[1] as string;
    const ended = await page.evaluate(
      async ({ mailed, adminToken }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const tia = roost.users(track('users'));
        await tia.signinMail2({ identity: 'tia', code: mailed });
        const before = (await tia.identity()).name;
        await roost.users({ token: adminToken, ...track('users') }).revokeUserSessions('tia');
        const after = await tia.identity().catch((e: { status: number }) => e.status);
        return { before, after };
      },
      { mailed, adminToken },
    );
    assert.deepEqual(ended, { before: 'tia', after: 401 });
  });

  test('codes by SMS through the bundle, the texts read from a local gateway', async () => {
    const token = await s.createUser('sol');
    const page = tp.page;
    /** The code of the newest text the gateway got. */
    const lastCode = async () => {
      await s.roost.mailQueue.idle();
      return /\d{6}/.exec(JSON.parse(gateway.received.at(-1)?.body ?? '{}').text)?.[0] as string;
    };
    const added = await page.evaluate(
      async ({ token, password }) => {
        const { roost, track } = window as unknown as PageGlobals;
        return (await roost.users({ token, ...track('users') }).smsAdd('+33 6 12 34 56 78', { password })).phone;
      },
      { token, password: PASSWORD },
    );
    assert.equal(added, '+33612345678');
    await s.grant('smsSignin', ['sys:everyone']);
    const confirmed = await page.evaluate(
      async ({ token, code, password }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const sol = roost.users({ token, ...track('users') });
        await sol.smsConfirm(code);
        const phone = (await sol.smsPhone()).phone;
        const device = roost.users(track('users'));
        const step = await device.token('sol', password).catch((e: unknown) => roost.secondFactorChallenge(e));
        if (!step || !('challenge' in step)) throw new Error('no challenge');
        await device.smsChallenge(step.challenge);
        return { phone, challenge: step.challenge };
      },
      { token, code: await lastCode(), password: PASSWORD },
    );
    assert.equal(confirmed.phone, '+33612345678');
    const signed = await page.evaluate(
      async ({ challenge, code }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const device = roost.users(track('users'));
        await device.token2(challenge, { smsCode: code });
        await roost.users(track('users')).smsSignin('+33612345678');
        return (await device.identity()).name;
      },
      { challenge: confirmed.challenge, code: await lastCode() },
    );
    assert.equal(signed, 'sol');
    const removed = await page.evaluate(
      async ({ token, code, password }) => {
        const { roost, track } = window as unknown as PageGlobals;
        const guest = roost.users(track('users'));
        await guest.smsSignin2('+33612345678', code);
        const name = (await guest.identity()).name;
        await roost.users({ token, ...track('users') }).smsRemove({ password });
        return name;
      },
      { token, code: await lastCode(), password: PASSWORD },
    );
    assert.equal(removed, 'sol');
  });

  test('provider sign-in: the start address from the bundle, the provider in chromium, the grant traded', async () => {
    const op = await startOpenIdProvider([`${s.url}/users/providers/corp/callback`]);
    try {
      const provider = {
        id: 'corp',
        kind: 'oidc',
        issuer: op.issuer,
        clientId: op.clientId,
        clientSecret: op.clientSecret,
      };
      await s.roost.settings.change({ providers: [provider], providerRedirects: [`${s.url}/app/`] }, 'test');
      await s.grant('signupDirect', ['sys:everyone']);
      const start = await tp.page.evaluate((app) => {
        const { roost, track } = window as unknown as PageGlobals;
        return roost.users(track('users')).providerSigninUrl('corp', app);
      }, `${s.url}/app/home`);
      // The provider's own login and consent pages, in a tab of the same browser.
      const visitor = await tp.page.context().newPage();
      await visitor.goto(start);
      await visitor.fill('input[name="login"]', 'kim');
      await visitor.fill('input[name="password"]', 'anything');
      await visitor.click('button[type="submit"]');
      await visitor.click('button[type="submit"]');
      await visitor.waitForURL(`${s.url}/app/home?**`);
      const back = visitor.url();
      await visitor.close();
      const done = await tp.page.evaluate(async (back) => {
        const { roost, track } = window as unknown as PageGlobals;
        const kim = roost.users(track('users'));
        await kim.completeProviderSignin(back);
        const name = (await kim.identity()).name;
        const providers = (await kim.providers()).providers.map((p) => p.id);
        const links = (await kim.providerLinks()).providers.map((l) => l.email);
        // A session alone does not unlink: the password again (kim's is the random one of a provider sign-up).
        const unlink = await kim
          .unlinkProvider('corp', { password: 'not-hers' })
          .catch((e: { code: string }) => e.code);
        return { name, providers, links, unlink };
      }, back);
      assert.deepEqual(done, {
        name: 'kim',
        providers: ['corp'],
        links: ['kim@example.com'],
        unlink: 'validation_failure',
      });
      // With a password of its own (set by an administrator, which ends its sessions), kim unlinks.
      await s.users('setUser', { identity: 'kim', values: { password: PASSWORD } }, { token: await s.adminToken() });
      const unlinked = await tp.page.evaluate(async (password) => {
        const { roost, track } = window as unknown as PageGlobals;
        const kim = roost.users(track('users'));
        await kim.token('kim', password);
        return kim.unlinkProvider('corp', { password });
      }, PASSWORD);
      assert.deepEqual(unlinked, { result: true });
    } finally {
      await s.grant('signupDirect', ['sys:noone']);
      await s.roost.settings.change({ providers: [], providerRedirects: [] }, 'test');
      await op.close();
    }
  });

  test('every operation of every service was called through the served bundle', async () => {
    const called = new Set(await tp.page.evaluate(() => (window as unknown as PageGlobals).called));
    const missing = [
      // The passkey operations need an authenticator on a host name: browser-passkeys.test.ts;
      // an ID token comes from a provider's sign-in on a device: server/test/http/id-token-signin.test.ts.
      ...documentedOperations('users')
        .filter((op) => !PASSKEY_OPERATIONS.includes(op) && op !== 'signinIdToken')
        .map((op) => `users.${op}`),
      ...documentedOperations('datastore').map((op) => `data.${op}`),
      ...documentedOperations('filestore').map((op) => `files.${op}`),
    ].filter((op) => !called.has(op));
    assert.deepEqual(missing, []);
    assertNoPageErrors(tp);
  });
});
