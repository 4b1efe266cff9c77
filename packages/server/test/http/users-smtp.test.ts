import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { startServer, PASSWORD, type TestServer } from '../helpers/test-server.js';

/** One real SMTP conversation: nodemailer in Roost talking to npm's smtp-server on loopback. */

const ACTIVATION_URL = 'https://app.example.com/activate';

describe('users: mail over SMTP', () => {
  let smtp: TestSmtpServer;
  let s: TestServer;

  before(async () => {
    smtp = await startSmtpServer();
    s = await startServer({
      users: { activationUrl: ACTIVATION_URL },
      mail: { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'Roost <roost@example.org>' },
    });
  });

  after(async () => {
    await s?.close();
    await smtp?.close();
  });

  test('signupOptin sends a multipart activation mail through SMTP; its token activates the account', async () => {
    await s.grant('signupOptin', ['sys:everyone']);
    const res = await s.users('signupOptin', { name: 'smtp-user', email: 'smtp-user@example.com', password: PASSWORD });
    assert.deepEqual(res.body, { result: true });
    // The operation answers after the transport accepted the mail.
    await smtp.waitFor((m) => m.to.includes('smtp-user@example.com'));

    assert.equal(smtp.received.length, 1);
    const mail = smtp.received[0]!;
    assert.equal(mail.from, 'roost@example.org');
    assert.deepEqual(mail.to, ['smtp-user@example.com']);
    // Nothing went to the outbox: SMTP replaces it.
    assert.deepEqual(await s.outbox(), []);

    // Unfold headers and undo quoted-printable soft breaks to read the parts.
    const raw = mail.raw.replace(/\r\n/g, '\n');
    assert.match(raw, /^Subject: Activate your account$/m);
    assert.match(raw, /^To: smtp-user@example\.com$/m);
    assert.match(raw, /^Content-Type: multipart\/alternative;/m);
    assert.match(raw, /^Content-Type: text\/plain; charset=utf-8$/m);
    assert.match(raw, /^Content-Type: text\/html; charset=utf-8$/m);
    const decoded = raw
      .replace(/=\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    const link = new RegExp(`${ACTIVATION_URL.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\?token=([A-Za-z0-9_-]+)`);
    const match = link.exec(decoded);
    assert.ok(match?.[1], decoded);
    const token = match[1];
    // The link is in the HTML part as well.
    const htmlPart = decoded.slice(decoded.indexOf('text/html'));
    assert.ok(htmlPart.includes(`href="${ACTIVATION_URL}?token=${token}"`), htmlPart);

    assert.equal((await s.users('token', { identity: 'smtp-user', password: PASSWORD })).status, 401);
    assert.deepEqual((await s.users('activate', { token })).body, { result: true });
    const issued = await s.users('token', { identity: 'smtp-user', password: PASSWORD });
    assert.equal(typeof issued.body.token, 'string');
  });
});
