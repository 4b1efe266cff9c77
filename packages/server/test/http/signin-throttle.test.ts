import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { PASSWORD, useServer, type TestServer } from '../helpers/test-server.js';

/**
 * Sign-in throttling (users/signin-throttle.ts, docs/security.md "Guessing is slowed"): failures
 * count per account and per client address, in the database, each attempt before its password
 * is checked, across `token`, `signin` and both sign-in pages; successful sign-ins are not
 * limited. Client addresses other than 127.0.0.1 are real: Linux routes all of 127.0.0.0/8 to
 * the loopback interface, so a request can leave from 127.0.0.2 or 127.0.0.3.
 */

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** POST from a given loopback address (fetch cannot choose its local address). */
function postFrom(
  from: string,
  url: string,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One sign-in attempt by any of the four routes; true when it signed in. */
async function attempt(
  s: TestServer,
  route: number,
  from: string,
  identity: string,
  password: string,
): Promise<{ signedIn: boolean; status: number }> {
  const json = JSON.stringify({ identity, password });
  switch (route % 4) {
    case 0: {
      const res = await postFrom(from, `${s.url}/users/api/token`, json, 'application/json');
      return { signedIn: res.status === 200 && res.text.includes('"token"'), status: res.status };
    }
    case 1: {
      const res = await postFrom(from, `${s.url}/users/api/signin`, json, 'application/json');
      return {
        signedIn: res.status === 200 && String(res.headers['set-cookie'] ?? '').includes('auth='),
        status: res.status,
      };
    }
    default: {
      const page = route % 4 === 2 ? '/users/signin' : '/admin/signin';
      const form = new URLSearchParams({ identity, password, signin$: 'signin$' }).toString();
      const res = await postFrom(from, `${s.url}${page}`, form, 'application/x-www-form-urlencoded', { origin: s.url });
      return {
        signedIn: res.status === 303 && String(res.headers['set-cookie'] ?? '').includes('auth='),
        status: res.status,
      };
    }
  }
}

const ADDRESSES = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];

describe('sign-in throttling: parallel failures lock the account', () => {
  let t = 1_800_000_000_000;
  const s = useServer(
    {
      users: { lockoutThreshold: 10, lockoutSeconds: 60, lockoutMaxSeconds: 300 },
      rateLimit: { max: 10_000, signinFailures: 10_000 },
    },
    { clock: { now: () => t } },
  );
  before(async () => {
    await s.createUser('victim', { groups: ['admins'] });
  });

  test('45 wrong passwords at once over token, signin and pages, from 3 addresses: the right one fails', async () => {
    const results = await Promise.all(
      Array.from({ length: 45 }, (_, i) => attempt(s, i, ADDRESSES[i % 3]!, 'victim', `wrong-${i}`)),
    );
    assert.equal(results.filter((r) => r.signedIn).length, 0);
    for (const route of [0, 1, 2, 3]) {
      const right = await attempt(s, route, '127.0.0.1', 'victim', PASSWORD);
      assert.equal(right.signedIn, false, `route ${route} signs a locked account in`);
    }
    const locked = await s.users('token', { identity: 'victim', password: PASSWORD });
    const wrong = await s.users('token', { identity: 'nobody-at-all', password: PASSWORD });
    assert.deepEqual(
      [locked.status, locked.body],
      [wrong.status, wrong.body],
      'a locked account answers like an unknown one',
    );
  });

  test('the lock ends after its time; each further lock in a row lasts twice as long, up to the maximum', async () => {
    t += 61_000;
    // The first lock (60 s) is over; ten more failures lock for 120 s.
    await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(s, i, '127.0.0.2', 'victim', `again-${i}`)));
    t += 61_000;
    assert.equal(
      (await attempt(s, 0, '127.0.0.1', 'victim', PASSWORD)).signedIn,
      false,
      'the second lock lasts longer than the first',
    );
    t += 60_000;
    for (const lock of [240, 300, 300]) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(s, i, '127.0.0.3', 'victim', `more-${i}`)));
      t += (lock - 1) * 1000;
      assert.equal(
        (await s.users('token', { identity: 'victim', password: PASSWORD })).status,
        401,
        `still locked before ${lock} s`,
      );
      t += 2000;
    }
    // Never longer than lockoutMaxSeconds: the right password works again after 300 s.
    assert.equal((await s.users('token', { identity: 'victim', password: PASSWORD })).status, 200);
  });

  test('a success ends the series: the next lock is the first again', async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(s, i, '127.0.0.1', 'victim', `fresh-${i}`)));
    t += 61_000;
    assert.equal((await s.users('token', { identity: 'victim', password: PASSWORD })).status, 200);
  });
});

describe('sign-in throttling: per client address', () => {
  const s = useServer({ rateLimit: { max: 20, signinFailures: 5, signinFailureWindowSeconds: 600 } });
  before(async () => {
    for (const name of ['ann', 'ben', 'cat']) await s.createUser(name);
  });

  test('failures from one address, spread over accounts, are refused past the limit; other addresses not', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        postFrom(
          '127.0.0.2',
          `${s.url}/users/api/token`,
          JSON.stringify({ identity: ['ann', 'ben', 'cat', 'nobody'][i % 4], password: `guess-${i}` }),
          'application/json',
        ),
      ),
    );
    assert.equal(statuses.filter((r) => r.status === 401).length, 5, 'five failures counted, whatever the concurrency');
    const refused = statuses.filter((r) => r.status === 429);
    assert.equal(refused.length, 40);
    const body = JSON.parse(refused[0]!.text) as { code: string; result: boolean };
    assert.deepEqual([body.result, body.code], [false, 'rate_limited']);
    assert.ok(Number(refused[0]!.headers['retry-after']) > 0, 'Retry-After');
    const right = await postFrom(
      '127.0.0.2',
      `${s.url}/users/api/token`,
      JSON.stringify({ identity: 'ann', password: PASSWORD }),
      'application/json',
    );
    assert.equal(right.status, 429, 'the address is refused, right password or not');
    const elsewhere = await postFrom(
      '127.0.0.3',
      `${s.url}/users/api/token`,
      JSON.stringify({ identity: 'ann', password: PASSWORD }),
      'application/json',
    );
    assert.equal(elsewhere.status, 200);
  });

  test('successful sign-ins are not limited: a batch job signs in 100 times in a row', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await attempt(s, i % 2, '127.0.0.1', 'ben', PASSWORD)).status);
    assert.deepEqual([...new Set(statuses)], [200]);
  });

  test('successes in parallel are not limited either: only attempts in flight count until they succeed', async () => {
    let signedIn = 0;
    for (let round = 0; round < 20; round++) {
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) => attempt(s, i % 3, '127.0.0.3', 'cat', PASSWORD)),
      );
      signedIn += results.filter((r) => r.signedIn).length;
    }
    assert.equal(signedIn, 80, '80 sign-ins, four at a time, from an address allowed five failures');
  });
});

describe('sign-in throttling: the pages spend the address budget of the API and answer 429', () => {
  const s = useServer({ rateLimit: { max: 1000, signinFailures: 6, signinFailureWindowSeconds: 600 } });
  before(async () => {
    await s.createUser('dora');
    await s.grant('signinMail', ['sys:everyone']);
  });
  const from = '127.0.0.4';
  const page = (path: string, fields: Record<string, string>) =>
    postFrom(from, `${s.url}${path}`, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', {
      origin: s.url,
    });
  const refusedPage = (res: Answer, what: string) => {
    assert.equal(res.status, 429, `${what}: ${res.status}`);
    assert.equal(res.headers['retry-after'], '600', `${what}: Retry-After`);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.text, /Too many/);
    assert.match(res.text, /Try again in 10 minutes/, `${what} says when to try again`);
  };

  test('failures on the API and both pages count together; past the budget each sign-in form answers 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt(s, i, from, 'dora', `wrong-${i}`)).status);
    assert.deepEqual(statuses, [401, 401, 422, 422, 401, 401], 'six failures, spread over the four routes');
    refusedPage(await page('/users/signin', { identity: 'dora', password: 'wrong', signin$: 'signin$' }), 'user page');
    refusedPage(await page('/admin/signin', { identity: 'dora', password: PASSWORD, signin$: 'signin$' }), 'admin');
    refusedPage(
      await page('/users/signin', { verify$: 'verify$', challenge: 'made-up', code: '123456' }),
      'the second step',
    );
    refusedPage(await page('/users/signin-mail', { identity: 'dora', code: '12345678', enter$: 'enter$' }), 'by mail');
    const api = await postFrom(
      from,
      `${s.url}/users/api/signin`,
      JSON.stringify({ identity: 'dora', password: PASSWORD }),
      'application/json',
    );
    assert.equal(api.status, 429, 'the API refuses the address the pages spent');
    // Another address is not affected.
    assert.equal((await attempt(s, 2, '127.0.0.5', 'dora', PASSWORD)).signedIn, true);
  });
});
