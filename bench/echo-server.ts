// A bare Fastify JSON echo: the ceiling a bet-flow request is compared with.
import Fastify from 'fastify';

const app = Fastify();
app.post('/api/echo', async (request) => request.body);
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
