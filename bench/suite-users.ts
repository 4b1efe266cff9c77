// The user identity service against the bare Fastify route.
import { measure, measureBare, reportErrors, start, table, writeSection, type Row } from './lib.js';

export async function run(): Promise<void> {
  const bare = await measureBare();
  const rows: Row[] = [bare];
  const roost = await start<{ url: string; token: string }>('roost-server.ts');
  try {
    const { url, token } = roost.info;
    const auth = { 'x-auth-token': token };
    rows.push(await measure('ping (GET /users/api/ping)', { url: `${url}/users/api/ping` }, bare));
    rows.push(await measure('identity with token (GET)', { url: `${url}/users/api/identity`, headers: auth }, bare));
    rows.push(await measure('profile with token (POST JSON)', {
      url: `${url}/users/api/profile`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}',
    }, bare));
    rows.push(await measure('token (sign-in, argon2id)', {
      url: `${url}/users/api/token`, method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: 'bench', password: 'bench-password' }),
    }, bare));
  } finally {
    roost.child.kill();
  }
  const text = table(rows);
  console.log(text);
  writeSection('users', text);
  reportErrors(rows);
}
