// The baseline: a bare Fastify JSON route, the ceiling for a Node JSON service on this machine.
import Fastify from 'fastify';
import './cpu-probe.js';

const app = Fastify({ logger: false });
app.get('/json', async () => ({ result: 1 }));
app.post('/json', async () => ({ result: 1 }));
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ url });
