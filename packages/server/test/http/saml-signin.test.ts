import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { parseConfig, type SamlConnectionConfig } from '../../src/core/config.js';
import { idpOf } from '../../src/users/signin-methods/saml/saml-metadata.js';
import { CookieJar } from '../helpers/provider-flow.js';
import {
  selfSignedPair,
  startSamlIdp,
  type KeyPair,
  type PostedAnswer,
  type TestSamlIdp,
} from '../helpers/saml-idp.js';
import { freePort, startServer, type TestServer } from '../helpers/test-server.js';
import { defineExtension, refuse } from '../../src/roost.js';

/**
 * SAML single sign-on (users/signin-methods/saml/) over HTTP on both databases, against the
 * SAML identity provider of test/helpers/saml-idp.ts on 127.0.0.1: real AuthnRequests by the
 * Redirect binding, real answers signed by xml-crypto (and encrypted by xml-encryption) posted
 * to the ACS. The hostile answers are tampered, forged, replayed, for another audience, expired
 * (by Roost's clock), for a request Roost never made, sent unasked, with another RelayState, in
 * another browser, and XML with an external entity or a comment in the NameID.
 */
const MINUTE = 60_000;

/** The sign-in's and the sign-up's hooks (docs/hooks.md) see a SAML sign-in as a provider's. */
const samlGate = defineExtension((roost) => {
  roost.hooks.before('user.signin', ({ method, step, input }) => {
    if (method === 'saml' && step === 'finish' && input.identity === 'blocked@acme.example')
      throw refuse({ status: 403, code: 'signin_blocked', message: 'This account may not sign in.' });
    return undefined;
  });
  roost.hooks.before('user.signup', ({ policy, input }) => {
    if (policy === 'provider' && input.email === 'unwanted@acme.example')
      throw refuse({ code: 'signup_refused', message: 'This person may not sign up.', fields: { email: 'refused' } });
    return undefined;
  });
});

describe('SAML single sign-on over HTTP', () => {
  let s: TestServer;
  let idp: TestSamlIdp;
  let sp: KeyPair;
  /** A key the IdP never had. */
  let forger: KeyPair;
  let offset = 0;
  const clock = { now: () => Date.now() + offset };

  const person = (nameId: string, extra: Record<string, string[]> = {}) => ({
    nameId,
    attributes: { mail: [`${nameId}@acme.example`], displayName: [`${nameId} Example`], uid: [nameId], ...extra },
  });

  /** GET with this browser's cookies, no redirect followed. */
  async function get(jar: CookieJar, url: string): Promise<Response> {
    const target = new URL(url, s.url);
    const res = await fetch(target, { headers: { cookie: jar.header(target) }, redirect: 'manual' });
    jar.keep(target, res);
    return res;
  }

  /** Starts a sign-in at `connection` in `jar`'s browser and has the IdP answer: the answer its form posts. */
  async function started(jar: CookieJar, connection = 'acme', redirect = '/users/account'): Promise<PostedAnswer> {
    const start = await get(jar, `/users/saml/${connection}/start?redirect=${encodeURIComponent(redirect)}`);
    assert.equal(start.status, 303, await start.text());
    const page = await get(jar, start.headers.get('location') ?? '');
    assert.equal(page.status, 200, await page.text());
    const answer = idp.answers.at(-1);
    assert.ok(answer);
    return answer;
  }

  /** Posts an answer to its ACS as the IdP's page would, then follows the 303 to `finish` in `jar`'s browser. */
  async function posted(jar: CookieJar, answer: PostedAnswer, follow = true) {
    const acs = new URL(answer.acsUrl);
    const body = new URLSearchParams({ SAMLResponse: answer.SAMLResponse });
    if (answer.RelayState !== null) body.set('RelayState', answer.RelayState);
    const res = await fetch(acs, { method: 'POST', body, redirect: 'manual' });
    if (res.status !== 303 || !follow) return { status: res.status, text: await res.text(), location: null };
    const finish = await get(jar, res.headers.get('location') ?? '');
    return { status: finish.status, text: await finish.text(), location: finish.headers.get('location') };
  }

  /** The account this browser is signed into (the session cookie), or null. */
  async function signedIn(jar: CookieJar): Promise<{ id: string; name: string; email: string } | null> {
    const res = await get(jar, '/users/api/identity');
    const body = (await res.json()) as { id?: string; name: string; email: string };
    return body.id ? { id: body.id, name: body.name, email: body.email } : null;
  }

  /** An account's groups and real name, as an administrator sees them. */
  async function account(name: string): Promise<{ groups: string[]; realname: string }> {
    return (await s.users('getUser', { identity: name }, { token: await s.adminToken() })).body;
  }

  async function refused(answer: PostedAnswer, status: number, words: RegExp, jar = new CookieJar()) {
    const users = (await s.users('list', {}, { token: await s.adminToken() })).body.total as number;
    const res = await posted(jar, answer);
    assert.equal(res.status, status, res.text.slice(0, 400));
    assert.match(res.text, words);
    assert.equal(await signedIn(jar), null);
    assert.equal((await s.users('list', {}, { token: await s.adminToken() })).body.total, users, 'no account made');
  }

  before(async () => {
    [idp, sp, forger] = await Promise.all([startSamlIdp(), selfSignedPair('roost-test-sp'), selfSignedPair('forger')]);
    idp.spCert = sp.cert;
    const port = await freePort();
    const idpConfig = { entityId: idp.entityId, ssoUrl: idp.ssoUrl, certs: [idp.keys.cert] };
    s = await startServer(
      {
        port,
        publicUrl: `http://127.0.0.1:${port}`,
        users: {
          secondFactorGroups: ['vault'],
          saml: [
            {
              id: 'acme',
              name: 'Acme',
              idp: idpConfig,
              sp: { privateKey: sp.privateKey, cert: sp.cert },
              attributes: { email: 'mail', realname: 'displayName', username: 'uid', groups: 'memberOf' },
              groups: { Engineering: 'engineers', Admins: 'admins', Vault: 'vault' },
              domains: ['acme.example'],
            },
            {
              // The same IdP by its metadata XML.
              id: 'partner',
              idp: { metadata: idp.metadata },
              sp: { privateKey: sp.privateKey, cert: sp.cert },
              requireEncryption: true,
              idpInitiated: true,
              attributes: { email: 'mail' },
              domains: ['partner.example'],
            },
          ],
        },
      },
      { clock, extensions: [samlGate] },
    );
    await s.grant('signupDirect', ['sys:everyone']);
  });
  after(async () => {
    await s?.close();
    await idp?.close();
  });

  test('SP-initiated: a signed AuthnRequest, an account made by the mapped attributes and groups', async () => {
    idp.next = person('ada', { memberOf: ['Engineering', 'Marketing'] });
    const jar = new CookieJar();
    const answer = await started(jar);
    const request = idp.requests.at(-1);
    assert.equal(request?.issuer, `${s.url}/users/saml/acme`);
    assert.equal(request?.acsUrl, `${s.url}/users/saml/acme/acs`);
    assert.equal(request?.signatureValid, true, 'signed with the SP key');
    assert.match(answer.RelayState ?? '', /^\S{20,}$/);
    const end = await posted(jar, answer);
    assert.equal(end.status, 303, end.text);
    assert.equal(end.location, '/users/account');
    const me = await signedIn(jar);
    assert.equal(me?.name, 'ada');
    assert.equal(me?.email, 'ada@acme.example');
    // Only mapped values become groups: Marketing is not one.
    assert.deepEqual((await account('ada')).groups, ['engineers']);
    assert.equal((await account('ada')).realname, 'ada Example');

    // The next sign-in maps again: out of Engineering, into Admins; a group given by hand stays.
    const set = { identity: 'ada', values: { groups: ['engineers', 'staff'] } };
    assert.equal((await s.users('setUser', set, { token: await s.adminToken() })).body.result, true);
    idp.next = person('ada', { memberOf: ['Admins'] });
    const again = new CookieJar();
    assert.equal((await posted(again, await started(again))).status, 303);
    assert.equal((await signedIn(again))?.id, me?.id);
    assert.deepEqual((await account('ada')).groups.sort(), ['admins', 'staff']);
    const sessions = await fetch(`${s.url}/users/api/sessions`, { headers: { cookie: again.header(new URL(s.url)) } });
    const methods = ((await sessions.json()) as { sessions: { method: string }[] }).sessions.map((x) => x.method);
    assert.ok(methods.includes('saml'), methods.join());
  });

  test('the hooks run, and a group that needs a second factor asks for it before any session', async () => {
    idp.next = person('blocked');
    let jar = new CookieJar();
    let end = await posted(jar, await started(jar));
    assert.equal(end.status, 403);
    assert.match(end.text, /may not sign in/);
    idp.next = person('unwanted');
    jar = new CookieJar();
    end = await posted(jar, await started(jar));
    assert.equal(end.status, 422);
    assert.match(end.text, /may not sign up/);

    // `vault` is a group of `users.secondFactorGroups`: the IdP's Vault maps into it, and the
    // account must set up an authenticator in the sign-in's second step first.
    idp.next = person('vic', { memberOf: ['Vault'] });
    jar = new CookieJar();
    end = await posted(jar, await started(jar));
    assert.equal(end.status, 200, end.text.slice(0, 300));
    assert.match(end.text, /id="verify-code"/);
    assert.equal(await signedIn(jar), null);
    assert.deepEqual((await account('vic')).groups, ['vault']);
  });

  test('an encrypted assertion is decrypted; a plain one where encryption is required is refused', async () => {
    idp.next = { ...person('bea'), encryptTo: sp.cert };
    const jar = new CookieJar();
    const answer = await started(jar);
    assert.match(answer.xml, /EncryptedAssertion/);
    assert.doesNotMatch(answer.xml, /bea@acme\.example/);
    assert.equal((await posted(jar, answer)).status, 303);
    assert.equal((await signedIn(jar))?.email, 'bea@acme.example');

    idp.next = { nameId: 'plain', attributes: { mail: ['plain@partner.example'] } };
    await refused(await started(new CookieJar(), 'partner'), 422, /not encrypted/);
  });

  test('a tampered assertion, a forged signature, another issuer and another recipient are refused', async () => {
    idp.next = {
      ...person('eve'),
      tamper: (xml) => xml.replace('eve@acme.example', 'ada@acme.example'),
    };
    await refused(await started(new CookieJar()), 422, /signature/);
    idp.next = { ...person('eve'), signWith: forger };
    await refused(await started(new CookieJar()), 422, /signature/);
    idp.next = { ...person('eve'), issuer: 'https://other-idp.test' };
    await refused(await started(new CookieJar()), 422, /issuer/);
    idp.next = { ...person('eve'), recipient: 'https://another-service.test/acs' };
    await refused(await started(new CookieJar()), 422, /recipient/);
  });

  test('a replayed answer is refused, also in a new browser, and of two posted at once one passes', async () => {
    idp.next = person('cleo');
    const jar = new CookieJar();
    const answer = await started(jar);
    assert.equal((await posted(jar, answer)).status, 303);
    await refused(answer, 422, /used already/);

    const twice = await started(new CookieJar());
    const statuses = await Promise.all([posted(jar, twice, false), posted(jar, twice, false)]);
    assert.deepEqual(statuses.map((r) => r.status).sort(), [303, 422]);
  });

  test('another audience, expired conditions and conditions not yet valid by Roost’s clock are refused', async () => {
    idp.next = { ...person('dan'), audience: 'https://another-service.test' };
    await refused(await started(new CookieJar()), 422, /audience/);
    const now = Date.now();
    idp.next = { ...person('dan'), notBefore: new Date(now - 20 * MINUTE), notOnOrAfter: new Date(now - 10 * MINUTE) };
    await refused(await started(new CookieJar()), 422, /not valid at this time/);
    // Valid by the process's time, but Roost's clock is half an hour behind: not valid yet there.
    idp.next = person('dan');
    const jar = new CookieJar();
    const answer = await started(jar);
    offset = -30 * MINUTE;
    try {
      await refused(answer, 422, /not valid at this time/, jar);
    } finally {
      offset = 0;
    }
  });

  test('an unknown InResponseTo, another RelayState and another browser are refused', async () => {
    idp.next = { ...person('fay'), inResponseTo: '_never-asked' };
    await refused(await started(new CookieJar()), 422, /not started here/);

    idp.next = person('fay');
    const jar = new CookieJar();
    const answer = await started(jar);
    await refused({ ...answer, RelayState: 'another-relay-state-of-the-attacker' }, 422, /not started here/, jar);

    // An answer of the attacker's own sign-in, posted from a victim's browser: it has no RelayState cookie.
    idp.next = person('mallory');
    const attacker = new CookieJar();
    const own = await started(attacker);
    await refused(own, 422, /not started here/, new CookieJar());
  });

  test('IdP-initiated answers are refused by default and taken where the connection allows them', async () => {
    const acme = await idp.unsolicited(`${s.url}/users/saml/acme/acs`, `${s.url}/users/saml/acme`, person('gus'));
    await refused(acme, 403, /no sign-in started at the identity provider/);

    const jar = new CookieJar();
    const partner = await idp.unsolicited(`${s.url}/users/saml/partner/acs`, `${s.url}/users/saml/partner`, {
      nameId: 'hal',
      attributes: { mail: ['hal@partner.example'] },
      encryptTo: sp.cert,
    });
    const end = await posted(jar, partner);
    assert.equal(end.status, 303, end.text);
    assert.equal((await signedIn(jar))?.email, 'hal@partner.example');
  });

  test('"sign in with your company": the address’s domain picks the connection', async () => {
    const jar = new CookieJar();
    // A page that goes on by itself (the sign-in page's form may not be redirected off Roost: its CSP).
    const goesOn = async (res: Response) => {
      assert.equal(res.status, 200);
      return /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(await res.text())?.[1]?.replace(/&amp;/g, '&');
    };
    const routed = await get(jar, '/users/saml?email=ivy%40ACME.example&redirect=%2Fusers%2Faccount');
    assert.equal(await goesOn(routed), '/users/saml/acme/start?redirect=%2Fusers%2Faccount');
    const posted = await fetch(`${s.url}/users/saml`, {
      method: 'POST',
      body: new URLSearchParams({ email: 'ivy@partner.example' }),
      redirect: 'manual',
    });
    assert.equal(await goesOn(posted), '/users/saml/partner/start?redirect=%2Fusers%2Fsignin');
    const unknown = await get(jar, '/users/saml?email=ivy%40elsewhere.example');
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /No company sign-in is set up/);
    const notMail = await get(jar, '/users/saml?email=nobody');
    assert.equal(notMail.status, 422);
  });

  test('hostile XML: an external entity is refused, a comment in the NameID does not cut it short', async () => {
    idp.next = person('jo');
    const xxe = await started(new CookieJar());
    const entity = '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>';
    const hostile = entity + xxe.xml.replace('jo@acme.example', '&x;');
    await refused({ ...xxe, SAMLResponse: Buffer.from(hostile).toString('base64') }, 422, /not accepted/);

    // The victim's account, linked by its NameID.
    idp.next = person('boss');
    const victim = new CookieJar();
    assert.equal((await posted(victim, await started(victim))).status, 303);
    const boss = await signedIn(victim);
    // The attacker's own NameID `boss.evil`, signed by the IdP, with a comment put in after the
    // signature (C14N drops comments, so the signature still holds): never the victim's `boss`.
    idp.next = { ...person('boss.evil'), tamper: (xml) => xml.replace('>boss.evil<', '>boss<!---->.evil<') };
    const jar = new CookieJar();
    const res = await posted(jar, await started(jar));
    assert.equal(res.status, 303, res.text.slice(0, 300));
    const evil = await signedIn(jar);
    assert.notEqual(evil?.id, boss?.id);
    // node-saml read the whole NameID: the same NameID without the comment is the same account.
    idp.next = person('boss.evil');
    const plain = new CookieJar();
    assert.equal((await posted(plain, await started(plain))).status, 303);
    assert.equal((await signedIn(plain))?.id, evil?.id);
  });

  test('a malformed post to the ACS is refused and signs nobody in', async () => {
    const acs = `${s.url}/users/saml/acme/acs`;
    // None, not base64, and a document that is no signed SAML response.
    const bodies: Record<string, string>[] = [
      {},
      { SAMLResponse: 'not base64 !' },
      { SAMLResponse: Buffer.from('<x/>').toString('base64') },
    ];
    for (const body of bodies) {
      const res = await fetch(acs, { method: 'POST', body: new URLSearchParams(body), redirect: 'manual' });
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    const unknown = await fetch(`${s.url}/users/saml/nowhere/acs`, {
      method: 'POST',
      body: new URLSearchParams({ SAMLResponse: 'PHgvPg==' }),
      redirect: 'manual',
    });
    assert.equal(unknown.status, 404);
  });

  test('an IdP metadata without a Redirect sign-on service or a signing certificate is named at start', () => {
    const connection = (metadata: string) =>
      parseConfig({ users: { saml: [{ id: 'broken', idp: { metadata } }] } }).users.saml[0] as SamlConnectionConfig;
    const noRedirect = idp.metadata.replace(/<md:SingleSignOnService Binding="[^"]*HTTP-Redirect"[^>]*>/, '');
    assert.throws(() => idpOf(connection(noRedirect)), /"broken".*HTTP-Redirect/);
    const noKey = idp.metadata.replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, '');
    assert.throws(() => idpOf(connection(noKey)), /"broken".*signing certificate/);
    assert.deepEqual(idpOf(connection(idp.metadata)), {
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      certs: [new X509Certificate(idp.keys.cert).toString()],
    });
  });

  test('the SP metadata names the entity, the ACS and the key', async () => {
    const res = await fetch(`${s.url}/users/saml/acme/metadata`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /samlmetadata\+xml/);
    const xml = await res.text();
    assert.match(xml, new RegExp(`entityID="${s.url}/users/saml/acme"`));
    assert.match(xml, new RegExp(`Location="${s.url}/users/saml/acme/acs"`));
    assert.match(xml, /KeyDescriptor use="signing"/);
    assert.match(xml, /KeyDescriptor use="encryption"/);
    // The document's ID is an xs:ID (an NCName), never empty: ID="" fails a check against SAML's schema.
    assert.match(xml, /<EntityDescriptor [^>]*\bID="roost_metadata_acme"/);
    assert.equal((await fetch(`${s.url}/users/saml/nowhere/metadata`)).status, 404);
  });
});
