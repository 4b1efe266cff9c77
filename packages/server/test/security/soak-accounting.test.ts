import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, useServer } from '../helpers/test-server.js';
import { newLedger, runSoak, verifySoak } from '../../../../bench/soak-load.js';

/**
 * The soak's accounting in miniature (`npm run soak` runs it for 2 minutes over 100
 * connections): a few seconds of the same mixed load, then every acknowledged write must read
 * back as written. No speed or memory is asserted here.
 */
const tokens: string[] = [];
const s = useServer();
before(async () => {
  for (let i = 0; i < 8; i++) tokens.push(await s.createUser(`soak${i}`, { password: PASSWORD }));
});

test('a short soak: no failed request, and every acknowledged item, file and profile change reads back', async () => {
  const ledger = await runSoak({ url: s.url, tokens, seconds: 3 }, newLedger());
  assert.deepEqual(ledger.errors, []);
  assert.equal(ledger.staleReads, 0);
  assert.ok(ledger.items.size > 0 && ledger.files.size > 0 && ledger.updates > 0, 'the load made writes');
  const check = await verifySoak(s.url, tokens, ledger);
  assert.deepEqual(check.problems, []);
  assert.equal(check.items.found, ledger.items.size);
  assert.equal(check.files.found, ledger.files.size);
  assert.equal(check.realnames.checked, tokens.length);
  assert.equal(check.realnames.wrong, 0);
});

test('the accounting catches a write that is not there (it can fail)', async () => {
  const ledger = newLedger();
  ledger.items.set('never-written', 'x');
  ledger.files.set('soak-0/never.txt', 'x');
  ledger.realnames.set(0, 'a name never set');
  const check = await verifySoak(s.url, tokens, ledger);
  assert.equal(check.items.found, 0);
  assert.equal(check.files.found, 0);
  assert.equal(check.realnames.wrong, 1);
  assert.equal(check.problems.length, 3);
});
