import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/test-server.js';

/** A mistyped backend address answers a page; the pages' icon is served (admin/index.ts). */
test('an unknown /admin path answers a page with a way back, the API keeps its JSON; the icon is there', async () => {
  const s = await startServer();
  try {
    for (const path of ['/admin/nope', '/admin/users/x/y/z', '/admin/%3Cscript%3E']) {
      const res = await fetch(s.url + path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const html = await res.text();
      assert.match(html, /no such page in the management backend/);
      assert.match(html, /href="\/admin"/);
      assert.doesNotMatch(html, /<script>/);
    }
    const api = await fetch(`${s.url}/no/such/route`);
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { result: boolean }).result, false);
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const icon = await fetch(s.url + path);
      assert.equal(icon.status, 200);
      assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
      assert.match(await icon.text(), /^<svg /);
    }
    assert.match(await (await fetch(`${s.url}/admin/signin`)).text(), /<link rel="icon" href="\/favicon.svg"/);
  } finally {
    await s.close();
  }
});
