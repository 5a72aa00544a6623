// A TCP proxy that holds every chunk `delayMs` each way, in order: Redis as across a network, for `bench latency`.
import { connect, createServer, type Socket } from 'node:net';

const [listenPort, upstreamPort, delayMs] = process.argv.slice(2).map(Number) as [number, number, number];

const relay = (from: Socket, to: Socket) => {
  from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
  from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  from.on('error', () => undefined);
};

createServer((client) => {
  const upstream = connect(upstreamPort, '127.0.0.1');
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  relay(client, upstream);
  relay(upstream, client);
}).listen(listenPort, '127.0.0.1', () => process.send?.('ready'));
