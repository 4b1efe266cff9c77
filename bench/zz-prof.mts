import { fork } from 'node:child_process';
import autocannon from 'autocannon';
const child = fork('/work/wt-datastore/bench/datastore-server.ts', { execArgv: ['--import', 'tsx', '--import', '/tmp/sigint.mjs', '--cpu-prof', '--cpu-prof-dir=/tmp/prof'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const info: any = await new Promise((r) => child.once('message', r));
const op = process.argv[2] ?? 'get';
const opts: any = op === 'get' ? { url: `${info.url}/data/api/getItem?key=k500`, headers: { 'x-auth-token': info.token } }
  : { url: `${info.url}/data/api/setItem`, method: 'POST', headers: { 'x-auth-token': info.token, 'content-type': 'application/json' }, body: JSON.stringify({ key: 'k502', value: 'x' }) };
const r = await autocannon({ duration: 4, connections: 50, ...opts });
console.log(op, r.requests.average, r.non2xx);
child.kill('SIGINT');
await new Promise((r) => child.once('exit', r));
