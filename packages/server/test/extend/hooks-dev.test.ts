import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOST_BIN, roostEnv } from '../helpers/roost-command.js';

/**
 * `roost dev` (issue 40, item 2): a change to a file of `hooks/` starts the server again with the
 * new hook; a broken file leaves it waiting for the next change; a stop ends the server too.
 * The hook files are JavaScript (`.mjs`), which no type check precedes: the restarts stay quick.
 */

const cwd = mkdtempSync(join(tmpdir(), 'roost-dev-'));
after(() => rmSync(cwd, { recursive: true, force: true }));

const stampHook = (stamp: string) =>
  `export default (roost) => {\n` +
  `  roost.hooks.before('record.create', ({ input }) => { input.stamp = '${stamp}'; });\n};\n`;

test('roost dev serves the hooks, and serves them again once a hook file changes', async () => {
  mkdirSync(join(cwd, 'hooks'));
  writeFileSync(join(cwd, 'hooks', 'stamp.mjs'), stampHook('one'));
  const schema = { type: 'object', properties: { title: { type: 'string' }, stamp: { type: 'string' } } };
  writeFileSync(
    join(cwd, 'roost.config.json'),
    JSON.stringify({
      collections: { notes: { schema, rules: { list: '', view: '', create: '', update: '', delete: '' } } },
    }),
  );
  const child = spawn(process.execPath, [ROOST_BIN, 'dev'], {
    cwd,
    env: roostEnv({ ROOST_DATA_DIR: join(cwd, 'data'), ROOST_PORT: '0', ROOST_LOG_LEVEL: 'info' }),
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  const urls: string[] = [];
  const collect = (d: Buffer) => {
    out += d.toString();
    for (const m of d.toString().matchAll(/Roost listens on (http:\/\/[^\s"]+)/g)) urls.push(m[1] ?? '');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const listening = async (count: number) => {
    const deadline = Date.now() + 30_000;
    while (urls.length < count) {
      if (Date.now() > deadline) throw new Error(`no start number ${count}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return urls[count - 1] ?? '';
  };
  const stampOf = async (url: string) => {
    const res = await fetch(`${url}/api/collections/notes/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x' }),
    });
    return ((await res.json()) as { stamp?: string }).stamp;
  };
  try {
    assert.equal(await stampOf(await listening(1)), 'one');
    // A broken file: the start fails, and dev waits for the next change.
    writeFileSync(join(cwd, 'hooks', 'stamp.mjs'), 'export default 42;\n');
    const deadline = Date.now() + 30_000;
    while (!/must export an extension as default/.test(out) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.match(out, /hooks\/stamp\.mjs: must export an extension as default/);
    writeFileSync(join(cwd, 'hooks', 'stamp.mjs'), stampHook('two'));
    assert.equal(await stampOf(await listening(2)), 'two');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, out);
  assert.match(out, /Roost stopped/);
});
