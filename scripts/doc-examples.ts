// Produces the request/response examples of docs/users.md from a real server.
//
//   node --import tsx scripts/doc-examples.ts > /tmp/examples.md
//
// Starts Roost through the test harness (fresh data directory, outbox mailer), calls every
// operation of the user service in a sensible order, and prints each request (as curl) and its
// answer as markdown. Random values (tokens, ids, generated names and passwords) are replaced
// by placeholders such as `<alice-token>`, so the output can be pasted as it is.
import {
  startServer,
  tokenFromMail,
  type CallOptions,
  type CallResult,
  type TestServer,
} from '../packages/server/test/helpers/test-server.ts';
import { userOperations } from '../packages/server/src/http/protocol/user-protocol.ts';
import { USER_PERMISSION_DEFAULTS } from '../packages/server/src/users/user-permissions.ts';
import type { OutboxMail } from '../packages/server/src/mail/outbox-mailer.ts';
import { pretty } from './doc-format.ts';

const BASE = 'http://127.0.0.1:8080';
const placeholders = new Map<string, string>();
const secret = (value: string, name: string) => {
  placeholders.set(value, `<${name}>`);
  return value;
};
const serverUrls = new Set<string>();
function tidy(text: string): string {
  let out = text;
  for (const url of serverUrls) out = out.replaceAll(url, BASE);
  // Long filler strings of the "too long" examples are shortened.
  out = out.replace(/(.)\1{99,}/g, (run, c: string) => `${c.repeat(4)}…(${run.length} characters)…${c.repeat(4)}`);
  // Longest first, so a token is never half-replaced by a shorter secret inside it.
  for (const [value, name] of [...placeholders].sort((a, b) => b[0].length - a[0].length))
    out = out.replaceAll(value, name);
  // Ids of users without a placeholder of their own.
  return out.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
}

const lines: string[] = [];
const out = (s = '') => lines.push(s);
const called = new Set<string>();

interface Step {
  title?: string;
  op: string;
  body?: Record<string, unknown>;
  method?: 'GET' | 'POST' | 'DELETE';
  token?: string;
  headers?: Record<string, string>;
  raw?: string;
  /** Response headers to show. */
  show?: string[];
}

function curlOf(server: TestServer, step: Step): string {
  const method = step.method ?? (step.body !== undefined || step.raw !== undefined ? 'POST' : 'GET');
  let path = `/users/api/${step.op}`;
  if (method === 'GET' && step.body && Object.keys(step.body).length) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(step.body)) q.set(k, String(v));
    path += `?${q.toString()}`;
  }
  const parts = [`curl -s${step.show ? 'i' : ''}`];
  if (method === 'DELETE' || (method === 'POST' && step.body === undefined && step.raw === undefined))
    parts.push(`-X ${method}`);
  parts.push(`'${server.url}${path}'`);
  if (step.token) parts.push(`-H 'x-auth-token: ${step.token}'`);
  for (const [k, v] of Object.entries(step.headers ?? {})) parts.push(`-H '${k}: ${v}'`);
  if (method === 'POST') {
    const body = step.raw ?? JSON.stringify(step.body ?? {});
    if (!step.headers?.['content-type']) parts.push(`-H 'content-type: application/json'`);
    parts.push(`-d '${body.replaceAll("'", "'\\''")}'`);
  }
  const oneLine = parts.join(' ');
  return oneLine.length <= 100 ? oneLine : parts.join(' \\\n  ');
}

async function call(server: TestServer, step: Step): Promise<CallResult> {
  serverUrls.add(server.url);
  called.add(step.op);
  const method = step.method ?? (step.body !== undefined || step.raw !== undefined ? 'POST' : 'GET');
  const options: CallOptions = {
    method,
    ...(step.token ? { token: step.token } : {}),
    ...(step.headers ? { headers: step.headers } : {}),
  };
  let res: CallResult;
  if (method === 'GET') {
    const q =
      step.body && Object.keys(step.body).length
        ? `?${new URLSearchParams(Object.entries(step.body).map(([k, v]) => [k, String(v)])).toString()}`
        : '';
    res = await server.request(`/users/api/${step.op}${q}`, undefined, options);
  } else if (step.raw !== undefined) {
    res = await server.request(`/users/api/${step.op}`, undefined, { ...options, raw: step.raw });
  } else {
    res = await server.request(`/users/api/${step.op}`, method === 'DELETE' ? undefined : (step.body ?? {}), options);
  }
  if (step.title) {
    out(`**${step.title}**`);
    out();
  }
  out('```sh');
  out(curlOf(server, step));
  out('```');
  out();
  out('```http');
  out(`HTTP/1.1 ${res.status}`);
  for (const h of step.show ?? []) {
    const v = h === 'set-cookie' ? res.headers.getSetCookie().join(`\n${h}: `) : res.headers.get(h);
    if (v) out(`${h}: ${v}`);
  }
  out();
  out(typeof res.body === 'string' ? res.body : pretty(res.body));
  out('```');
  out();
  return res;
}

const section = (op: string, text?: string) => {
  out(`### \`${op}\``);
  out();
  const defaults = USER_PERMISSION_DEFAULTS[op];
  if (text) {
    out(text);
    out();
  }
  if (defaults) {
    out(`Permission \`${op}\`, default: ${defaults.map((g) => `\`${g}\``).join(', ')}.`);
    out();
  }
};

async function newestMail(server: TestServer, to: string): Promise<OutboxMail> {
  return server.lastMail(to);
}

async function main(): Promise<void> {
  const s = await startServer({ mail: { adminAddress: 'admin@example.com' }, publicUrl: BASE });
  const summaries = new Map(userOperations(s.roost.users, s.roost.config).map((r) => [r.op, r]));
  const doc = (op: string, extra?: string) => {
    const r = summaries.get(op);
    const aliases = r?.aliases?.length ? ` Also served as ${r.aliases.map((a) => `\`${a}\``).join(', ')}.` : '';
    const methods = r?.del ? ' Answers GET, POST and DELETE.' : '';
    section(op, [r?.summary ?? '', aliases, methods, extra ? ` ${extra}` : ''].join('').trim());
  };
  try {
    const admin = secret(await s.adminToken(), 'admin-token');

    out('## Service');
    out();
    doc('ping');
    await call(s, { op: 'ping' });

    out('## Permissions (administrators)');
    out();
    doc('getPermissions', 'Answers every entry of the user service, defaults included.');
    await call(s, { op: 'getPermissions', token: admin });
    doc(
      'setPermissions',
      '`permissions` is one entry or a list; each has `permission`, `groups` (or `group`, a string or a list) and ' +
        '`action` (`add`, the default; `replace`; `revoke`). Answers the entries after the change.',
    );
    const grant = await call(s, {
      title: 'Open four sign-up policies to everybody',
      op: 'setPermissions',
      token: admin,
      body: {
        permissions: ['signupDirect', 'signupOptin', 'signupReview', 'signupSendpw'].map((permission) => ({
          permission,
          groups: ['sys:everyone'],
          action: 'replace',
        })),
      },
    });
    if (grant.body?.result !== true) throw new Error('grant failed');
    await call(s, {
      title: 'Failure: unknown permission',
      op: 'setPermissions',
      token: admin,
      body: { permissions: { permission: 'fly', group: 'admins' } },
    });

    out('## Sign-up and activation');
    out();
    doc('signupDirect');
    await call(s, {
      op: 'signupDirect',
      body: { name: 'alice', email: 'alice@example.com', password: 'alice-password-1', realname: 'Alice Adams' },
    });
    await call(s, {
      title: 'Failure: invalid fields',
      op: 'signupDirect',
      body: { name: 'al', email: 'alice-at-example', password: '' },
    });
    await call(s, {
      title: 'Failure: name and email taken',
      op: 'signupDirect',
      body: { name: 'Alice', email: 'ALICE@example.com', password: 'another-password' },
    });

    doc('signupOptin', 'The activation mail is shown under "Mails".');
    await call(s, { op: 'signupOptin', body: { name: 'bob', email: 'bob@example.com', password: 'bob-password-1' } });
    const bobToken = secret(tokenFromMail(await newestMail(s, 'bob@example.com')), 'activation-token');
    doc('activate');
    await call(s, { op: 'activate', body: { token: bobToken } });
    await call(s, {
      title: 'Failure: the token was used already (or is unknown or expired)',
      op: 'activate',
      body: { token: bobToken },
    });

    doc('signupReview', 'When `mail.adminAddress` is set, it gets a notification mail.');
    await call(s, {
      op: 'signupReview',
      body: { name: 'carol', email: 'carol@example.com', password: 'carol-password-1' },
    });
    for (const n of ['dave', 'erin', 'frank', 'gina']) {
      await s.users('signupReview', { name: n, email: `${n}@example.com`, password: `${n}-password-1` });
    }

    doc('signupSendpw');
    await call(s, { op: 'signupSendpw', body: { name: 'henry', email: 'henry@example.com' } });
    const pwMail = await newestMail(s, 'henry@example.com');
    const henryPassword = /this password: (\S+)/.exec(pwMail.text)?.[1] ?? '';
    secret(henryPassword, 'generated-password');

    doc('signupUid', 'The email may be left out only under the identity policy `name`.');
    await call(s, {
      title: 'Failure: the policy is not enabled (403 for every caller: signing in would not help)',
      op: 'signupUid',
      body: { email: 'ida@example.com', password: 'ida-password-1' },
    });
    await call(s, {
      title: 'Enabling it, in the form the connectors send (`group`, default action `add`)',
      op: 'setPermissions',
      token: admin,
      body: { permissions: { permission: 'signupUid', group: 'sys:everyone' } },
    });
    const uid = await call(s, { op: 'signupUid', body: { email: 'ida@example.com', password: 'ida-password-1' } });
    secret(String(uid.body.name), 'generated-name');
    await call(s, {
      title: 'Failure: no email under the policy `either`',
      op: 'signupUid',
      body: { password: 'ida-password-1' },
    });

    out('## Tokens and sessions');
    out();
    doc(
      'token',
      'The identity is a name or an email (identity policy `either`). `expires` is in milliseconds since the epoch.',
    );
    const tokenRes = await call(s, { op: 'token', body: { identity: 'alice', password: 'alice-password-1' } });
    const alice = secret(tokenRes.body.token as string, 'alice-token');
    const aliceId = secret((await s.users('identity', {}, { token: alice })).body.id as string, 'alice-id');
    void aliceId;
    await call(s, {
      title: 'Failure: wrong password (also unknown, pending, disabled or locked accounts)',
      op: 'token',
      body: { identity: 'alice@example.com', password: 'wrong' },
    });
    await call(s, { title: 'Failure: missing fields', op: 'token', body: { identity: 'alice' } });

    doc('signin', 'The token is not in the body; the cookie lives as long as a token (`users.tokenLifetimeSeconds`).');
    const signin = await call(s, {
      op: 'signin',
      body: { identity: 'alice@example.com', password: 'alice-password-1' },
      show: ['set-cookie'],
    });
    const cookieToken = /auth=([^;]+)/.exec(signin.headers.getSetCookie()[0] ?? '')?.[1] ?? '';
    secret(cookieToken, 'cookie-token');
    await call(s, {
      title: 'A browser request with the cookie (same origin)',
      op: 'identity',
      headers: { cookie: `auth=${cookieToken}` },
    });
    await call(s, {
      title: 'Failure: a cookie-authenticated write from another site (CSRF protection)',
      op: 'update',
      body: { realname: 'Mallory' },
      headers: { cookie: `auth=${cookieToken}`, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });

    doc('signout', 'Works with the header as well as with the cookie.');
    await call(s, { op: 'signout', body: {}, headers: { cookie: `auth=${cookieToken}` }, show: ['set-cookie'] });
    await call(s, {
      title: 'The revoked token no longer signs in',
      op: 'profile',
      headers: { cookie: `auth=${cookieToken}` },
    });

    out('## The signed-in user');
    out();
    doc('identity');
    await call(s, { op: 'identity', token: alice });
    await call(s, { title: 'Failure: no token', op: 'identity' });
    doc('name', 'Under the identity policy `email`, `name` holds the email.');
    await call(s, { op: 'name', token: alice });
    doc('profile');
    await call(s, { op: 'profile', token: alice });
    doc(
      'authenticated',
      '`groups` (or `group`) is a string or a list; with it, ' +
        '`result` says whether the caller is in at least one of them.',
    );
    await call(s, { op: 'authenticated', token: alice });
    await call(s, { op: 'authenticated', token: alice, body: { groups: 'admins' } });
    await call(s, { title: 'Anonymous', op: 'authenticated' });
    doc('allowed', '`permission` or `permissions`, a string or a list; `result` is true when every one is held.');
    await call(s, { op: 'allowed', token: alice, body: { permission: ['profile', 'update', 'getUser'] } });

    out('## Changing the own account');
    out();
    doc(
      'update',
      '`data` may be an object or a JSON string; it is stored and answered as a string (at most ' +
        '`users.dataMaxLength` characters).',
    );
    await call(s, {
      op: 'update',
      token: alice,
      body: { realname: 'Alice A. Adams', notify: true, data: { theme: 'dark', lang: 'en' } },
    });
    await call(s, { title: 'Failure: data too long', op: 'update', token: alice, body: { data: 'x'.repeat(10_001) } });

    doc('updatePassword', 'Other sessions of the user are revoked; the calling one stays.');
    await call(s, {
      op: 'updatePassword',
      token: alice,
      body: { password: 'alice-password-1', newpassword: 'alice-password-2' },
    });
    await call(s, {
      title: 'Failure: wrong current password',
      op: 'updatePassword',
      token: alice,
      body: { password: 'nope', newpassword: 'alice-password-3' },
    });
    await call(s, {
      title: 'Failure: new password too short',
      op: 'updatePassword',
      token: alice,
      body: { password: 'alice-password-2', newpassword: 'short' },
    });

    doc('updateEmail', 'By default only administrators hold it; users go through `verifyEmail`.');
    await call(s, {
      title: 'An administrator, through the alias `updateMail`',
      op: 'updateMail',
      token: admin,
      body: { email: 'root@example.com' },
    });
    called.add('updateEmail');
    await call(s, {
      title: 'Failure: a user without the permission',
      op: 'updateEmail',
      token: alice,
      body: { email: 'alice@example.org' },
    });
    await call(s, {
      title: 'Failure: invalid address',
      op: 'updateEmail',
      token: admin,
      body: { email: 'root-at-example' },
    });

    doc('verifyEmail', 'The address changes only with `verifyEmail2`.');
    await call(s, { op: 'verifyEmail', token: alice, body: { email: 'alice@example.org' } });
    await call(s, {
      title: 'Failure: the address belongs to another account',
      op: 'verifyEmail',
      token: alice,
      body: { email: 'bob@example.com' },
    });
    const verifyToken = secret(tokenFromMail(await newestMail(s, 'alice@example.org')), 'verify-token');
    doc('verifyEmail2');
    await call(s, { op: 'verifyEmail2', body: { token: verifyToken } });
    await call(s, { title: 'Failure: used token', op: 'verifyEmail2', body: { token: verifyToken } });

    doc('resetPassword', 'Only an active account with an email gets the mail.');
    await call(s, { op: 'resetPassword', body: { identity: 'alice' } });
    await call(s, {
      title: 'Unknown account: the same answer, no mail',
      op: 'resetPassword',
      body: { identity: 'nobody@example.com' },
    });
    const resetToken = secret(tokenFromMail(await newestMail(s, 'alice@example.org')), 'reset-token');
    doc('resetPassword2', 'Revokes every session of the account and lifts a lockout.');
    await call(s, {
      title: 'Failure: new password too short',
      op: 'resetPassword2',
      body: { token: resetToken, newpassword: 'short' },
    });
    await call(s, { op: 'resetPassword2', body: { token: resetToken, newpassword: 'alice-password-3' } });
    await call(s, {
      title: 'Failure: used token',
      op: 'resetPassword2',
      body: { token: resetToken, newpassword: 'alice-password-4' },
    });
    const alice2 = secret(
      (await s.users('token', { identity: 'alice', password: 'alice-password-3' })).body.token as string,
      'alice-token',
    );

    doc('message', 'The address is `mail.adminAddress`; without it the answer is 503 `no_admin_address`.');
    await call(s, { op: 'message', token: alice2, body: { message: 'Hello, please add me to the editors.' } });
    await call(s, { title: 'Failure: too long', op: 'message', token: alice2, body: { message: 'm'.repeat(5001) } });

    out('## Administrator functions');
    out();
    doc(
      'review',
      'Actions: `accept` (active, welcome mail), `optin` (stays pending, activation mail; `activate` with its token ' +
        'makes it active), `activate` (active, no mail), `reject` (removed), `disable` (disabled). Only pending ' +
        'accounts can be reviewed.',
    );
    await call(s, { op: 'review', token: admin, body: { identity: 'carol', action: 'accept' } });
    await call(s, { op: 'review', token: admin, body: { identity: 'dave@example.com', action: 'optin' } });
    secret(tokenFromMail(await newestMail(s, 'dave@example.com')), 'activation-token');
    await call(s, { op: 'review', token: admin, body: { identity: 'erin', action: 'reject' } });
    await call(s, { op: 'review', token: admin, body: { identity: 'frank', action: 'disable' } });
    await call(s, { op: 'review', token: admin, body: { identity: 'gina', action: 'activate' } });
    await call(s, {
      title: 'Failure: not pending',
      op: 'review',
      token: admin,
      body: { identity: 'carol', action: 'accept' },
    });
    await call(s, {
      title: 'Failure: unknown action',
      op: 'review',
      token: admin,
      body: { identity: 'dave', action: 'approve' },
    });
    await call(s, {
      title: 'Failure: unknown user',
      op: 'review',
      token: admin,
      body: { identity: 'erin', action: 'accept' },
    });
    await call(s, {
      title: 'Failure: not an administrator',
      op: 'review',
      token: alice2,
      body: { identity: 'dave', action: 'accept' },
    });

    doc(
      'getUser',
      'The identity is a name, an email or an id, whatever the identity policy. Answers the profile plus `state` ' +
        'and `created`.',
    );
    await call(s, { op: 'getUser', token: admin, body: { identity: 'alice' } });
    await call(s, { title: 'Failure: unknown user', op: 'getUser', token: admin, body: { identity: 'zed' } });

    doc(
      'setUser',
      '`values` may hold `realname`, `email`, `name`, `notify`, `data`, `groups`, `password`, `active` (false ' +
        'disables and signs out, true activates) and `pending` (true puts the account back into review). Other ' +
        'keys are refused.',
    );
    await call(s, {
      op: 'setUser',
      token: admin,
      body: { identity: 'alice', values: { groups: ['editors'], realname: 'Alice Adams' } },
    });
    await call(s, {
      title: 'Disable',
      op: 'setUser',
      token: admin,
      body: { identity: 'alice', values: { active: false } },
    });
    await call(s, {
      title: 'Reactivate',
      op: 'setUser',
      token: admin,
      body: { identity: 'alice', values: { active: true } },
    });
    await call(s, {
      title: 'Failure: unknown value, taken email',
      op: 'setUser',
      token: admin,
      body: { identity: 'alice', values: { colour: 'blue' } },
    });
    await call(s, { op: 'setUser', token: admin, body: { identity: 'alice', values: { email: 'bob@example.com' } } });

    doc(
      'list',
      'Search: `active` (true: active, false: disabled), `pending`, `name`, `email` (substrings), `search` (name, ' +
        'email or realname), `group`. Paging: `start` (1-based), `size` (default 20, at most 100), `sort` (`name`, ' +
        '`email`, `realname`, `activity`, `created`), `order` (`<` ' +
        'ascending, `>` descending). `total` counts every match.',
    );
    await call(s, { op: 'list', token: admin, body: { active: true, sort: 'name', order: '<', start: 1, size: 2 } });
    await call(s, { title: 'GET with a query', op: 'list', token: admin, method: 'GET', body: { pending: true } });
    doc('identities', 'Same parameters as `list`; answers identities.');
    await call(s, { op: 'identities', token: admin, body: { search: 'example.com', start: 2, size: 3, order: '>' } });

    doc(
      'removeUser',
      'Sessions and tokens go with it; name and email become free. The identity is a name, an email or an id.',
    );
    await call(s, { op: 'removeUser', token: admin, body: { identity: 'gina' } });
    await call(s, { title: 'Failure: unknown user', op: 'removeUser', token: admin, body: { identity: 'gina' } });

    out('## Ending the own account');
    out();
    const henry = secret(
      (await s.users('token', { identity: 'henry', password: henryPassword })).body.token as string,
      'henry-token',
    );
    doc('disable', 'Every session is revoked; name and email stay taken.');
    await call(s, { op: 'disable', token: henry, method: 'DELETE' });
    await call(s, {
      title: 'The disabled account cannot get a token',
      op: 'token',
      body: { identity: 'henry', password: henryPassword },
    });
    const bob = secret(
      (await s.users('token', { identity: 'bob', password: 'bob-password-1' })).body.token as string,
      'bob-token',
    );
    doc('delete', 'Sessions and tokens go with it; name and email become free.');
    await call(s, { op: 'delete', token: bob, method: 'DELETE' });
    await call(s, {
      title: 'The name is free again',
      op: 'signupDirect',
      body: { name: 'bob', email: 'bob@example.com', password: 'bob-password-2' },
    });

    out('## Mails');
    out();
    out(
      'Each mail has a plain-text and an HTML part, and goes through SMTP when `mail.smtpUrl` is set, else into the ' +
        'outbox (`<dataDir>/outbox/*.json`). Links start with the configured page (`users.activationUrl`, ' +
        '`users.verifyEmailUrl`, `users.resetPasswordUrl`, by default under `publicUrl`). A transport failure ' +
        'answers 503 `mail_failed`.',
    );
    out();
    out('| kind | sent by | to |');
    out('|---|---|---|');
    out('| `activation` | `signupOptin`, `review` `optin` | the new account |');
    out('| `signup_notification` | `signupReview` (when `mail.adminAddress` is set) | `mail.adminAddress` |');
    out('| `welcome` | `review` `accept` | the account |');
    out('| `password` | `signupSendpw` | the new account |');
    out('| `verify_email` | `verifyEmail` | the new address |');
    out('| `reset` | `resetPassword` | the account |');
    out('| `message` | `message` | `mail.adminAddress` |');
    out();
    out('The texts, as the walk-through above sent them (HTML part left out):');
    out();
    const seen = new Set<string>();
    for (const m of await s.outbox()) {
      if (seen.has(m.kind)) continue;
      seen.add(m.kind);
      out(`**${m.kind}** to ${m.to}: "${m.subject}"`);
      out();
      out('```text');
      out(m.text.trimEnd());
      out('```');
      out();
    }

    const missing = [...summaries.keys()].filter((op) => !called.has(op));
    if (missing.length) console.error(`not called: ${missing.join(', ')}`);
  } finally {
    await s.close();
  }

  // The transport failures need servers of their own (a low rate limit, a failing mailer).
  out('## Transport failures');
  out();
  const t = await startServer({ rateLimit: { max: 2, windowSeconds: 60 }, bodyLimit: 1024 });
  try {
    await call(t, {
      title: 'Malformed JSON: 400',
      op: 'token',
      raw: '{"identity": "alice",',
      headers: { 'content-type': 'application/json' },
    });
    await call(t, {
      title: 'Unsupported content type: 415',
      op: 'token',
      raw: '<identity>alice</identity>',
      headers: { 'content-type': 'application/xml' },
    });
    await call(t, {
      title: 'Body larger than `bodyLimit`: 413',
      op: 'update',
      raw: JSON.stringify({ data: 'x'.repeat(2000) }),
      headers: { 'content-type': 'application/json' },
    });
    await call(t, { title: 'Unknown operation: 404', op: 'fly' });
    await call(t, { op: 'resetPassword', body: { identity: 'alice' } });
    await call(t, { op: 'resetPassword', body: { identity: 'alice' } });
    await call(t, {
      title: 'Third call in the window: 429',
      op: 'resetPassword',
      body: { identity: 'alice' },
      show: ['retry-after'],
    });
  } finally {
    await t.close();
  }
  const f = await startServer(
    {},
    {
      mailer: {
        send: async () => {
          throw new Error('connection refused');
        },
        close: async () => {},
      },
    },
  );
  try {
    await f.grant('signupOptin', ['sys:everyone']);
    await call(f, {
      title: 'The mail server fails: 503',
      op: 'signupOptin',
      body: { name: 'jane', email: 'jane@example.com', password: 'jane-password-1' },
    });
    await call(f, {
      title: 'The account was removed again when the mail failed: trying again gives the same answer, never "exists"',
      op: 'signupOptin',
      body: { name: 'jane', email: 'jane@example.com', password: 'jane-password-1' },
    });
  } finally {
    await f.close();
  }

  console.log(tidy(lines.join('\n')));
}

await main();
