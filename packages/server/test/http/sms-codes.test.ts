import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authCookie, getPage } from '../helpers/pages.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * Codes by SMS over HTTP (users/signin-methods/sms-code/), on both databases, against a real
 * gateway: a local HTTP receiver on 127.0.0.1 that captures every text the HTTP sender
 * (sms/http-sms-sender.ts) posts, with its secret header. A phone is added and confirmed by a
 * code, then signs in as a first factor and answers a second step; codes that are wrong,
 * expired, used, tried too often or raced in parallel are refused; texts are throttled; a
 * gateway that fails has its text tried again by the job queue and the caller is told; hostile
 * numbers are refused by name. The server's clock is the test's, moved past waits and lifetimes.
 */
const SECRET = 'Bearer gateway-secret-1';
const MINUTE = 60_000;

describe('codes by SMS over HTTP', () => {
  let s: TestServer;
  let gateway: Awaited<ReturnType<typeof receiver>>;
  /** The statuses the gateway answers next (then 200): a failing gateway on demand. */
  const gatewayStatuses: number[] = [];
  let now = Date.UTC(2026, 11, 5, 12, 0, 0);
  const clock = { now: () => now };
  /** Past every resend wait (30 s). */
  const later = () => {
    now += MINUTE;
  };
  let number = 1_234_500;
  /** A new German mobile number, in E.164, for each account. */
  const newPhone = () => `+49170${++number}`;

  /** The code of the last text the gateway got for `phone`. */
  async function codeSentTo(phone: string): Promise<string> {
    await s.roost.mailQueue.idle();
    const texts = gateway.received.map((r) => JSON.parse(r.body) as { to: string; message: string });
    const last = texts.filter((t) => t.to === phone).at(-1);
    assert.ok(last, `no text to ${phone}`);
    const code = /(\d{6})/.exec(last.message)?.[1];
    assert.ok(code, last.message);
    return code;
  }

  /** An account with a confirmed phone: its token and number. */
  async function withPhone(name: string, groups: string[] = []): Promise<{ token: string; phone: string }> {
    const token = await s.createUser(name, { groups });
    const phone = newPhone();
    const added = await s.users('smsAdd', { phone, password: PASSWORD }, { token });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const confirmed = await s.users('smsConfirm', { code: await codeSentTo(phone) }, { token });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    later();
    return { token, phone };
  }

  before(async () => {
    gateway = await receiver(gatewayStatuses);
    s = await startServer(
      {
        users: {
          sms: {
            sender: {
              url: gateway.url,
              headers: { authorization: SECRET },
              body: { to: '{{to}}', message: '{{text}}', tag: ['roost', '{{to}}'] },
              timeoutSeconds: 2,
            },
            countries: ['DE', 'US', 'GB'],
            defaultCountry: 'DE',
            perNumber: 4,
          },
        },
      },
      { clock },
    );
    await s.grant('smsSignin', ['sys:everyone']);
  });
  after(async () => {
    await s?.close();
    await gateway?.close();
  });

  test('a number is added by its code: normalised to E.164, the text posted with the secret header', async () => {
    const token = await s.createUser('ada');
    const noPassword = await s.users('smsAdd', { phone: '+49 170 1111111' }, { token });
    assert.equal(noPassword.body.code, 'validation_failure');
    assert.deepEqual(noPassword.body.invalid, [['password', 'required']]);
    const sent = gateway.received.length;

    const added = await s.users('smsAdd', { phone: '+49 (170) 111-1111', password: PASSWORD }, { token });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.phone, '+491701111111');
    assert.equal(added.body.delivery, 'sent');
    assert.equal(added.body.expires, now + 5 * MINUTE);
    const text = gateway.received.at(-1);
    assert.equal(gateway.received.length, sent + 1);
    assert.equal(text?.headers.authorization, SECRET);
    const body = JSON.parse(text?.body ?? '{}');
    assert.deepEqual(body.tag, ['roost', '+491701111111']);
    assert.match(body.message, /^Your sign-in code is \d{6}\.$/);
    assert.deepEqual((await s.users('smsPhone', {}, { token })).body, {
      result: true,
      phone: null,
      pending: '+491701111111',
    });

    const wrong = await s.users('smsConfirm', { code: '000000' }, { token });
    assert.equal(wrong.body.code, 'validation_failure');
    assert.deepEqual(wrong.body.invalid, [['code', 'invalid']]);
    const confirmed = await s.users('smsConfirm', { code: await codeSentTo('+491701111111') }, { token });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.recoveryCodes.length, 10);
    assert.deepEqual((await s.users('smsPhone', {}, { token })).body, {
      result: true,
      phone: '+491701111111',
      pending: null,
    });
    assert.equal((await s.users('secondFactor', {}, { token })).body.sms, true);
    const again = await s.users('smsConfirm', { code: '123456' }, { token });
    assert.equal(again.body.code, 'no_phone_pending');
    later();
  });

  test('the phone is a second step after the password, each code once', async () => {
    const { phone } = await withPhone('bert');
    const first = await s.users('token', { identity: 'bert', password: PASSWORD });
    assert.equal(first.body.code, 'second_factor_required');
    assert.deepEqual(first.body.methods, ['recovery', 'sms-code']);
    const { challenge } = first.body;
    const sent = await s.users('smsChallenge', { challenge });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.delivery, 'sent');
    const code = await codeSentTo(phone);
    const wrong = await s.users('token2', { challenge, smsCode: code === '111111' ? '222222' : '111111' });
    assert.equal(wrong.body.code, 'invalid_code');
    const signed = await s.users('token2', { challenge, smsCode: code });
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
    const sessions = await s.users('sessions', {}, { token: signed.body.token });
    assert.deepEqual(
      sessions.body.sessions.map((x: { method: string }) => x.method),
      ['smsStep', 'password'],
    );
    // The code is used: another challenge does not take it.
    later();
    const next = await s.users('token', { identity: 'bert', password: PASSWORD });
    const reused = await s.users('token2', { challenge: next.body.challenge, smsCode: code });
    assert.equal(reused.body.code, 'invalid_code');
  });

  test('a number signs in as a first factor; a wrong, used or expired code is refused alike', async () => {
    const { phone } = await withPhone('cleo');
    const unknown = await s.users('smsSignin', { phone: newPhone() });
    assert.deepEqual(unknown.body, { result: true });
    const asked = await s.users('smsSignin', { phone: phone.replace('+49', '0') });
    assert.deepEqual(asked.body, { result: true });
    const code = await codeSentTo(phone);
    const wrong = await s.users('smsSignin2', { phone, code: code === '111111' ? '222222' : '111111' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'invalid_code');
    const signed = await s.users('smsSignin2', { phone, code });
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
    const sessions = await s.users('sessions', {}, { token: signed.body.token });
    assert.equal(sessions.body.sessions[0].method, 'sms');
    const used = await s.users('smsSignin2', { phone, code });
    assert.equal(used.body.code, 'invalid_code');

    later();
    await s.users('smsSignin', { phone });
    const late = await codeSentTo(phone);
    now += 5 * MINUTE;
    const expired = await s.users('smsSignin2', { phone, code: late });
    assert.equal(expired.body.code, 'invalid_code');
    later();
  });

  test('a code takes five wrong answers, then not even the right one', async () => {
    const { phone } = await withPhone('dora');
    await s.users('smsSignin', { phone });
    const code = await codeSentTo(phone);
    const other = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) assert.equal((await s.users('smsSignin2', { phone, code: other })).status, 401);
    assert.equal((await s.users('smsSignin2', { phone, code })).body.code, 'invalid_code');
    later();
  });

  test('parallel answers with one right code: exactly one session', async () => {
    const { phone } = await withPhone('emil');
    await s.users('smsSignin', { phone });
    const code = await codeSentTo(phone);
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.users('smsSignin2', { phone, code })));
    assert.equal(answers.filter((a) => a.status === 200).length, 1, JSON.stringify(answers.map((a) => a.body)));
    assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.body.code === 'invalid_code'));
    later();
  });

  test('a first factor by SMS is one factor: a required second one is not the phone again', async () => {
    const { phone } = await withPhone('fynn', ['vault']);
    await s.roost.settings.change({ secondFactorGroups: ['vault'] }, 'test');
    await s.users('smsSignin', { phone });
    const first = await s.users('smsSignin2', { phone, code: await codeSentTo(phone) });
    assert.equal(first.body.code, 'second_factor_required');
    assert.deepEqual(first.body.methods, ['recovery']);
    const step = await s.users('smsChallenge', { challenge: first.body.challenge });
    assert.equal(step.body.code, 'invalid_token');
    later();
  });

  test('texts are throttled per number, per account and per window', async () => {
    const { token, phone } = await withPhone('gina');
    assert.equal((await s.users('smsSignin', { phone })).status, 200);
    const soon = await s.users('smsSignin', { phone });
    assert.equal(soon.status, 429);
    assert.equal(soon.body.code, 'rate_limited');
    assert.equal(soon.headers.get('retry-after'), '30');
    // Per account: a second number within the wait.
    later();
    await s.users('smsAdd', { phone: newPhone(), password: PASSWORD }, { token });
    const second = await s.users('smsAdd', { phone: newPhone(), password: PASSWORD }, { token });
    assert.equal(second.status, 429);
    // Per number and window (perNumber: 4; withPhone's and the sign-in's texts count).
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      later();
      counts.push((await s.users('smsSignin', { phone })).status);
    }
    assert.deepEqual(counts, [200, 200, 429]);
    now += 60 * MINUTE;
  });

  test('a gateway that fails: the caller is told, and the job queue delivers the text later', async () => {
    const token = await s.createUser('hugo');
    const phone = newPhone();
    // The texts of sign-ins before this test go after their answers: let them go first.
    await s.roost.mailQueue.idle();
    const before = gateway.received.length;
    gatewayStatuses.push(503, 503);
    const added = await s.users('smsAdd', { phone, password: PASSWORD }, { token });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.delivery, 'retrying');
    assert.equal(gateway.received.length, before + 1);
    // The queue's first try 2 s later fails too, its second 4 s after that delivers.
    now += 2500;
    await s.roost.jobs.idle();
    assert.equal(gateway.received.length, before + 2);
    now += 4500;
    await s.roost.jobs.idle();
    assert.equal(gateway.received.length, before + 3);
    const confirmed = await s.users('smsConfirm', { code: await codeSentTo(phone) }, { token });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    later();
  });

  test('hostile numbers are refused by name, and nothing is sent', async () => {
    const token = await s.createUser('ivan');
    const sent = gateway.received.length;
    const cases: [string, string][] = [
      ['+44 909 876 5432', 'not_mobile'],
      ['+44 20 7946 0018', 'not_mobile'],
      ['+33 6 12 34 56 78', 'country'],
      ['+1 (555) abc', 'invalid'],
      ['+999 1234', 'invalid'],
      ['<script>alert(1)</script>', 'invalid'],
      ['+49170123456 ext. 12', 'invalid'],
      [`+49${'1'.repeat(60)}`, 'invalid'],
      ['+49170"},{"to":"+1900', 'invalid'],
    ];
    for (const [phone, reason] of cases) {
      const refused = await s.users('smsAdd', { phone, password: PASSWORD }, { token });
      assert.equal(refused.body.code, 'validation_failure', phone);
      assert.deepEqual(refused.body.invalid, [['phone', reason]], phone);
      const signin = await s.users('smsSignin', { phone });
      assert.deepEqual(signin.body.invalid, [['phone', reason]], phone);
    }
    const tooLong = await s.users('smsSignin', { phone: '9'.repeat(500) });
    assert.equal(tooLong.body.code, 'validation_failure');
    await s.roost.mailQueue.idle();
    assert.equal(gateway.received.length, sent);
  });

  test('removing the phone asks for the password, and ends its second step', async () => {
    const { token } = await withPhone('jana');
    const noPassword = await s.users('smsRemove', {}, { token });
    assert.equal(noPassword.body.code, 'validation_failure');
    const removed = await s.users('smsRemove', { password: PASSWORD }, { token });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const factor = (await s.users('secondFactor', {}, { token })).body;
    assert.equal(factor.sms, false);
    assert.equal(factor.recoveryCodes, 0);
    assert.ok((await s.users('token', { identity: 'jana', password: PASSWORD })).body.token);
    assert.equal((await s.users('smsRemove', { password: PASSWORD }, { token })).body.code, 'no_phone');
  });

  test("a lost phone: an administrator's security page offers the reset of the second factor", async () => {
    await withPhone('kemal');
    assert.equal(
      (await s.users('token', { identity: 'kemal', password: PASSWORD })).body.code,
      'second_factor_required',
    );
    await s.adminToken();
    const id = (await s.roost.users.findUser('kemal'))?.id ?? '';
    const page = await getPage(s, `/admin/users/${id}/security`, await authCookie(s, 'admin'));
    assert.equal(page.status, 200);
    assert.match(page.html, /reset2fa/, 'the reset is offered for a phone as for an app');
  });
});
