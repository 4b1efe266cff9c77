import Fastify from 'fastify';
import autocannon from 'autocannon';
const app = Fastify();
const small = { hello: 'world' };
const big = { key: 'k5', value: 'value of item 5', timestamp: 1763776000.123, id: 6, owner: 'a-uuid-0000-0000-0000-000000000000', items: [{ key: 'k5', value: 'value of item 5', timestamp: 1763776000.123, id: 6, owner: 'a-uuid-0000-0000-0000-000000000000' }], result: true };
app.get('/small', async () => small);
app.get('/big', async () => big);
app.get('/bighdr', async (req, reply) => { reply.header('x-content-type-options', 'nosniff'); reply.header('x-frame-options', 'DENY'); reply.header('referrer-policy', 'no-referrer'); reply.header('cache-control', 'no-store'); return big; });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
for (const p of ['/small', '/big', '/bighdr', '/small']) {
  const before = process.cpuUsage();
  const r = await autocannon({ url: url + p, connections: 50, duration: 4 });
  const c = process.cpuUsage(before);
  console.log(p, Math.round(r.requests.average), 'bytes', Math.round(r.throughput.average / r.requests.average));
}
await app.close();
