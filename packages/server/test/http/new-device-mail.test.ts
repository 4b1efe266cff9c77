import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addAccount, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The mail at a sign-in from a new device (users/new-device-mail.ts; issue 45, item 6) over HTTP:
 * an account's first device and its known ones are not told, a new User-Agent is, once, even
 * under parallel sign-ins; hostile agents stay text; off by default.
 */

const SUBJECT = 'A sign-in from a new device';

async function signIn(s: TestServer, name: string, agent: string): Promise<number> {
  return (await s.users('token', { identity: name, password: PASSWORD }, { headers: { 'user-agent': agent } })).status;
}

async function deviceMails(s: TestServer, to: string) {
  return (await s.outbox()).filter((m) => m.to === to && m.subject === SUBJECT);
}

describe('new-device mail: on', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ users: { newDeviceMail: true } });
    await addAccount(s.roost, 'nina');
    await addAccount(s.roost, 'nomail', { email: '' });
  });
  after(() => s.close());

  test('the first device and a known one: no mail; a new one: one mail saying what, where and how', async () => {
    assert.equal(await signIn(s, 'nina', 'Laptop/1.0 (Firefox)'), 200);
    assert.equal(await signIn(s, 'nina', 'Laptop/1.0 (Firefox)'), 200);
    assert.deepEqual(await deviceMails(s, 'nina@example.com'), []);
    assert.equal(await signIn(s, 'nina', 'Phone/2.0 (Safari)'), 200);
    const mails = await deviceMails(s, 'nina@example.com');
    assert.equal(mails.length, 1);
    const text = mails[0]?.text ?? '';
    assert.match(text, /Phone\/2\.0 \(Safari\)/);
    assert.match(text, /by password, from the address 127\.0\.0\.1/);
    assert.match(text, /\/users\/account/);
    assert.equal(await signIn(s, 'nina', 'Phone/2.0 (Safari)'), 200);
    assert.equal((await deviceMails(s, 'nina@example.com')).length, 1, 'a device is told once');
  });

  test('ten parallel sign-ins from one new device: one mail', async () => {
    const before = (await deviceMails(s, 'nina@example.com')).length;
    const statuses = await Promise.all(Array.from({ length: 10 }, () => signIn(s, 'nina', 'Tablet/3.0')));
    assert.deepEqual(statuses, Array(10).fill(200));
    assert.equal((await deviceMails(s, 'nina@example.com')).length, before + 1);
  });

  test('a hostile User-Agent is told as text, cut to 200 characters', async () => {
    const agent = `<script>alert(1)</script><img src=x onerror=alert(2)>${'x'.repeat(500)}`;
    assert.equal(await signIn(s, 'nina', agent), 200);
    const mail = (await deviceMails(s, 'nina@example.com')).at(-1);
    assert.ok(mail);
    assert.ok(mail.html && !mail.html.includes('<script>'), 'escaped in the HTML part');
    assert.ok(mail.text.includes(agent.slice(0, 200)) && !mail.text.includes(agent.slice(0, 201)));
  });

  test('a failed sign-in from a new device tells nothing; an account without an address gets none', async () => {
    const before = (await deviceMails(s, 'nina@example.com')).length;
    const wrong = await s.users(
      'token',
      { identity: 'nina', password: 'not-the-password' },
      { headers: { 'user-agent': 'Stranger/9' } },
    );
    assert.equal(wrong.status, 401);
    assert.equal((await deviceMails(s, 'nina@example.com')).length, before);
    assert.equal(await signIn(s, 'nomail', 'One/1'), 200);
    assert.equal(await signIn(s, 'nomail', 'Two/2'), 200);
    assert.deepEqual(
      (await s.outbox()).filter((m) => m.subject === SUBJECT && m.to !== 'nina@example.com'),
      [],
    );
  });
});

describe('new-device mail: off (the default)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    await addAccount(s.roost, 'otto');
  });
  after(() => s.close());

  test('no mail for any device', async () => {
    assert.equal(await signIn(s, 'otto', 'A/1'), 200);
    assert.equal(await signIn(s, 'otto', 'B/2'), 200);
    assert.deepEqual(await deviceMails(s, 'otto@example.com'), []);
  });
});
