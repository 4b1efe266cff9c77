import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createChallenge, solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { addAccount, PASSWORD, startServer, type TestServer } from '../helpers/test-server.js';

/**
 * The proof of work on sign-ups, sign-ins, resets and mailed sign-ins (users/proof-of-work.ts;
 * issue 45, item 6), over HTTP: a challenge from /users/api/challenge solved by altcha-lib as a
 * browser's widget solves it, sent as `X-Roost-Proof`; missing, forged, tampered, expired and
 * spent proofs refused in Roost's failure body; one proof used by many parallel callers passes
 * once; `auto` asks for it only after a flood.
 */

// The cheapest work: a test solves in milliseconds what a browser solves in about a second.
const CHEAP = { cost: 1, counterMin: 5, counterMax: 30 };

/** A clock the test moves (RoostOverrides `clock`). */
function movableClock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
  };
}

async function solved(s: TestServer): Promise<string> {
  const res = await s.request('/users/api/challenge');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { parameters, signature } = res.body as Challenge;
  const challenge = { parameters, signature } as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  assert.ok(solution, 'altcha-lib solves the challenge');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

/** A session of a new account, signed in with a solved proof (the test server's own sign-in sends none). */
async function signedIn(s: TestServer, name: string, groups: string[] = []): Promise<string> {
  await addAccount(s.roost, name, { groups });
  const res = await s.users(
    'token',
    { identity: name, password: PASSWORD },
    { headers: { 'x-roost-proof': await solved(s) } },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.token as string;
}

function assertFailure(
  res: { status: number; body: { code?: string; result?: unknown } },
  status: number,
  code: string,
) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.result, false);
  assert.equal(res.body.code, code);
}

describe('proof of work: always', () => {
  let s: TestServer;
  let admin: string;
  const clock = movableClock();
  before(async () => {
    s = await startServer({ users: { proofOfWork: { mode: 'always', expiresSeconds: 60, ...CHEAP } } }, { clock });
    await addAccount(s.roost, 'alice');
    admin = await signedIn(s, 'root', ['admins']);
    const granted = await s.users(
      'setPermissions',
      {
        permissions: ['signupDirect', 'signinMail'].map((permission) => ({
          permission,
          groups: ['sys:everyone'],
          action: 'replace',
        })),
      },
      { token: admin },
    );
    assert.equal(granted.body.result, true, JSON.stringify(granted.body));
  });
  after(() => s.close());

  test('the challenge: ALTCHA parameters, signed, and whether it is asked for now', async () => {
    const res = await s.request('/users/api/challenge');
    assert.equal(res.status, 200);
    assert.equal(res.body.result, true);
    assert.equal(res.body.required, true);
    assert.equal(res.body.parameters.algorithm, 'PBKDF2/SHA-256');
    assert.equal(typeof res.body.signature, 'string');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  test('token: refused without a proof (429 challenge_required), taken with a solved one', async () => {
    assertFailure(await s.users('token', { identity: 'alice', password: PASSWORD }), 429, 'challenge_required');
    const ok = await s.users(
      'token',
      { identity: 'alice', password: PASSWORD },
      { headers: { 'x-roost-proof': await solved(s) } },
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(typeof ok.body.token, 'string');
  });

  test('a proof is spent once: the same one again is refused (403 challenge_failed)', async () => {
    const proof = await solved(s);
    const headers = { 'x-roost-proof': proof };
    assert.equal((await s.users('token', { identity: 'alice', password: PASSWORD }, { headers })).status, 200);
    assertFailure(
      await s.users('token', { identity: 'alice', password: PASSWORD }, { headers }),
      403,
      'challenge_failed',
    );
  });

  test('twelve parallel calls with one proof: one passes, eleven are refused', async () => {
    const headers = { 'x-roost-proof': await solved(s) };
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => s.users('token', { identity: 'alice', password: PASSWORD }, { headers })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(11).fill(403)]);
  });

  test('hostile proofs: tampered, forged, for another key, garbage, oversized, not JSON', async () => {
    const proof = JSON.parse(Buffer.from(await solved(s), 'base64').toString('utf8'));
    // The derived key is the proof (its HMAC is in the challenge): one changed digit is no solution.
    const key = proof.solution.derivedKey as string;
    const flipped = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    const tampered = { ...proof, solution: { ...proof.solution, derivedKey: flipped } };
    const otherKey = await createChallenge({
      algorithm: 'PBKDF2/SHA-256',
      cost: 1,
      counter: 7,
      deriveKey,
      hmacSignatureSecret: 'not-the-server-key',
      hmacKeySignatureSecret: 'nor-this',
    });
    const forged = { challenge: otherKey, solution: await solveChallenge({ challenge: otherKey, deriveKey }) };
    const unsigned = { challenge: { parameters: proof.challenge.parameters }, solution: proof.solution };
    const otherAlgorithm = {
      ...proof,
      challenge: { ...proof.challenge, parameters: { ...proof.challenge.parameters, algorithm: 'SHA-256' } },
    };
    const hostile = [
      JSON.stringify(tampered),
      Buffer.from(JSON.stringify(forged)).toString('base64'),
      JSON.stringify(unsigned),
      JSON.stringify(otherAlgorithm),
      'bm90IGpzb24=',
      '{"challenge": null}',
      '<script>alert(1)</script>',
      'A'.repeat(5000),
      '{"challenge":{"parameters":{"nonce":1}},"solution":{}}',
    ];
    for (const value of hostile) {
      const res = await s.users(
        'token',
        { identity: 'alice', password: PASSWORD },
        { headers: { 'x-roost-proof': value } },
      );
      assertFailure(res, 403, 'challenge_failed');
    }
    // The real proof was never used by those: it still passes.
    const res = await s.users(
      'token',
      { identity: 'alice', password: PASSWORD },
      { headers: { 'x-roost-proof': JSON.stringify(proof) } },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  test('an expired challenge is refused', async () => {
    const proof = await solved(s);
    clock.advance(61_000);
    const res = await s.users(
      'token',
      { identity: 'alice', password: PASSWORD },
      { headers: { 'x-roost-proof': proof } },
    );
    assertFailure(res, 403, 'challenge_failed');
  });

  test('sign-up, the password reset and the mailed sign-in ask for it too; nothing is made without', async () => {
    const body = { name: 'bob', email: 'bob@example.com', password: PASSWORD };
    assertFailure(await s.users('signupDirect', body), 429, 'challenge_required');
    assert.equal((await s.users('getUser', { identity: 'bob' }, { token: admin })).status, 404);
    const made = await s.users('signupDirect', body, { headers: { 'x-roost-proof': await solved(s) } });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assertFailure(await s.users('resetPassword', { identity: 'bob' }), 429, 'challenge_required');
    const reset = await s.users(
      'resetPassword',
      { identity: 'bob' },
      { headers: { 'x-roost-proof': await solved(s) } },
    );
    assert.deepEqual(reset.body, { result: true });
    assertFailure(await s.users('signinMail', { identity: 'bob' }), 429, 'challenge_required');
  });

  test('what is not a sign-in, sign-up or reset asks nothing', async () => {
    const token = (
      await s.users(
        'token',
        { identity: 'alice', password: PASSWORD },
        { headers: { 'x-roost-proof': await solved(s) } },
      )
    ).body.token as string;
    assert.equal((await s.users('profile', {}, { token })).status, 200);
    assert.equal((await s.users('ping')).status, 200);
  });
});

describe('proof of work: auto, under attack', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ users: { proofOfWork: { mode: 'auto', attackThreshold: 5, ...CHEAP } } });
    await addAccount(s.roost, 'carol');
  });
  after(() => s.close());

  test('calm: no proof asked; past the threshold in a minute: asked, and the challenge says so', async () => {
    assert.equal((await s.request('/users/api/challenge')).body.required, false);
    for (let i = 0; i < 5; i++) {
      const res = await s.users('token', { identity: 'carol', password: 'wrong-password' });
      assert.equal(res.status, 401, `calm call ${i}: ${JSON.stringify(res.body)}`);
    }
    assertFailure(await s.users('token', { identity: 'carol', password: PASSWORD }), 429, 'challenge_required');
    assert.equal((await s.request('/users/api/challenge')).body.required, true);
    const ok = await s.users(
      'token',
      { identity: 'carol', password: PASSWORD },
      { headers: { 'x-roost-proof': await solved(s) } },
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});

describe('proof of work: off (the default)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    await s.createUser('dave');
  });
  after(() => s.close());

  test('sign-ins ask nothing, even a proof that is nonsense is ignored', async () => {
    assert.equal((await s.users('token', { identity: 'dave', password: PASSWORD })).status, 200);
    const res = await s.users(
      'token',
      { identity: 'dave', password: PASSWORD },
      { headers: { 'x-roost-proof': 'nonsense' } },
    );
    assert.equal(res.status, 200);
  });

  test('a configuration whose counterMin exceeds counterMax is refused at the start', async () => {
    await assert.rejects(
      startServer({ users: { proofOfWork: { mode: 'always', counterMin: 10, counterMax: 5 } } }),
      /counterMin/,
    );
  });
});
