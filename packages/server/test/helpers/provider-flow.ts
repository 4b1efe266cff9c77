import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';

/**
 * A browser's part of a provider sign-in without a browser, for the tests that run on both
 * databases: cookies kept per host, redirects followed by hand, and the provider's login and
 * consent forms (oidc-provider's dev interactions) posted as a person would. `signIn` walks from
 * Roost's start address to wherever the sign-in ends: a Roost page, or the app's address.
 */
export class CookieJar {
  readonly #cookies = new Map<string, Map<string, string>>();

  header(url: URL): string {
    return [...(this.#cookies.get(url.host) ?? new Map<string, string>()).entries()]
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  }

  keep(url: URL, res: Response): void {
    let jar = this.#cookies.get(url.host);
    if (!jar) {
      jar = new Map();
      this.#cookies.set(url.host, jar);
    }
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone =
        value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
  }
}

export interface FlowEnd {
  /** The last address reached: a Roost page's, or the app's (not fetched). */
  url: URL;
  status: number;
  text: string;
}

/**
 * Follows redirects from `url`, posting the provider's forms on the way (login as `login`,
 * then consent), until an answer that is no redirect, or a redirect to an origin in `stopAt`.
 */
export async function walk(jar: CookieJar, url: string, login: string, stopAt: string[] = []): Promise<FlowEnd> {
  let next = new URL(url);
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    if (stopAt.includes(next.origin)) return { url: next, status: 0, text: '' };
    const headers = new Headers(init.headers);
    const cookie = jar.header(next);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(next, { ...init, headers, redirect: 'manual' });
    jar.keep(next, res);
    const location = res.headers.get('location');
    if (location && res.status >= 300 && res.status < 400) {
      next = new URL(location, next);
      init = {};
      continue;
    }
    const text = await res.text();
    // A provider's answer by `response_mode=form_post` (Apple's; oidc-provider's page "Submitting
    // Callback"): a form of hidden fields that a browser's script posts at once.
    const posted = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/i.exec(text);
    if (posted?.[1] && text.includes('<title>Submitting Callback</title>')) {
      const fields = [...(posted[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)];
      next = new URL(posted[1].replace(/&amp;/g, '&'), next);
      const body = new URLSearchParams(fields.map((f) => [f[1] ?? '', f[2] ?? '']));
      init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      continue;
    }
    const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(text);
    const prompt = /name="prompt" value="(\w+)"/.exec(text)?.[1];
    if (!form?.[1] || !prompt) return { url: next, status: res.status, text };
    const body = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'anything' } : {}) });
    next = new URL(form[1].replace(/&amp;/g, '&'), next);
    init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error(`too many redirects from ${url}`);
}

/** What the GitHub-like server knows of the next person to sign in. */
interface GitHubPerson {
  id: number;
  login: string;
  email: string;
  verified: boolean;
}

/** A stand-in of an OAuth2 provider: its address, its client, and who the next authorization signs in. */
export interface FakeOAuth2<Person> {
  /** The server's address: a preset's `issuer`, which moves its endpoints here (users/provider-presets.ts). */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who the next authorization signs in (the provider would ask; this one just says yes). */
  person: Person;
  close(): Promise<void>;
}

export type FakeGitHub = FakeOAuth2<GitHubPerson>;

/**
 * A stand-in for an OAuth2 provider without OpenID Connect, the parts Roost's clients use
 * (users/provider-clients.ts): `authorize` (approves at once), `token` (checks the client secret,
 * in the body or as HTTP Basic, the code and its PKCE verifier, once) and the user API's `answers`
 * with the bearer token, each made of the person. The real providers are not reachable from the tests.
 */
export async function startFakeOAuth2<Person>(
  endpoints: { authorize: string; token: string },
  answers: Record<string, (person: Person) => unknown>,
  client: { clientId: string; clientSecret: string; person: Person },
): Promise<FakeOAuth2<Person>> {
  const codes = new Map<string, { challenge: string; redirect: string; person: Person }>();
  const tokens = new Map<string, Person>();
  const state: FakeOAuth2<Person> = { url: '', ...client, close: async () => {} };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', state.url);
    if (url.pathname === endpoints.authorize) {
      const code = randomBytes(16).toString('hex');
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', redirect, person: state.person });
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === endpoints.token && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = new URLSearchParams(raw);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /i, ''), 'base64').toString();
      const [basicId = '', basicSecret = ''] = basic.split(':').map((part) => decodeURIComponent(part));
      const authenticated =
        (form.get('client_id') === state.clientId && form.get('client_secret') === state.clientSecret) ||
        (basicId === state.clientId && basicSecret === state.clientSecret);
      const ok =
        grant &&
        authenticated &&
        form.get('redirect_uri') === grant.redirect &&
        createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
      if (!ok) return json(res, 400, { error: 'bad_verification_code' });
      const token = randomBytes(16).toString('hex');
      tokens.set(token, grant.person);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read' });
    }
    const person = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
    if (!person) return json(res, 401, { message: 'Bad credentials' });
    const answer = answers[url.pathname];
    return answer ? json(res, 200, answer(person)) : json(res, 404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/**
 * A stand-in for GitHub's OAuth2 and user API, the parts Roost's `github` preset uses (users/
 * provider-clients.ts): `/login/oauth/authorize`, `/login/oauth/access_token`, `/api/v3/user` and
 * `/api/v3/user/emails`.
 */
export function startFakeGitHub(): Promise<FakeGitHub> {
  return startFakeOAuth2<GitHubPerson>(
    { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token' },
    {
      '/api/v3/user': (person) => ({ id: person.id, login: person.login, name: null }),
      '/api/v3/user/emails': (person) => [{ email: person.email, primary: true, verified: person.verified }],
    },
    {
      clientId: 'gh-client',
      clientSecret: 'gh-secret',
      person: { id: 1, login: 'octo', email: 'octo@example.com', verified: true },
    },
  );
}

/**
 * The ID token a native app's SDK gets from the provider at `issuer` for `login`, as public
 * client `clientId` (no secret, PKCE) sending the browser back to `callback`, with `nonce` given
 * to the provider: the authorization code flow walked without a browser, the code traded by
 * openid-client. For the tests of `signinIdToken` (http/id-token-signin.test.ts and the
 * connector's browser test).
 */
export async function appIdToken(
  issuer: string,
  clientId: string,
  callback: string,
  login: string,
  nonce: string,
): Promise<string> {
  const config = await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback,
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const end = await walk(new CookieJar(), url.href, login, [new URL(callback).origin]);
  const tokens = await oidc.authorizationCodeGrant(config, end.url, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  if (!tokens.id_token) throw new Error('the provider answered no ID token');
  return tokens.id_token;
}
