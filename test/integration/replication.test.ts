// Acknowledged means replicated (store/replication.ts): against a real primary and replica on free ports, the
// barrier covers writes of other connections, many callers share one WAIT, and a replica that does not answer
// (or is gone, with min-replicas-to-write) is a 503 SERVICE_UNAVAILABLE, never a false "replicated".
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PfwsError } from '../../protocol/errors.ts';
import { createRedis, isRedisUnavailable, type Redis } from '../../store/redis.ts';
import { NO_REPLICATION, Replication } from '../../store/replication.ts';
import { freePort } from '../helpers/process.ts';

const servers: ChildProcess[] = [];
let primaryPort: number;
let primary: Redis;
let other: Redis;
let replica: ChildProcess;
let replicaClient: Redis;
const BARRIER = `test-replication-${process.pid}:barrier`;

function redisServer(port: number, args: string[] = []): ChildProcess {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' });
  servers.push(child);
  return child;
}

const connect = async (port: number): Promise<Redis> => {
  const client = createRedis(`redis://127.0.0.1:${port}`, { retryStrategy: () => 50 });
  client.on('error', () => {});
  await client.ping();
  return client;
};

const waitCalls = async () => Number(/cmdstat_wait:calls=(\d+)/.exec(await primary.info('commandstats'))?.[1] ?? 0);

async function replicaInSync(): Promise<void> {
  for (;;) {
    const info = await primary.info('replication');
    if (/slave0:.*state=online/.test(info) && /min_slaves_good_slaves:1/.test(info)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  primaryPort = await freePort();
  const replicaPort = await freePort();
  redisServer(primaryPort, ['--min-replicas-to-write', '1', '--min-replicas-max-lag', '2']);
  replica = redisServer(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]);
  primary = await connect(primaryPort);
  other = await connect(primaryPort);
  replicaClient = await connect(replicaPort);
  await replicaInSync();
});

afterAll(async () => {
  replica.kill('SIGCONT');
  for (const client of [primary, other, replicaClient]) client?.disconnect();
  for (const server of servers) server.kill('SIGKILL');
});

describe('replication barrier', () => {
  // Where the replica is up, a bound a busy machine meets (a replica that misses 300 ms failed CI once); where it is
  // stalled, 300 ms, since the refusal is what is checked.
  const barrier = () => new Replication(primary, BARRIER, { replicas: 1, timeoutMs: 2_000 });

  it('resolves once a write of another connection is on the replica', async () => {
    await other.set('written-elsewhere', 'yes');
    await barrier().confirm();
    expect(await replicaClient.get('written-elsewhere')).toBe('yes');
  });

  it("refuses to call another connection's unreplicated write replicated, whatever the confirming connection wrote", async () => {
    await replicaInSync();
    // This connection's own last write is on the replica: a bare WAIT on it would count the stalled replica as caught up.
    const fresh = await connect(primaryPort);
    await fresh.set('own-write', '1');
    await new Replication(fresh, BARRIER, { replicas: 1, timeoutMs: 2_000 }).confirm();
    replica.kill('SIGSTOP');
    try {
      await other.set('written-while-stalled', 'yes');
      const err = await new Replication(fresh, BARRIER, { replicas: 1, timeoutMs: 300 }).confirm().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PfwsError);
      expect((err as PfwsError).code).toBe('SERVICE_UNAVAILABLE');
      expect((err as PfwsError).message).toMatch(/0 of 1 replicas/);
    } finally {
      replica.kill('SIGCONT');
      fresh.disconnect();
    }
    await replicaInSync();
    await barrier().confirm();
    expect(await replicaClient.get('written-while-stalled')).toBe('yes');
  });

  it('answers many concurrent callers with a few WAITs (group commit)', async () => {
    await replicaInSync();
    const replication = barrier();
    const before = await waitCalls();
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        await other.set(`concurrent-${i}`, String(i));
        await replication.confirm();
      }),
    );
    const waits = (await waitCalls()) - before;
    expect(waits).toBeGreaterThan(0);
    expect(waits).toBeLessThan(50);
    expect(await replicaClient.get('concurrent-199')).toBe('199');
  });

  it('a primary without good replicas refuses the barrier itself: 503, nothing waits on the connection', async () => {
    replica.kill('SIGSTOP');
    try {
      // Past min-replicas-max-lag the primary refuses writes outright (NOREPLICAS).
      let refused: unknown = null;
      while (!refused) {
        refused = await other.set('after-lag', '1').then(
          () => null,
          (e: unknown) => e,
        );
        if (!refused) await new Promise((r) => setTimeout(r, 200));
      }
      expect(isRedisUnavailable(refused)).toBe(true);
      const err = await barrier()
        .confirm()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PfwsError);
      expect((err as PfwsError).code).toBe('SERVICE_UNAVAILABLE');
      expect(isRedisUnavailable((err as PfwsError).cause)).toBe(true);
    } finally {
      replica.kill('SIGCONT');
    }
    await replicaInSync();
    await barrier().confirm();
  });

  it('with no replicas configured, sends nothing', async () => {
    const before = await waitCalls();
    await new Replication(primary, BARRIER, { replicas: 0, timeoutMs: 300 }).confirm();
    await NO_REPLICATION.confirm();
    expect(await waitCalls()).toBe(before);
  });
});
