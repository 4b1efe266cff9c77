import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { collections, datastore, filestore, users } from '../../src/index.js';
import type { Collections } from '../fixtures/roost-types.js';
import { totpCode } from '../../../server/src/users/signin-methods/totp/totp.js';
import {
  assertNoPageErrors,
  bundlePage,
  launchBrowser,
  openPage,
  screenshot,
  withSlowUploads,
  type TestPage,
} from './pages.js';
import { PASSWORD, startRoost, type TestServer } from './roost.js';

/**
 * The bindings' page, the same for React (`pages/react-app.ts`) and Vue (`pages/vue-app.ts`):
 * one panel per hook or composable (useUser twice, useItem, useList, useUpload), served from
 * Roost's origin and driven like a user would, against a real server.
 */
export function describeBindingsPage(framework: 'React' | 'Vue', entry: URL): void {
  describe(`${framework} bindings in chromium`, () => {
    let s: TestServer;
    let browser: Browser;
    let tp: TestPage;
    let page: Page;
    let aliceToken: string;

    before(async () => {
      s = await startRoost({ maxFileBytes: 4 * 1024 * 1024 });
      aliceToken = await s.createUser('alice');
      const data = datastore('data', { baseUrl: s.url, token: aliceToken });
      await data.newItem(['a', 'b', 'c', 'd', 'e'].map((key) => ({ key: `list-${key}`, value: key })));
      await data.newItem('note-2', 'second note');
      await filestore('files', { baseUrl: s.url, token: aliceToken }).newItem('', 'uploads', { type: 'd' });
      await filestore('files', { baseUrl: s.url, token: aliceToken }).newItem('', 'live', { type: 'd' });
      await datastore('data', { baseUrl: s.url, token: await s.createUser('bob') }).newItem('bob-note', 'from bob');
      const [script] = await Promise.all([bundlePage(entry), (async () => (browser = await launchBrowser()))()]);
      tp = await openPage(browser, s.url, { script });
      page = tp.page;
    });
    after(async () => {
      await tp?.close();
      await browser?.close();
      await s?.close();
    });

    const text = (id: string) => page.getByTestId(id);

    test('useUser: anonymous, a failed sign-in shows the error, then signed in (in every view)', async () => {
      await assert.doesNotReject(text('user').filter({ hasText: 'anonymous' }).waitFor());
      await page.getByLabel('identity').fill('alice');
      await page.getByLabel('password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await text('user-error').filter({ hasText: '401 invalid_credentials' }).waitFor();
      await page.getByLabel('password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await text('user').filter({ hasText: 'signed in as alice' }).waitFor();
      await text('greeting').filter({ hasText: 'Hello, alice' }).waitFor();
      assert.equal(await text('user-error').count(), 0, 'the error went with the successful sign-in');
    });

    test('useItem: none yet, save (stored on the server), switch keys, remove', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      // Signed in now: the item panel asks again when its key changes.
      await page.getByLabel('key').selectOption('note-2');
      await text('item').filter({ hasText: 'note-2 = second note (alice)' }).waitFor();
      await page.getByLabel('key').selectOption('note-1');
      await text('item').filter({ hasText: 'note-1: none' }).waitFor();
      await page.getByLabel('value').fill(`written in ${framework}`);
      await page.getByRole('button', { name: 'Save' }).click();
      await text('item')
        .filter({ hasText: `note-1 = written in ${framework} (alice)` })
        .waitFor();
      const data = datastore('data', { baseUrl: s.url, token: aliceToken });
      assert.equal((await data.getItem('note-1')).value, `written in ${framework}`);
      await page.getByRole('button', { name: 'Remove' }).click();
      await text('item').filter({ hasText: 'note-1: none' }).waitFor();
      await assert.rejects(data.getItem('note-1'), { code: 'item_not_found' });
    });

    test('useList: pages of two, next and previous; a changed query starts again', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await text('list').filter({ hasText: 'page 1 of 4, 7 items: bob-note, list-a' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await text('list').filter({ hasText: 'page 2 of 4, 7 items: list-b, list-c' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await text('list').filter({ hasText: 'page 3 of 4, 7 items: list-d, list-e' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await text('list').filter({ hasText: 'page 4 of 4, 7 items: note-2' }).waitFor();
      // Past the last page Next stays there.
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Previous' }).click();
      await text('list').filter({ hasText: 'page 3 of 4, 7 items: list-d, list-e' }).waitFor();
      // A new owner filter starts again at page 1 (Vue: the query is a getter).
      await page.getByRole('button', { name: 'Only bob' }).click();
      await text('list').filter({ hasText: 'page 1 of 1, 1 items: bob-note' }).waitFor();
      await page.getByRole('button', { name: 'Only bob' }).click();
      await text('list').filter({ hasText: 'page 1 of 4, 7 items: bob-note, list-a' }).waitFor();
    });

    test('live: the item, the list and the directory follow changes made elsewhere, asking nothing', async () => {
      await page.getByRole('button', { name: 'Go live' }).click();
      await text('live-item').filter({ hasText: 'live-note: none' }).waitFor();
      await text('live-list').filter({ hasText: 'page 1 of 1, 0 notes' }).waitFor();
      await text('live-dir').filter({ hasText: '0 entries' }).waitFor();
      // Writes by another program: the page hears of them on its one stream.
      const data = datastore('data', { baseUrl: s.url, token: aliceToken });
      const notes = datastore('notes', { baseUrl: s.url, token: aliceToken });
      const files = filestore('files', { baseUrl: s.url, token: aliceToken });
      await data.setItem('live-note', 'hello');
      await text('live-item').filter({ hasText: 'live-note = hello' }).waitFor();
      await data.setItem('live-note', 'hello again');
      await text('live-item').filter({ hasText: 'live-note = hello again' }).waitFor();
      await notes.newItem([
        { key: 'n1', value: 1 },
        { key: 'n2', value: 2 },
      ]);
      await notes.newItem('n0', 0);
      await text('live-list').filter({ hasText: 'page 1 of 2, 3 notes: n0, n1' }).waitFor();
      await files.newItem('live', 'a.txt', { contents: 'a' });
      await text('live-dir').filter({ hasText: '1 entries: a.txt' }).waitFor();
      await data.removeItem('live-note');
      await text('live-item').filter({ hasText: 'live-note: none' }).waitFor();
      await files.removeItem('live/a.txt');
      await text('live-dir').filter({ hasText: '0 entries' }).waitFor();
    });

    test('useRecords and useRecord: pages, then each change applied as it happens (only the total asked)', async () => {
      const posts = collections<Collections>({ baseUrl: s.url, token: aliceToken }).collection('posts');
      const [a, b, c] = await Promise.all(
        [1, 3, 2].map((priority, i) => posts.create({ title: 'ABC'[i] as string, priority, tags: ['board'] })),
      );
      assert.ok(a && b && c);
      await page.getByRole('button', { name: 'Show posts' }).click();
      const records = text('records');
      await records.filter({ hasText: '3 posts: B:3, C:2 …' }).waitFor();
      await page.getByRole('button', { name: 'Load more' }).click();
      await records.filter({ hasText: /^3 posts: B:3, C:2, A:1$/ }).waitFor();
      // Changes by another program: created, moved up, left the filter, deleted. The page asks
      // for no records again: only for the total (a page of one), which only the server knows.
      const asked: string[] = [];
      const listed = (request: { url(): string }) => {
        const url = new URL(request.url());
        if (url.pathname === '/api/collections/posts/records') asked.push(url.searchParams.get('perPage') ?? '');
      };
      page.on('request', listed);
      const d = await posts.create({ title: 'D', priority: 5, tags: ['board'] });
      await records.filter({ hasText: /^4 posts: D:5, B:3, C:2, A:1$/ }).waitFor();
      await posts.update(a.id, { priority: 4 });
      await records.filter({ hasText: /^4 posts: D:5, A:4, B:3, C:2$/ }).waitFor();
      await posts.update(b.id, { tags: ['elsewhere'] });
      await records.filter({ hasText: /^3 posts: D:5, A:4, C:2$/ }).waitFor();
      await posts.delete(c.id);
      await records.filter({ hasText: /^2 posts: D:5, A:4$/ }).waitFor();
      page.off('request', listed);
      assert.ok(asked.length > 0 && asked.every((perPage) => perPage === '1'), asked.join(' '));

      // One record: shown, changed elsewhere, changed and deleted from the page.
      await page.getByLabel('record id').fill(d.id);
      const record = text('record');
      await record.filter({ hasText: 'D (open)' }).waitFor();
      await posts.update(d.id, { status: 'closed' });
      await record.filter({ hasText: 'D (closed)' }).waitFor();
      await page.getByRole('button', { name: 'No priority' }).click();
      await records.filter({ hasText: /^2 posts: A:4, D:0$/ }).waitFor();
      await page.getByRole('button', { name: 'Delete record' }).click();
      await record.filter({ hasText: 'none' }).waitFor();
      await records.filter({ hasText: /^1 posts: A:4$/ }).waitFor();
      await assert.rejects(posts.get(d.id), { code: 'record_not_found' });
      // An id that is no record's: none, and the failure says why.
      await page.getByLabel('record id').fill('not-an-id');
      await text('record-error').filter({ hasText: '422 validation_failure' }).waitFor();
      assertNoPageErrors(tp);
    });

    test('useUpload: a file chosen in the page is uploaded with progress and stored', async () => {
      const size = 2 * 1024 * 1024;
      const buffer = Buffer.alloc(size, 7);
      await withSlowUploads(page, 4 * 1024 * 1024, async () => {
        await page.getByLabel('file').setInputFiles({ name: 'photo.bin', mimeType: 'application/x-photo', buffer });
        await text('upload').filter({ hasText: 'uploading' }).waitFor();
        await text('upload')
          .filter({ hasText: `done: uploads/photo.bin, ${size} of ${size} bytes` })
          .waitFor();
      });
      const seen = (await text('upload-seen').textContent())?.split(' ').map(Number) ?? [];
      assert.equal(seen[0], 0);
      assert.equal(seen.at(-1), size);
      assert.ok(seen.length >= 4, `progress seen: ${seen.join(' ')}`);
      assert.ok(
        seen.every((n, i) => i === 0 || n > (seen[i - 1] as number)),
        seen.join(' '),
      );
      const entry = await filestore('files', { baseUrl: s.url, token: aliceToken }).getItem('uploads/photo.bin');
      assert.deepEqual([entry.size, entry.mime], [size, 'application/x-photo']);
      await screenshot(page, 'client', `${framework.toLowerCase()}-bindings`);
    });

    test('signing out shows in every view; the item panel then reports 401', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await text('user').filter({ hasText: 'anonymous' }).waitFor();
      await text('greeting').filter({ hasText: 'Hello, guest' }).waitFor();
      await page.getByLabel('key').selectOption('note-2');
      await text('item-error').filter({ hasText: '401 not_signed_in' }).waitFor();
      assertNoPageErrors(tp);
    });

    test('useUser, second factor: the challenge, a wrong code, the right one; enrolment on the page', async () => {
      const token = await s.createUser('cleo');
      const cleo = users({ baseUrl: s.url, token });
      const { secret } = await cleo.totpEnrol();
      await cleo.totpConfirm(totpCode(secret, Date.now()), PASSWORD);
      await page.getByLabel('identity').fill('cleo');
      await page.getByLabel('password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await text('user-challenge').filter({ hasText: 'enter your code' }).waitFor();
      const right = totpCode(secret, Date.now() + 30_000);
      await page.getByLabel('code').fill(right === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await text('user-error').filter({ hasText: '401 invalid_code' }).waitFor();
      await page.getByLabel('code').fill(right);
      await page.getByRole('button', { name: 'Verify' }).click();
      await text('user').filter({ hasText: 'signed in as cleo' }).waitFor();
      assert.equal(await text('user-challenge').count(), 0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await text('user').filter({ hasText: 'anonymous' }).waitFor();

      // A group that must have a factor: set up in the page, then the recovery codes once.
      await s.createUser('otto', { groups: ['ops'] });
      await s.roost.settings.change({ secondFactorGroups: ['ops'] }, 'test');
      await page.getByLabel('identity').fill('otto');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await text('user-challenge').filter({ hasText: 'set up an authenticator' }).waitFor();
      await page.getByRole('button', { name: 'Set up' }).click();
      const key = (await text('user-setup').textContent()) ?? '';
      await page.getByLabel('code').fill(totpCode(key, Date.now()));
      await page.getByRole('button', { name: 'Verify' }).click();
      await text('user').filter({ hasText: 'signed in as otto' }).waitFor();
      await text('user-recovery').filter({ hasText: '10 recovery codes' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await text('user').filter({ hasText: 'anonymous' }).waitFor();
      assertNoPageErrors(tp);
    });
  });
}
