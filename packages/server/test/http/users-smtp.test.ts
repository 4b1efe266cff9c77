import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startServer, PASSWORD, type TestServer } from '../helpers/test-server.js';

/** One real SMTP conversation: nodemailer in Roost talking to npm's smtp-server on loopback. */

interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

const ACTIVATION_URL = 'https://app.example.com/activate';

describe('users: mail over SMTP', () => {
  let smtp: SMTPServer;
  let s: TestServer;
  const received: Received[] = [];
  let arrived: (() => void) | undefined;

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      // Plain SMTP on loopback: no certificate to offer, so no STARTTLS.
      disabledCommands: ['STARTTLS'],
      logger: false,
      // Do not wait the default 30 s for open connections when the test ends.
      closeTimeout: 200,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
          arrived?.();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      smtp.once('error', reject);
      smtp.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = smtp.server.address() as AddressInfo;
    s = await startServer({
      users: { activationUrl: ACTIVATION_URL },
      mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Roost <roost@example.org>' },
    });
  });

  after(async () => {
    await s?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test('signupOptin sends a multipart activation mail through SMTP; its token activates the account', async () => {
    await s.grant('signupOptin', ['sys:everyone']);
    const delivered = new Promise<void>((resolve) => (arrived = resolve));
    const res = await s.users('signupOptin', { name: 'smtp-user', email: 'smtp-user@example.com', password: PASSWORD });
    assert.deepEqual(res.body, { result: true });
    // The operation answers after the transport accepted the mail.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no mail arrived')), 5000);
    });
    await Promise.race([delivered, timeout]).finally(() => clearTimeout(timer));

    assert.equal(received.length, 1);
    const mail = received[0]!;
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
    const decoded = raw.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
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
