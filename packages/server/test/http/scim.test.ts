import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useServer, type CallOptions } from '../helpers/test-server.js';

/**
 * Issue 45, item 1: SCIM 2.0 provisioning, over HTTP with the protocol's own examples: the full
 * user of RFC 7643 §8.2, the group of §8.4, the PATCH requests on members of RFC 7644 §3.5.2.
 * An identity provider's API key (scope scim:*) creates, changes, disables and deletes accounts
 * and groups; a membership gives the account the Roost group; a disabled account's sessions end.
 */
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7643 §8.2, "Full User Representation" (its `id`, `meta` and `groups` are the server's). */
const fullUser = (userName: string, externalId: string) => ({
  schemas: [USER],
  externalId,
  userName,
  name: {
    formatted: 'Ms. Barbara J Jensen, III',
    familyName: 'Jensen',
    givenName: 'Barbara',
    middleName: 'Jane',
    honorificPrefix: 'Ms.',
    honorificSuffix: 'III',
  },
  displayName: 'Babs Jensen',
  nickName: 'Babs',
  profileUrl: 'https://login.example.com/bjensen',
  emails: [
    { value: `${externalId}@example.com`, type: 'work', primary: true },
    { value: `${externalId}@jensen.org`, type: 'home' },
  ],
  addresses: [
    {
      type: 'work',
      streetAddress: '100 Universal City Plaza',
      locality: 'Hollywood',
      region: 'CA',
      postalCode: '91608',
      country: 'USA',
      formatted: '100 Universal City Plaza\nHollywood, CA 91608 USA',
      primary: true,
    },
  ],
  phoneNumbers: [
    { value: '555-555-5555', type: 'work' },
    { value: '555-555-4444', type: 'mobile' },
  ],
  ims: [{ value: 'someaimhandle', type: 'aim' }],
  photos: [{ value: 'https://photos.example.com/profilephoto/72930000000Ccne/F', type: 'photo' }],
  userType: 'Employee',
  title: 'Tour Guide',
  preferredLanguage: 'en-US',
  locale: 'en-US',
  timezone: 'America/Los_Angeles',
  active: true,
  password: 't1meMa$heen',
  x509Certificates: [{ value: 'MIIDQzCCAqygAwIBAgICEAAwDQYJKoZIhvcNAQEFBQAwTjELMAkGA1UEBhMCVVMx' }],
});

type Named = { userName: string };

describe('SCIM 2.0 provisioning over HTTP', () => {
  const s = useServer({ collections: {} });
  let keyToken: Promise<string> | undefined;
  const makeKey = async (access: string[], kind = 'scim') => {
    const made = await s.request(
      '/api/keys',
      { name: `idp-${access.join('-')}-${kind}`, scopes: [{ kind, name: '*', access }] },
      { token: await s.adminToken() },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body.token as string;
  };
  const key = () => (keyToken ??= makeKey(['read', 'write']));
  const scim = async (path: string, body?: unknown, options: CallOptions = {}) =>
    s.request(`/scim/v2${path}`, body, {
      ...options,
      headers: { authorization: `Bearer ${await key()}`, 'content-type': 'application/scim+json', ...options.headers },
    });
  const scimError = (
    // biome-ignore lint/suspicious/noExplicitAny: an answer's body is whatever JSON the server sent
    answer: { status: number; body: any; headers: Headers },
    status: number,
    scimType?: string,
  ) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.match(answer.headers.get('content-type') ?? '', /^application\/scim\+json/);
    assert.deepEqual(answer.body.schemas, [ERROR]);
    assert.equal(answer.body.status, String(status));
    if (scimType) assert.equal(answer.body.scimType, scimType, JSON.stringify(answer.body));
    assert.equal(typeof answer.body.detail, 'string');
  };

  test('the full user of RFC 7643 §8.2 is created, read back as given, and signs in with its password', async () => {
    const made = await scim('/Users', fullUser('bjensen@example.com', 'bjensen'));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.match(made.headers.get('content-type') ?? '', /^application\/scim\+json/);
    const id = made.body.id as string;
    assert.match(made.headers.get('location') ?? '', new RegExp(`/scim/v2/Users/${id}$`));
    assert.equal(made.headers.get('etag'), 'W/"1"');
    const got = await scim(`/Users/${id}`, undefined, { method: 'GET' });
    assert.equal(got.status, 200);
    const expected = { ...fullUser('bjensen@example.com', 'bjensen') } as Record<string, unknown>;
    delete expected.password;
    for (const [attribute, value] of Object.entries(expected)) assert.deepEqual(got.body[attribute], value, attribute);
    assert.equal(got.body.password, undefined, 'the password is never returned');
    assert.equal(got.body.meta.resourceType, 'User');
    assert.equal(got.body.meta.version, 'W/"1"');
    // The Roost account: its name made from the userName, the primary email, the display name.
    const account = await s.roost.users.findUser(id);
    assert.equal(account?.name, 'bjensen_example.com');
    assert.equal(account?.email, 'bjensen@example.com');
    assert.equal(account?.realname, 'Babs Jensen');
    const signin = await s.users('token', { identity: 'bjensen_example.com', password: 't1meMa$heen' });
    assert.equal(signin.status, 200, JSON.stringify(signin.body));
    // The audit log names the key that made the account.
    const lines = await s.roost.audit.list({ limit: 1000 });
    const creation = lines.find((line) => line.action === 'account.create' && line.target === 'bjensen_example.com');
    assert.equal(creation?.actorName, 'key:idp-read-write-scim');
  });

  test('filters: eq, co, sw, pr, and/or on userName, emails, externalId, displayName; paging', async () => {
    for (const n of [1, 2, 3]) {
      const made = await scim('/Users', {
        ...fullUser(`filter${n}@corp.example`, `filter-ext-${n}`),
        displayName: `Filter ${n}`,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    const find = async (filter: string, more = '') => {
      const answer = await scim(`/Users?filter=${encodeURIComponent(filter)}${more}`, undefined, { method: 'GET' });
      assert.equal(answer.status, 200, `${filter}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(answer.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:ListResponse']);
      return answer.body as { totalResults: number; startIndex: number; itemsPerPage: number; Resources: Named[] };
    };
    const names = (list: { Resources: Named[] }) => list.Resources.map((r) => r.userName).sort();
    assert.deepEqual(names(await find('userName eq "FILTER2@corp.example"')), ['filter2@corp.example']);
    assert.deepEqual(names(await find('externalId eq "filter-ext-3"')), ['filter3@corp.example']);
    assert.equal((await find('externalId eq "FILTER-EXT-3"')).totalResults, 0, 'externalId is case-exact');
    assert.deepEqual(names(await find('userName sw "filter"')), [
      'filter1@corp.example',
      'filter2@corp.example',
      'filter3@corp.example',
    ]);
    assert.deepEqual(names(await find('emails co "filter-ext-1@"')), ['filter1@corp.example']);
    assert.deepEqual(names(await find('emails[type eq "work" and value co "ext-2"]')), ['filter2@corp.example']);
    assert.deepEqual(names(await find('displayName eq "Filter 1" or displayName eq "filter 3"')), [
      'filter1@corp.example',
      'filter3@corp.example',
    ]);
    assert.deepEqual(
      names(await find('userName sw "filter" and (externalId pr and not (displayName eq "Filter 2"))')),
      ['filter1@corp.example', 'filter3@corp.example'],
    );
    const page = await find('userName sw "filter"', '&startIndex=2&count=1');
    assert.equal(page.totalResults, 3);
    assert.equal(page.startIndex, 2);
    assert.equal(page.itemsPerPage, 1);
    assert.equal(page.Resources[0]?.userName, 'filter2@corp.example');
    const all = await scim('/Users?count=0', undefined, { method: 'GET' });
    assert.ok(all.body.totalResults >= 3);
    assert.equal(all.body.Resources.length, 0);
  });

  test('hostile and wrong filters are 400 invalidFilter, quickly', async () => {
    const get = (filter: string) => scim(`/Users?filter=${encodeURIComponent(filter)}`, undefined, { method: 'GET' });
    scimError(await get('userName eq'), 400, 'invalidFilter');
    scimError(await get('password eq "t1meMa$heen"'), 400, 'invalidFilter');
    scimError(await get('nosuch eq "x"'), 400, 'invalidFilter');
    scimError(await get('userName eq "x" or 1=1; --'), 400, 'invalidFilter');
    scimError(await get(`userName eq "${'x'.repeat(3000)}"`), 400, 'invalidFilter');
    scimError(
      await get(Array.from({ length: 150 }, (_, i) => `userName eq "u${i}"`).join(' or ')),
      400,
      'invalidFilter',
    );
    // The parser's backtracking on an unclosed quote of line breaks: refused before it runs.
    const started = Date.now();
    scimError(await get(`userName eq "${'\n'.repeat(40)}`), 400, 'invalidFilter');
    assert.ok(Date.now() - started < 5000, 'answered at once (the backtracking would take days)');
    // A value that looks like SQL is only a value.
    const injected = await get(`userName eq "x' OR '1'='1"`);
    assert.equal(injected.status, 200);
    assert.equal(injected.body.totalResults, 0);
    scimError(await scim('/Users?startIndex=abc', undefined, { method: 'GET' }), 400, 'invalidValue');
  });

  test('missing, wrong-typed, oversized and unknown input is refused in SCIM error bodies; none stored', async () => {
    const before = (await scim('/Users?count=0', undefined, { method: 'GET' })).body.totalResults;
    scimError(await scim('/Users', { schemas: [USER] }), 400, 'invalidValue');
    scimError(await scim('/Users', { schemas: [USER], userName: 42 }), 400, 'invalidValue');
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', active: 'maybe' }), 400, 'invalidValue');
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', emails: 'x@y' }), 400, 'invalidValue');
    scimError(await scim('/Users', { schemas: [USER], userName: 'x'.repeat(5000) }), 400, 'invalidValue');
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', favouriteColour: 'red' }), 400, 'invalidSyntax');
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', name: { nickname2: 'y' } }), 400, 'invalidSyntax');
    scimError(await scim('/Users', { schemas: [GROUP], userName: 'x' }), 400, 'invalidSyntax');
    scimError(await scim('/Users', { schemas: [USER], userName: '@@@' }), 400, 'invalidValue');
    scimError(
      await scim('/Users', { schemas: [USER], userName: 'x', emails: [{ value: 'not-an-email' }] }),
      400,
      'invalidValue',
    );
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', password: 'short' }), 400, 'invalidValue');
    scimError(await scim('/Users', undefined, { method: 'POST', raw: '{"schemas": [' }), 400);
    const roles = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `role-${i}` }));
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', roles: roles(101) }), 400, 'invalidValue');
    // Over the server's bodyLimit (1 MiB by default): 413, in SCIM's body too.
    scimError(await scim('/Users', { schemas: [USER], userName: 'x', nickName: 'y'.repeat(1_100_000) }), 413);
    scimError(await scim('/Users', undefined, { method: 'POST', raw: '{"__proto__": {"admin": true}}' }), 400);
    // Deep nesting, in a create and in a PATCH's value; and more operations than a PATCH may hold.
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    scimError(await scim('/Users', undefined, { raw: `{"schemas":["${USER}"],"userName":"x","emails":${deep}}` }), 400);
    const target = (await scim('/Users', { schemas: [USER], userName: 'deep-target' })).body.id as string;
    const deepPatch = `{"schemas":["${PATCH}"],"Operations":[{"op":"add","path":"emails","value":${deep}}]}`;
    scimError(await scim(`/Users/${target}`, undefined, { method: 'PATCH', raw: deepPatch }), 400);
    scimError(await scim('/Users', { schemas: [USER], userName: 'nul\u0000name' }), 400, 'invalidSyntax');
    const many = Array.from({ length: 1001 }, () => ({ op: 'replace', path: 'nickName', value: 'n' }));
    scimError(await scim(`/Users/${target}`, { schemas: [PATCH], Operations: many }, { method: 'PATCH' }), 400);
    scimError(await scim('/Users/no-such-id', undefined, { method: 'GET' }), 404);
    scimError(await scim('/Users/a%00b', undefined, { method: 'GET' }), 404);
    scimError(await scim(`/Groups/${'g'.repeat(90)}`, undefined, { method: 'DELETE' }), 404);
    // A path parameter over the router's 100 characters is refused before any route (in Roost's failure body).
    assert.equal((await scim(`/Groups/${'g'.repeat(500)}`, undefined, { method: 'DELETE' })).status, 400);
    scimError(await scim('/Nothing', undefined, { method: 'GET' }), 404);
    assert.equal((await scim('/Users?count=0', undefined, { method: 'GET' })).body.totalResults, before + 1);
    assert.equal((await scim(`/Users/${target}`, undefined, { method: 'GET' })).body.meta.version, 'W/"1"');
  });

  test('a PATCH through __proto__, constructor or prototype is refused; Object.prototype stays clean', async () => {
    // scim-patch 0.8.3 walks a path's segments, and a value's dotted keys, with plain property
    // access: `__proto__.x` would set `x` on every object of the process.
    const user = (await scim('/Users', { schemas: [USER], userName: 'proto-target' })).body.id as string;
    const group = (await scim('/Groups', { schemas: [GROUP], displayName: 'proto-group' })).body.id as string;
    const paths = [
      '__proto__.polluted',
      'constructor.prototype.polluted',
      'name.__proto__.polluted',
      'emails[value eq "x"].constructor.prototype.polluted',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:__proto__.polluted',
    ];
    const operations = [
      ...paths.map((path) => ({ op: 'add', path, value: 'yes' })),
      { op: 'add', value: { 'constructor.prototype.polluted': 'yes' } },
      { op: 'replace', value: { name: { 'prototype.polluted': 'yes' } } },
    ];
    for (const [resource, id] of [
      ['Users', user],
      ['Groups', group],
    ])
      for (const operation of operations) {
        const answer = await scim(
          `/${resource}/${id}`,
          { schemas: [PATCH], Operations: [operation] },
          { method: 'PATCH' },
        );
        scimError(answer, 400, 'path' in operation ? 'invalidPath' : 'invalidValue');
        assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false, JSON.stringify(operation));
      }
    assert.equal((await scim(`/Users/${user}`, undefined, { method: 'GET' })).body.meta.version, 'W/"1"');
    assert.equal((await scim(`/Groups/${group}`, undefined, { method: 'GET' })).body.meta.version, 'W/"1"');
  });

  test('a token without the permission is refused: none, a session, a key of other scopes, a reader', async () => {
    const body = { schemas: [USER], userName: 'nobody-made' };
    const none = await s.request('/scim/v2/Users', undefined, { method: 'GET' });
    scimError(none, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    scimError(await s.request('/scim/v2/Users', body, { token: await s.adminToken() }), 403);
    const storeKey = await makeKey(['read', 'write'], 'store');
    scimError(await s.request('/scim/v2/Users', body, { headers: { authorization: `Bearer ${storeKey}` } }), 403);
    const reader = await makeKey(['read']);
    const asReader = { headers: { authorization: `Bearer ${reader}` } };
    assert.equal((await s.request('/scim/v2/Users', undefined, { ...asReader, method: 'GET' })).status, 200);
    scimError(await s.request('/scim/v2/Users', body, asReader), 403);
    scimError(await s.request('/scim/v2/Users', body, { headers: { authorization: 'Bearer roost_forged' } }), 401);
    // A SCIM scope names `*`: another name would grant nothing, so no such key is made.
    const named = { name: 'okta', scopes: [{ kind: 'scim', name: 'okta', access: ['write'] }] };
    assert.equal((await s.request('/api/keys', named, { token: await s.adminToken() })).status, 422);
    assert.equal(
      (await scim(`/Users?filter=${encodeURIComponent('userName eq "nobody-made"')}`, undefined, { method: 'GET' }))
        .body.totalResults,
      0,
    );
  });

  test('parallel creates of one userName: one wins, the other is 409 uniqueness', async () => {
    const body = { schemas: [USER], userName: 'racer@example.com', emails: [{ value: 'racer@example.com' }] };
    const answers = await Promise.all([scim('/Users', body), scim('/Users', body), scim('/Users', body)]);
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 409, 409], JSON.stringify(answers.map((a) => a.body)));
    for (const lost of answers.filter((a) => a.status === 409)) scimError(lost, 409, 'uniqueness');
    const found = await scim(`/Users?filter=${encodeURIComponent('userName eq "racer@example.com"')}`, undefined, {
      method: 'GET',
    });
    assert.equal(found.body.totalResults, 1);
    scimError(await scim('/Users', { ...body, userName: 'RACER@example.com' }), 409, 'uniqueness');
  });

  test('parallel PUTs of one User, one If-Match: one wins, the others 412; the account is as SCIM reads', async () => {
    const made = await scim('/Users', {
      schemas: [USER],
      userName: 'twice-put',
      emails: [{ value: 'put0@example.com' }],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id as string;
    const put = (x: string, headers: Record<string, string> = {}) =>
      scim(
        `/Users/${id}`,
        {
          schemas: [USER],
          userName: 'twice-put',
          displayName: `Name ${x}`,
          emails: [{ value: `put-${x}@example.com` }],
        },
        { method: 'PUT', headers },
      );
    /** The account as Roost has it, and as SCIM answers it, agree. */
    const agreed = async () => {
      const read = await scim(`/Users/${id}`, undefined, { method: 'GET' });
      const account = await s.roost.users.findUser(id);
      assert.equal(account?.realname, read.body.displayName);
      assert.equal(account?.email, read.body.emails[0].value);
      return read.body.displayName as string;
    };
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((x) => put(x, { 'if-match': 'W/"1"' })));
    const won = answers.filter((a) => a.status === 200);
    assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.body)));
    for (const lost of answers.filter((a) => a.status !== 200)) scimError(lost, 412);
    assert.equal(await agreed(), won[0]?.body.displayName);
    // With no If-Match each PUT replaces the one before: all go, the last is what both read.
    const all = await Promise.all(['e', 'f', 'g', 'h'].map((x) => put(x)));
    assert.deepEqual(
      all.map((a) => a.status),
      [200, 200, 200, 200],
    );
    await agreed();
  });

  test('a write waiting for a User that another process deletes meanwhile is 404 at once, not 503 later', async () => {
    const id = (await scim('/Users', { schemas: [USER], userName: 'soon-gone' })).body.id as string;
    // Another process holds the account's lease, then deletes its User (its row goes, lease and all).
    const held = () =>
      s.roost.db
        .updateTable('scim_users')
        .set({ lease: Date.now() + 60_000 })
        .where('user_id', '=', id);
    await held().execute();
    const started = Date.now();
    const waiting = scim(
      `/Users/${id}`,
      { schemas: [USER], userName: 'soon-gone', displayName: 'x' },
      { method: 'PUT' },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await s.roost.db.deleteFrom('scim_users').where('user_id', '=', id).execute();
    scimError(await waiting, 404);
    assert.ok(Date.now() - started < 10_000, 'answered once the row was gone, not after the wait for the lease');
  });

  test('active: false (PATCH, as Entra ID sends it) ends the sessions at once and refuses sign-in', async () => {
    const made = await scim('/Users', { schemas: [USER], userName: 'leaver', password: 'a-long-enough-password' });
    assert.equal(made.status, 201);
    const token = (await s.users('token', { identity: 'leaver', password: 'a-long-enough-password' })).body
      .token as string;
    assert.equal((await s.users('identity', {}, { token })).status, 200);
    const patched = await scim(
      `/Users/${made.body.id}`,
      {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      },
      { method: 'PATCH' },
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.active, false);
    assert.equal(patched.headers.get('etag'), 'W/"2"');
    assert.equal((await s.users('identity', {}, { token })).status, 401, 'the session ended');
    assert.notEqual((await s.users('token', { identity: 'leaver', password: 'a-long-enough-password' })).status, 200);
    // Back on: signs in again.
    const back = await scim(
      `/Users/${made.body.id}`,
      { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] },
      { method: 'PATCH' },
    );
    assert.equal(back.body.active, true);
    assert.equal((await s.users('token', { identity: 'leaver', password: 'a-long-enough-password' })).status, 200);
    // If-Match with an old version is refused, changing nothing.
    scimError(
      await scim(
        `/Users/${made.body.id}`,
        { schemas: [USER], userName: 'renamed' },
        { method: 'PUT', headers: { 'if-match': 'W/"1"' } },
      ),
      412,
    );
    const put = await scim(
      `/Users/${made.body.id}`,
      { schemas: [USER], userName: 'renamed', active: true },
      { method: 'PUT', headers: { 'if-match': 'W/"3"' } },
    );
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((await s.roost.users.findUser(made.body.id))?.name, 'renamed');
  });

  test('an administrator made in Roost of a provisioned account: SCIM may not set its password or email', async () => {
    const password = 'the-boss-own-password';
    const made = await scim('/Users', {
      schemas: [USER],
      userName: 'boss',
      emails: [{ value: 'boss@example.com' }],
      password,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const admin = await s.adminToken();
    const promoted = await s.users('setUser', { identity: 'boss', values: { groups: ['admins'] } }, { token: admin });
    assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
    const attempts = [
      { schemas: [PATCH], Operations: [{ op: 'replace', path: 'password', value: 'the-attacker-password' }] },
      { schemas: [PATCH], Operations: [{ op: 'replace', path: 'emails', value: [{ value: 'evil@example.net' }] }] },
    ];
    for (const attempt of attempts) scimError(await scim(`/Users/${made.body.id}`, attempt, { method: 'PATCH' }), 403);
    const put = {
      schemas: [USER],
      userName: 'boss',
      emails: [{ value: 'boss@example.com' }],
      password: 'x'.repeat(20),
    };
    scimError(await scim(`/Users/${made.body.id}`, put, { method: 'PUT' }), 403);
    assert.equal((await s.users('token', { identity: 'boss', password: 'the-attacker-password' })).status, 401);
    assert.equal((await s.users('token', { identity: 'boss', password })).status, 200);
    assert.equal((await s.roost.users.findUser(made.body.id))?.email, 'boss@example.com');
    // The rest is still the provider's: a name, and the account disabled when the person leaves.
    const left = await scim(
      `/Users/${made.body.id}`,
      { schemas: [PATCH], Operations: [{ op: 'replace', value: { displayName: 'The Boss', active: false } }] },
      { method: 'PATCH' },
    );
    assert.equal(left.status, 200, JSON.stringify(left.body));
    assert.equal((await s.users('token', { identity: 'boss', password })).status, 401);
  });

  test('PATCH paths of a value filter, a sub-attribute and the enterprise extension; the account follows', async () => {
    const made = await scim('/Users', fullUser('patched@example.com', 'patched'));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const patched = await scim(
      `/Users/${made.body.id}`,
      {
        schemas: [PATCH],
        Operations: [
          { op: 'replace', path: 'emails[type eq "work"].value', value: 'moved@example.com' },
          { op: 'replace', path: 'name.givenName', value: 'Barb' },
          { op: 'add', path: `${enterprise}:department`, value: 'Tour Operations' },
          { op: 'remove', path: 'phoneNumbers[type eq "mobile"]' },
          { op: 'replace', path: 'displayName', value: 'Barb Jensen' },
        ],
      },
      { method: 'PATCH' },
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.emails[0].value, 'moved@example.com');
    assert.equal(patched.body.name.givenName, 'Barb');
    assert.equal(patched.body[enterprise].department, 'Tour Operations');
    assert.ok(patched.body.schemas.includes(enterprise));
    assert.deepEqual(patched.body.phoneNumbers, [{ value: '555-555-5555', type: 'work' }]);
    const account = await s.roost.users.findUser(made.body.id);
    assert.equal(account?.email, 'moved@example.com');
    assert.equal(account?.realname, 'Barb Jensen');
    // A path to nothing, and a value of the wrong type, change nothing.
    scimError(
      await scim(
        `/Users/${made.body.id}`,
        { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: 7 }] },
        {
          method: 'PATCH',
        },
      ),
      400,
      'invalidValue',
    );
    scimError(
      await scim(
        `/Users/${made.body.id}`,
        { schemas: [PATCH], Operations: [{ op: 'replace', path: 'shoeSize', value: 44 }] },
        {
          method: 'PATCH',
        },
      ),
      400,
    );
    assert.equal((await scim(`/Users/${made.body.id}`, undefined, { method: 'GET' })).body.meta.version, 'W/"2"');
  });

  test('groups: RFC 7643 §8.4 and the member PATCHes of RFC 7644 §3.5.2 give and take the Roost group', async () => {
    const babs = (await scim('/Users', { schemas: [USER], userName: 'babs', password: 'a-long-enough-password' })).body;
    const mandy = (await scim('/Users', { schemas: [USER], userName: 'mandy' })).body;
    const made = await scim('/Groups', {
      schemas: [GROUP],
      displayName: 'Tour Guides',
      externalId: 'tour-guides',
      members: [{ value: babs.id, $ref: `https://example.com/v2/Users/${babs.id}`, display: 'Babs Jensen' }],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(
      made.body.members.map((m: { value: string }) => m.value),
      [babs.id],
    );
    const groupsOf = async (id: string) => (await s.roost.users.findUser(id))?.groups ?? [];
    assert.deepEqual(await groupsOf(babs.id), ['Tour Guides']);
    const token = (await s.users('token', { identity: 'babs', password: 'a-long-enough-password' })).body
      .token as string;
    const inGroup = await s.users('authenticated', { group: 'Tour Guides' }, { token });
    assert.equal(inGroup.body.result, true, 'the session sees the group at once');
    // RFC 7644 §3.5.2.1: add members.
    const add = await scim(
      `/Groups/${made.body.id}`,
      {
        schemas: [PATCH],
        Operations: [
          {
            op: 'add',
            path: 'members',
            value: [{ display: 'Mandy Pepperidge', $ref: `https://example.com/v2/Users/${mandy.id}`, value: mandy.id }],
          },
        ],
      },
      { method: 'PATCH' },
    );
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.deepEqual(await groupsOf(mandy.id), ['Tour Guides']);
    const user = await scim(`/Users/${mandy.id}`, undefined, { method: 'GET' });
    assert.deepEqual(
      user.body.groups.map((g: { display: string }) => g.display),
      ['Tour Guides'],
    );
    // RFC 7644 §3.5.2.2: remove one member by a filter of its path.
    const remove = await scim(
      `/Groups/${made.body.id}`,
      {
        schemas: [PATCH],
        Operations: [{ op: 'remove', path: `members[value eq "${babs.id}"]` }],
      },
      { method: 'PATCH' },
    );
    assert.equal(remove.status, 200, JSON.stringify(remove.body));
    assert.deepEqual(await groupsOf(babs.id), []);
    assert.equal((await s.users('authenticated', { group: 'Tour Guides' }, { token })).body.result, false);
    // RFC 7644 §3.5.2.3: replace all members, and the name (the Roost group follows).
    const replace = await scim(
      `/Groups/${made.body.id}`,
      {
        schemas: [PATCH],
        Operations: [
          { op: 'replace', path: 'members', value: [{ value: babs.id }] },
          { op: 'replace', path: 'displayName', value: 'Guides' },
        ],
      },
      { method: 'PATCH' },
    );
    assert.equal(replace.status, 200, JSON.stringify(replace.body));
    assert.deepEqual(await groupsOf(babs.id), ['Guides']);
    assert.deepEqual(await groupsOf(mandy.id), []);
    const listed = await scim(
      `/Groups?filter=${encodeURIComponent('displayName eq "guides"')}&excludedAttributes=members`,
      undefined,
      { method: 'GET' },
    );
    assert.equal(listed.body.totalResults, 1);
    assert.equal(listed.body.Resources[0].members, undefined);
    // Entra ID's way: Add and Remove with the members as the value, no filter in the path.
    const entra = (op: 'Add' | 'Remove') =>
      scim(
        `/Groups/${made.body.id}`,
        { schemas: [PATCH], Operations: [{ op, path: 'members', value: [{ value: mandy.id }] }] },
        { method: 'PATCH' },
      );
    assert.equal((await entra('Add')).status, 200);
    assert.deepEqual(await groupsOf(mandy.id), ['Guides']);
    assert.equal((await entra('Remove')).status, 200);
    assert.deepEqual(await groupsOf(mandy.id), []);
    assert.deepEqual(await groupsOf(babs.id), ['Guides']);
    // Refused: a taken name, an unknown member, admins, a bad path; nothing changes.
    scimError(await scim('/Groups', { schemas: [GROUP], displayName: 'GUIDES' }), 409, 'uniqueness');
    scimError(
      await scim('/Groups', { schemas: [GROUP], displayName: 'admins', members: [{ value: babs.id }] }),
      400,
      'invalidValue',
    );
    scimError(
      await scim('/Groups', { schemas: [GROUP], displayName: 'x', members: [{ value: 'nobody' }] }),
      400,
      'invalidValue',
    );
    scimError(
      await scim(
        `/Groups/${made.body.id}`,
        { schemas: [PATCH], Operations: [{ op: 'jump', path: 'members' }] },
        { method: 'PATCH' },
      ),
      400,
    );
    assert.deepEqual(await groupsOf(babs.id), ['Guides']);
    assert.equal((await s.roost.users.findUser(babs.id))?.groups.includes('admins'), false);
    // Deleting the group takes it from its members; deleting a user removes the account.
    assert.equal((await scim(`/Groups/${made.body.id}`, undefined, { method: 'DELETE' })).status, 204);
    assert.deepEqual(await groupsOf(babs.id), []);
    assert.equal((await scim(`/Users/${mandy.id}`, undefined, { method: 'DELETE' })).status, 204);
    assert.equal(await s.roost.users.findUser(mandy.id), null);
    scimError(await scim(`/Users/${mandy.id}`, undefined, { method: 'GET' }), 404);
    // An account removed in Roost itself leaves its userName free for the provider again.
    await s.users('removeUser', { identity: babs.id }, { token: await s.adminToken() });
    scimError(await scim(`/Users/${babs.id}`, undefined, { method: 'GET' }), 404);
    assert.equal((await scim('/Users', { schemas: [USER], userName: 'babs' })).status, 201);
  });

  test('parallel membership changes of one account lose none; a lease held elsewhere is waited for', async () => {
    const user = (await scim('/Users', { schemas: [USER], userName: 'joiner' })).body;
    const groups = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => (await scim('/Groups', { schemas: [GROUP], displayName: `team-${n}` })).body),
    );
    const join = (group: { id: string }) =>
      scim(
        `/Groups/${group.id}`,
        { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: user.id }] }] },
        { method: 'PATCH' },
      );
    for (const answer of await Promise.all(groups.map(join))) assert.equal(answer.status, 200);
    const carried = async () => [...((await s.roost.users.findUser(user.id))?.groups ?? [])].sort();
    assert.deepEqual(await carried(), ['team-1', 'team-2', 'team-3', 'team-4', 'team-5']);
    // Another process holds the account's lease (scim_users.lease) for 400 ms more: the change waits for it.
    // (Timed from before the UPDATE: on a busy machine the UPDATE itself may take a while.)
    const started = Date.now();
    await s.roost.db
      .updateTable('scim_users')
      .set({ lease: started + 400 })
      .where('user_id', '=', user.id)
      .execute();
    const leave = await scim(
      `/Groups/${groups[0]?.id}`,
      { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${user.id}"]` }] },
      { method: 'PATCH' },
    );
    assert.equal(leave.status, 200, JSON.stringify(leave.body));
    assert.ok(Date.now() - started >= 350, 'it waited for the lease');
    assert.deepEqual(await carried(), ['team-2', 'team-3', 'team-4', 'team-5']);
  });

  test('discovery: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const config = await scim('/ServiceProviderConfig', undefined, { method: 'GET' });
    assert.equal(config.body.patch.supported, true);
    assert.equal(config.body.filter.supported, true);
    const types = await scim('/ResourceTypes', undefined, { method: 'GET' });
    assert.deepEqual(
      types.body.Resources.map((r: { id: string }) => r.id),
      ['User', 'Group'],
    );
    const schemas = await scim('/Schemas', undefined, { method: 'GET' });
    const user = schemas.body.Resources.find((r: { id: string }) => r.id === USER);
    assert.equal(user.attributes.find((a: { name: string }) => a.name === 'userName').uniqueness, 'server');
    assert.equal(user.attributes.find((a: { name: string }) => a.name === 'password').returned, 'never');
    const one = await scim(`/Schemas/${GROUP}`, undefined, { method: 'GET' });
    assert.equal(one.body.name, 'Group');
    assert.equal((await scim('/ResourceTypes/User', undefined, { method: 'GET' })).body.endpoint, '/Users');
    scimError(await scim('/Schemas/urn:nothing', undefined, { method: 'GET' }), 404);
  });
});
