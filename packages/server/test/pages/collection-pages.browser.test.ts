import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { laptopAndPhonePages, launchBrowser, screenshot } from '../helpers/browser.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Issue 39, item 7: an administrator walks the collection pages in Debian's chromium. Makes a
 * collection in the schema editor, adds records by the form made from its schema (a relation
 * picked from its list, a file uploaded into the file store, the validator's refusal at its
 * field), filters, sorts and pages the table, chooses its columns, deletes two records at once,
 * sees a schema change refused with the records named, exports the schema and the records as
 * CSV, and imports a file with one bad row to its report. Pages are photographed on a laptop and a
 * phone (test-artifacts/collections/). Browser suites run in the SQLite pass only: the pages call
 * the service the HTTP tests cover on both databases.
 */
const SUITE = 'collections';
const skip = process.env.ROOST_TEST_DIALECT === 'postgres' ? 'browser suites run in the SQLite pass' : false;

const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    priority: { type: 'integer', minimum: 0, maximum: 5 },
    status: { enum: ['open', 'closed'], default: 'open' },
    done: { type: 'boolean' },
    due: { type: 'string', format: 'date-time' },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    assignee: { type: 'string', 'x-relation': 'users' },
    attachment: { type: 'string', 'x-file': 'files' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title'],
};

const PLAN = { name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('the plan') };

describe('admin collection pages in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let phonePage: Page;
  let token: string;
  let aliceId: string;
  const dialogs: string[] = [];
  const records = '/api/collections/tasks/records';
  /** Opens the filter's `<details>` (open already when the table is filtered). */
  const openFilter = () => page.locator('details.card').evaluate((d) => ((d as HTMLDetailsElement).open = true));
  const cells = (column: number) => page.locator(`table.records tbody tr td:nth-child(${column})`).allInnerTexts();

  /** The laptop page as it is, and (unless `laptopOnly`) the same url on the phone. */
  async function shoot(name: string, laptopOnly = false): Promise<void> {
    await screenshot(page, SUITE, `${name}-laptop`);
    if (laptopOnly) return;
    await phonePage.goto(page.url());
    await screenshot(phonePage, SUITE, `${name}-phone`);
  }

  before(async () => {
    s = await startServer({ fileStores: { files: { maxFileBytes: 1024 * 1024 } } });
    token = await s.adminToken();
    await s.createUser('alice');
    aliceId = (await s.users('getUser', { identity: 'alice' }, { token })).body.id;
    browser = await launchBrowser();
    // A page that ran script from a record's text would open a dialog.
    ({ page, phonePage } = await laptopAndPhonePages(browser, s.url, 'admin', PASSWORD, dialogs));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('make a collection in the schema editor, export its schema', async () => {
    await page.goto('/admin/collections');
    await page.getByRole('link', { name: 'New collection' }).click();
    await page.fill('#schema-form-name', 'tasks');
    await page.fill('#schema-form-schema', JSON.stringify(SCHEMA, null, 2));
    await page.selectOption('#schema-form-list_who', 'rule');
    await page.fill('#schema-form-list_rule', 'owner = @request.auth.id');
    await page.selectOption('#schema-form-view_who', 'anyone');
    await shoot('new-collection', true);
    await page.click('#schema-formsave\\$');
    await page.waitForURL(/\/admin\/collections\/tasks\/schema$/);
    assert.match(await page.locator('.messages').innerText(), /Collection “tasks” created/);
    const made = await s.request('/api/collections/tasks', undefined, { token });
    assert.deepEqual(made.body.schema, SCHEMA);
    assert.deepEqual(made.body.rules, {
      list: 'owner = @request.auth.id',
      view: '',
      create: null,
      update: null,
      delete: null,
    });
    assert.match(await page.locator('table').last().innerText(), /1\s+admin/);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export the JSON Schema' }).click();
    const file = await (await download).path();
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), SCHEMA);
    await shoot('schema');
    await page.goto('/admin/collections');
    assert.match(await page.locator('table').innerText(), /tasks\s+0\s+10\s+1/);
  });

  test('add records by the form: a relation from its list, a file upload, the validator at its field', async () => {
    await page.goto('/admin/collections/tasks');
    await page.getByRole('link', { name: 'New record' }).click();
    await shoot('new-record');
    const offered = await page
      .locator('#record-form-assignee-choices option')
      .evaluateAll((options) => options.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
    assert.ok(
      offered.some(([id, name]) => id === aliceId && name === 'alice'),
      JSON.stringify(offered),
    );
    await page.fill('#record-form-title', 'Fix the <b>roof</b>');
    await page.fill('#record-form-code', 'abc');
    await page.fill('#record-form-priority', '4');
    await page.selectOption('#record-form-status', 'closed');
    await page.fill('#record-form-due', '2026-03-04T05:06:07');
    await page.fill('#record-form-address-city', 'Oslo');
    await page.fill('#record-form-assignee', aliceId);
    await page.fill('#record-form-tags', 'roof\nurgent');
    await page.setInputFiles('#record-form-attachment-upload', PLAN);
    await page.click('#record-formsave\\$');
    // The record validator's refusal, at the field it names; nothing stored.
    await page.locator('#item-code .invalid-feedback').waitFor();
    assert.match(await page.locator('#item-code').innerText(), /must match pattern/);
    assert.equal((await s.request(`${records}?total=1`, undefined, { token })).body.total, 0);
    await page.fill('#record-form-code', 'ABC');
    await page.setInputFiles('#record-form-attachment-upload', PLAN);
    await page.click('#record-formsave\\$');
    await page.waitForURL(/\/admin\/collections\/tasks\/records\/[0-9a-f-]+$/);
    assert.match(await page.locator('.messages').innerText(), /created/);
    await shoot('record');
    const id = page.url().split('/').pop() ?? '';
    const stored = (await s.request(`${records}/${id}`, undefined, { token })).body;
    assert.equal(stored.title, 'Fix the <b>roof</b>');
    assert.equal(stored.priority, 4);
    assert.equal(stored.status, 'closed');
    assert.equal(stored.due, '2026-03-04T05:06:07Z');
    assert.deepEqual(stored.address, { city: 'Oslo' });
    assert.equal(stored.assignee, aliceId);
    assert.deepEqual(stored.tags, ['roof', 'urgent']);
    assert.match(stored.attachment, /^tasks\/[0-9a-f]{8}-plan\.txt$/);
    const file = await fetch(`${s.url}/files/${stored.attachment}`, { headers: { 'x-auth-token': token } });
    assert.equal(await file.text(), 'the plan');

    // Edit: the form shows the record; a change is saved as the whole record.
    assert.equal(await page.inputValue('#record-form-address-city'), 'Oslo');
    await page.fill('#record-form-priority', '2');
    await page.fill('#record-form-tags', '');
    await page.click('#record-formsave\\$');
    // The same url again, after the redirect: the flashed message tells the pages apart.
    await page.locator('.messages', { hasText: 'saved' }).waitFor();
    const changed = (await s.request(`${records}/${id}`, undefined, { token })).body;
    assert.equal(changed.priority, 2);
    assert.equal(changed.tags, undefined);
    assert.equal(changed.attachment, stored.attachment);
  });

  test('filter, sort by a header both ways, choose columns, page, delete two at once', async () => {
    const operations = Array.from({ length: 30 }, (_, i) => ({
      collection: 'tasks',
      action: 'create',
      data: { title: `task ${String(i).padStart(2, '0')}`, priority: i % 6 },
    }));
    assert.equal((await s.request('/api/collections/batch', { operations }, { token })).status, 200);
    await page.goto('/admin/collections/tasks');
    await shoot('records');
    await openFilter();
    await page.fill('#filter-filter', 'priority >= 4 && title ~ "task"');
    await Promise.all([page.waitForURL(/filter=/), page.click('#filtershow\\$')]);
    assert.match(await page.locator('.pager').first().innerText(), /10 records match the filter/);
    await Promise.all([
      page.waitForURL(/sort=priority/),
      page.getByRole('link', { name: 'priority', exact: true }).click(),
    ]);
    const titleColumn = 6;
    const priorityColumn = 8;
    assert.deepEqual(await cells(priorityColumn), ['4', '4', '4', '4', '4', '5', '5', '5', '5', '5']);
    await Promise.all([page.waitForURL(/sort=-priority/), page.getByRole('link', { name: 'priority ▲' }).click()]);
    assert.deepEqual((await cells(priorityColumn)).slice(0, 2), ['5', '5']);
    assert.ok(page.url().includes('sort=-priority'));
    await shoot('records-sorted', true);

    // Columns: only title and priority.
    await openFilter();
    for (const column of ['id', 'created', 'updated', 'owner', 'code', 'status', 'done', 'due', 'address'])
      await page.uncheck(`#filter-cols input[value="${column}"]`);
    for (const column of ['assignee', 'attachment', 'tags'])
      await page.uncheck(`#filter-cols input[value="${column}"]`);
    await Promise.all([page.waitForURL(/cols=title/), page.click('#filtershow\\$')]);
    assert.deepEqual(await page.locator('table.records thead th').allInnerTexts(), ['Select', 'title', 'priority ▼']);

    // A bad filter is said, not a failure.
    await openFilter();
    await page.fill('#filter-filter', 'priority ~ 1');
    await page.click('#filtershow\\$');
    await page.locator('.messages.error').waitFor();
    assert.match(await page.locator('.messages.error').innerText(), /does not apply/);

    // Paging by the cursor: 31 records, 25 a page.
    await page.goto('/admin/collections/tasks?sort=title');
    assert.equal((await cells(titleColumn)).length, 25);
    await Promise.all([page.waitForURL(/cursor=/), page.getByRole('link', { name: 'Next →' }).first().click()]);
    const second = await cells(titleColumn);
    assert.equal(second.length, 6);
    await Promise.all([
      page.waitForURL((url) => !url.search.includes('cursor')),
      page.getByRole('link', { name: '← First page' }).first().click(),
    ]);

    // Bulk delete: two checked, asked, deleted.
    const before = (await s.request(`${records}?total=1`, undefined, { token })).body.total;
    const boxes = page.locator('table.records tbody input[type=checkbox]');
    const chosen = [await boxes.nth(0).getAttribute('value'), await boxes.nth(1).getAttribute('value')];
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    // With the script the button counts the checked rows (admin/list-script.ts).
    await page.getByRole('button', { name: 'Delete the selected records (2)…' }).click();
    await page.waitForURL(/\/admin\/collections\/tasks\/delete$/);
    assert.equal(await page.getByRole('heading', { name: 'Delete 2 records?' }).count(), 1);
    assert.match(await page.locator('.card.confirm').innerText(), /cannot be undone: 2 records/);
    await shoot('bulk-delete', true);
    await page.getByRole('button', { name: 'Delete 2 records' }).click();
    await page.waitForURL(/\/admin\/collections\/tasks$/);
    assert.match(await page.locator('.messages').innerText(), /2 records deleted/);
    assert.equal((await s.request(`${records}?total=1`, undefined, { token })).body.total, before - 2);
    for (const id of chosen) assert.equal((await s.request(`${records}/${id}`, undefined, { token })).status, 404);
  });

  test('a schema change the records would not fit is refused, the records named', async () => {
    const count = (await s.request(`${records}?total=1`, undefined, { token })).body.total;
    await page.goto('/admin/collections/tasks/schema');
    const stricter = structuredClone(SCHEMA) as typeof SCHEMA & { properties: Record<string, unknown> };
    stricter.properties.size = { type: 'integer' };
    stricter.required = ['title', 'size'];
    await page.fill('#schema-form-schema', JSON.stringify(stricter, null, 2));
    await page.click('#schema-formsave\\$');
    const refusal = page.locator('#refusal');
    await refusal.waitFor();
    assert.match(
      await refusal.innerText(),
      new RegExp(`${count} records would not fit the new schema; nothing was changed`),
    );
    assert.match(await refusal.innerText(), /the first 20 listed/);
    assert.equal(await refusal.locator('tbody tr').count(), 20);
    assert.match(await refusal.locator('tbody tr').first().innerText(), /size: required/);
    await shoot('schema-refused', true);
    await refusal.locator('tbody a').first().click();
    await page.waitForURL(/\/admin\/collections\/tasks\/records\//);
    assert.equal((await s.request('/api/collections/tasks', undefined, { token })).body.version, 1);
  });

  test('export as CSV, import a file with one bad row and read the report', async () => {
    await page.goto('/admin/collections/tasks');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'CSV', exact: true }).click();
    const csv = await readFile(await (await download).path(), 'utf8');
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
    assert.equal(rows.length, 29);
    assert.deepEqual(Object.keys(rows[0] ?? {}), [
      'id',
      'created',
      'updated',
      'owner',
      ...Object.keys(SCHEMA.properties),
    ]);

    await page.getByRole('link', { name: 'Import records' }).click();
    await shoot('import');
    const file =
      'title,priority,address,tags\nimported one,1,"{""city"":""Bergen""}","[""a""]"\nimported bad,9,,\n,2,,\n' +
      "'=imported formula,3,,\n";
    await page.setInputFiles('#import-form-file', {
      name: 'tasks.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(file),
    });
    await page.click('#import-formimport\\$');
    const report = page.locator('#import-report');
    assert.match(await report.innerText(), /Rows read\s+4/);
    assert.match(await report.innerText(), /Records created\s+2/);
    assert.match(await report.innerText(), /Rows rejected\s+2/);
    assert.deepEqual(await report.locator('tbody tr').allInnerTexts(), [
      '2\tpriority: must be <= 5',
      '3\ttitle: required',
    ]);
    await shoot('import-report', true);
    const imported = (
      await s.request(`${records}?filter=${encodeURIComponent('title ~ "imported"')}&sort=title`, undefined, { token })
    ).body.items;
    assert.deepEqual(
      imported.map((r: { title: string }) => r.title),
      ['=imported formula', 'imported one'],
    );
    assert.deepEqual(imported[1].address, { city: 'Bergen' });
    assert.deepEqual(imported[1].tags, ['a']);
    assert.deepEqual(dialogs, []);
  });
});
