// Roost against Parse Server, the peer a user might pick instead, on the same PostgreSQL, in the
// same minute: sign-up, sign-in, the signed-in user, and an object created, read, replaced and
// listed. Roost runs twice, on PostgreSQL (like for like) and on SQLite (its default).
import {
  compare,
  fresh,
  httpTarget,
  machineLine,
  PASSWORD_CONNECTIONS,
  publish,
  renderTable,
  slicesLine,
  start,
  stop,
  type HttpTargetOptions,
  type Measured,
  type Server,
} from './lib.js';
import { APP_ID, parseHeaders, peerUnavailable, startParse, type ParseInfo } from './parse-peer.js';
import { roostRequest, type RoostInfo } from './roost-requests.js';

interface Operation {
  key: string;
  label: string;
  parse: (info: ParseInfo) => HttpTargetOptions;
  roost: (info: RoostInfo) => HttpTargetOptions;
}

const json = { 'content-type': 'application/json' };
const password = 'bench-password';

const OPERATIONS: Operation[] = [
  {
    key: 'signup',
    label: 'sign-up (new account; Parse: bcrypt, Roost: argon2id)',
    parse: (p) => ({
      url: p.url,
      connections: PASSWORD_CONNECTIONS,
      requests: fresh('POST', '/parse/users', { ...json, 'x-parse-application-id': APP_ID }, (n) => ({
        username: n,
        email: `${n}@example.com`,
        password,
      })),
    }),
    roost: (r) => ({
      url: r.url,
      connections: PASSWORD_CONNECTIONS,
      requests: fresh('POST', '/users/api/signupDirect', json, (n) => ({
        name: n,
        email: `${n}@example.com`,
        password,
      })),
    }),
  },
  {
    key: 'login',
    label: 'sign-in (Parse: POST /login; Roost: token)',
    parse: (p) => ({
      url: `${p.url}/login`,
      connections: PASSWORD_CONNECTIONS,
      method: 'POST',
      headers: { ...json, 'x-parse-application-id': APP_ID },
      body: JSON.stringify({ username: 'bench', password }),
    }),
    roost: (r) => ({
      url: `${r.url}/users/api/token`,
      connections: PASSWORD_CONNECTIONS,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ identity: 'bench', password }),
    }),
  },
  {
    key: 'me',
    label: 'the signed-in user (Parse: GET /users/me; Roost: identity)',
    parse: (p) => ({ url: `${p.url}/users/me`, headers: parseHeaders(p) }),
    roost: (r) => roostRequest('identity', r),
  },
  {
    key: 'create',
    label: 'create an object (Parse: POST /classes/Item; Roost: newItem)',
    parse: (p) => ({
      url: p.url,
      requests: fresh('POST', '/parse/classes/Item', { ...json, ...parseHeaders(p) }, (n) => ({
        key: n,
        value: `value of ${n}`,
        ACL: { '*': { read: true } },
      })),
    }),
    roost: (r) => roostRequest('newItem', r),
  },
  {
    key: 'get',
    label: 'get an object (Parse: GET /classes/Item/<id>; Roost: getItem)',
    parse: (p) => ({ url: `${p.url}/classes/Item/${p.ids[500]}`, headers: parseHeaders(p) }),
    roost: (r) => roostRequest('getItem', r),
  },
  {
    key: 'update',
    label: 'replace a value (Parse: PUT /classes/Item/<id>; Roost: setItem)',
    parse: (p) => ({
      url: `${p.url}/classes/Item/${p.ids[502]}`,
      method: 'PUT',
      headers: { ...json, ...parseHeaders(p) },
      body: JSON.stringify({ value: 'a new value of item 502' }),
    }),
    roost: (r) => roostRequest('setItem', r),
  },
  {
    key: 'list',
    label: 'a page of 50 of 1000 by key, with the total (Parse: GET /classes/Item?count=1; Roost: list)',
    parse: (p) => ({ url: `${p.url}/classes/Item?limit=50&skip=100&order=key&count=1`, headers: parseHeaders(p) }),
    roost: (r) => roostRequest('list', r),
  },
];

export async function run(): Promise<void> {
  const unavailable = await peerUnavailable();
  if (unavailable) {
    console.log(`${unavailable}: the peer suite is skipped.`);
    process.exitCode = 1;
    return;
  }
  const machine = machineLine(
    'PostgreSQL 15 on the same machine for Parse Server and one Roost; SQLite for the other.',
  );
  let parse: Server<ParseInfo> | undefined;
  let postgres: Server<RoostInfo> | undefined;
  let sqlite: Server<RoostInfo> | undefined;
  try {
    parse = await startParse();
    postgres = await start<RoostInfo>('roost-server.ts', { BENCH_POSTGRES: '1' });
    sqlite = await start<RoostInfo>('roost-server.ts');
    const rows: Record<string, Measured> = {};
    const table = [];
    for (const op of OPERATIONS) {
      console.log(op.label);
      const [p, pg, lite] = await compare([
        httpTarget(`Parse Server: ${op.key}`, parse, op.parse(parse.info)),
        httpTarget(`Roost on PostgreSQL: ${op.key}`, postgres, op.roost(postgres.info)),
        httpTarget(`Roost on SQLite: ${op.key}`, sqlite, op.roost(sqlite.info)),
      ]);
      rows[`${op.key}.parse`] = p!;
      rows[`${op.key}.postgres`] = pg!;
      rows[`${op.key}.sqlite`] = lite!;
      table.push(
        { label: `**${op.label}**: Parse Server`, m: p! },
        { label: 'Roost on PostgreSQL', m: pg!, baseline: p! },
        { label: 'Roost on SQLite', m: lite!, baseline: p! },
      );
    }
    publish('peers', machine, `${slicesLine()} Sign-up and sign-in: ${PASSWORD_CONNECTIONS} connections.`, rows, [
      renderTable(table, 'Parse Server'),
    ]);
  } finally {
    await stop(parse, postgres, sqlite);
  }
}
