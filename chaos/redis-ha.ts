// The production Redis topology on loopback ports (design §13, docker-compose.yml): a primary and a replica, both
// with AOF and `min-replicas-to-write 1`, watched by three Sentinels (quorum 2).
import path from 'node:path';
import { Redis } from 'ioredis';
import { waitFor } from './ports.ts';
import { RedisServer, type AppendFsync } from './redis-server.ts';
import { Sentinel } from './sentinel.ts';

export interface RedisHaOptions {
  dir: string;
  /** The master name the Sentinels monitor (REDIS_SENTINEL_NAME). */
  name: string;
  /** Sentinel's down-after-milliseconds. */
  downAfterMs: number;
  /** min-replicas-max-lag: a primary whose replica has not acknowledged for this many seconds refuses writes. */
  maxLagS: number;
  appendfsync: AppendFsync;
}

export class RedisHa {
  readonly nodes: [RedisServer, RedisServer];
  readonly sentinels: Sentinel[] = [];

  constructor(readonly options: RedisHaOptions) {
    const args = ['--min-replicas-to-write', '1', '--min-replicas-max-lag', String(options.maxLagS)];
    const node = (i: number) => new RedisServer({ dir: path.join(options.dir, `node-${i}`), appendfsync: options.appendfsync, args });
    this.nodes = [node(0), node(1)];
  }

  /** REDIS_SENTINELS for the service. */
  get sentinelList(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /** Starts the primary, its replica and three Sentinels, and waits until every Sentinel knows all of them. */
  async start(): Promise<void> {
    const [a, b] = this.nodes;
    await a.start();
    await b.start(['--replicaof', '127.0.0.1', String(a.port)]);
    await this.waitInSync();
    for (let i = 0; i < 3; i++) {
      const sentinel = new Sentinel({
        dir: path.join(this.options.dir, `sentinel-${i}`),
        name: this.options.name,
        primaryPort: a.port,
        quorum: 2,
        downAfterMs: this.options.downAfterMs,
      });
      this.sentinels.push(sentinel);
      await sentinel.start();
    }
    await this.waitSentinelsKnowAll();
  }

  /** Every running Sentinel knows the replica and the other Sentinels (needed before a failover can happen). */
  async waitSentinelsKnowAll(timeoutMs = 30_000): Promise<void> {
    await waitFor(
      'the Sentinels to know the replica and each other',
      async () => {
        const known = await Promise.all(this.sentinels.map((s) => s.knows()));
        return known.every((k) => k.replicas >= 1 && k.sentinels >= this.sentinels.length - 1);
      },
      timeoutMs,
      200,
    );
  }

  /** The node the Sentinels' majority takes for the primary now. */
  async primary(): Promise<RedisServer> {
    const ports = await Promise.all(this.sentinels.map((s) => s.primaryPort().catch(() => 0)));
    const counts = new Map<number, number>();
    for (const p of ports) counts.set(p, (counts.get(p) ?? 0) + 1);
    const [port] = [...counts.entries()].sort((x, y) => y[1] - x[1])[0]!;
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`the Sentinels name an unknown primary on port ${port}`);
    return node;
  }

  /** The node that is not the primary. */
  async replica(): Promise<RedisServer> {
    const primary = await this.primary();
    return this.nodes.find((n) => n !== primary)!;
  }

  /** Waits until every Sentinel names another primary than `node`; returns when they all agree. */
  async waitFailoverFrom(node: RedisServer, timeoutMs = 60_000): Promise<RedisServer> {
    await waitFor(
      'Sentinel to promote the replica',
      async () => (await Promise.all(this.sentinels.map((s) => s.primaryPort()))).every((p) => p !== node.port),
      timeoutMs,
      50,
    );
    return this.primary();
  }

  /** Starts a stopped node as the replica of the current primary, as an orchestrator that asks Sentinel first does. */
  async rejoin(node: RedisServer): Promise<void> {
    const primary = await this.primary();
    await node.start(['--replicaof', '127.0.0.1', String(primary.port)]);
    await this.waitInSync();
  }

  /** The primary has a replica in sync that acknowledges within min-replicas-max-lag, so it takes writes. */
  async waitInSync(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      'the replica to be in sync',
      async () => {
        const primary = this.sentinels.length ? await this.primary() : this.nodes[0];
        const client = new Redis(primary.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        client.on('error', () => undefined);
        try {
          await client.connect();
          const info = await client.info('replication');
          return /role:master/.test(info) && /slave0:.*state=online/.test(info) && /min_slaves_good_slaves:1/.test(info);
        } finally {
          client.disconnect();
        }
      },
      timeoutMs,
      100,
    );
  }

  /** A client that follows the primary through the Sentinels, as the service's connections do. */
  client(): Redis {
    const client = new Redis({
      sentinels: this.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
      name: this.options.name,
      maxRetriesPerRequest: null,
      sentinelRetryStrategy: () => 100,
    });
    client.on('error', () => undefined);
    return client;
  }

  async stop(): Promise<void> {
    for (const s of this.sentinels) await s.stop().catch(() => undefined);
    for (const n of this.nodes) {
      n.resume();
      await n.kill().catch(() => undefined);
    }
  }
}
