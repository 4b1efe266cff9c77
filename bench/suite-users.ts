// The user identity service (SQLite): identity with a bearer token against the bare Fastify
// route, sign-in (`token`) against argon2id's own ceiling, in the same minute.
import {
  compare,
  httpTarget,
  loopTarget,
  machineLine,
  PASSWORD_CONNECTIONS,
  publish,
  renderTable,
  slicesLine,
  start,
  stop,
} from './lib.js';

export async function run(): Promise<void> {
  const machine = machineLine('SQLite.');
  const bare = await start('bare-server.ts');
  const roost = await start<{ url: string; token: string }>('roost-server.ts');
  const ceilings = await start('ceilings.ts');
  try {
    const { url, token } = roost.info;
    const [bareRow, ping, identity] = await compare([
      httpTarget('bare Fastify route', bare, { url: `${bare.info.url}/json` }),
      httpTarget('ping (GET /users/api/ping)', roost, { url: `${url}/users/api/ping` }),
      httpTarget('identity (GET, Authorization: Bearer)', roost, {
        url: `${url}/users/api/identity`,
        headers: { authorization: `Bearer ${token}` },
      }),
    ]);
    const [argon2, signIn] = await compare([
      loopTarget("argon2id verify in-process (Roost's parameters, 10 at once)", ceilings, 'argon2id-verify'),
      httpTarget('token (sign-in, POST JSON)', roost, {
        connections: PASSWORD_CONNECTIONS,
        url: `${url}/users/api/token`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: 'bench', password: 'bench-password' }),
      }),
    ]);
    const rows = { bare: bareRow!, ping: ping!, identity: identity!, argon2: argon2!, token: signIn! };
    publish('users', machine, `${slicesLine()} Sign-in: ${PASSWORD_CONNECTIONS} connections.`, rows, [
      renderTable([
        { label: rows.bare.name, m: rows.bare },
        { label: rows.ping.name, m: rows.ping, baseline: rows.bare },
        { label: rows.identity.name, m: rows.identity, baseline: rows.bare },
        { label: rows.argon2.name, m: rows.argon2 },
        { label: rows.token.name, m: rows.token, baseline: rows.argon2 },
      ]),
    ]);
  } finally {
    await stop(bare, roost, ceilings);
  }
}
