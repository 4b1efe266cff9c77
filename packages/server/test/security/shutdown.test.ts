import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, get } from 'node:http';
import { startServer } from '../helpers/test-server.js';

/**
 * Stopping (SIGTERM, or a test's close) lets answers under way finish, then ends at once: a
 * keep-alive connection whose answer finishes after the stop began must not hold the stop for
 * the keep-alive timeout (72 s). The timeout below catches such a hang; it is not a speed goal.
 */
test('close waits for an answer under way, then closes its keep-alive connection', { timeout: 30_000 }, async () => {
  const s = await startServer();
  const token = await s.createUser('alice');
  const size = 8 * 1024 * 1024;
  const put = await fetch(`${s.url}/files/big.bin/@write`, {
    method: 'PUT',
    headers: { 'x-auth-token': token },
    body: Buffer.alloc(size, 1),
  });
  assert.equal(put.status, 200);

  const agent = new Agent({ keepAlive: true });
  const received = await new Promise<number>((resolve, reject) => {
    const req = get(`${s.url}/files/big.bin`, { agent, headers: { 'x-auth-token': token } }, (res) => {
      res.pause();
      // The answer is under way (headers here, the body held back by the paused reader) when the stop begins.
      const closing = s.close();
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => void closing.then(() => resolve(bytes), reject));
      setTimeout(() => res.resume(), 200);
    });
    req.on('error', reject);
  });
  assert.equal(received, size, 'the answer under way was finished');
  agent.destroy();
});
