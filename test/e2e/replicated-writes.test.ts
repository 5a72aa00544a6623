// Acknowledged means replicated (design §13), against a primary and a replica of the test's own with
// REDIS_WAIT_REPLICAS=1: while the replica does not acknowledge, a commit, a reveal, a withdrawal and the agent key
// answer 503 SERVICE_UNAVAILABLE with Retry-After instead of an answer a failover could take back; a re-send waits
// again, and once the replica is back it returns the very same result.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../chaos/redis-server.ts';
import { Keys } from '../../store/keys.ts';
import { Player, type HttpResult } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-replicated-'));
let primary: RedisServer;
let replica: RedisServer;
let primaryClient: Redis;
let svc: TestService;
let player: Player;
let keys: Keys;

async function replicaInSync(): Promise<void> {
  for (;;) {
    const info = await primaryClient.info('replication');
    if (/slave0:.*state=online/.test(info)) {
      // Caught up: the replica acknowledged the primary's whole stream.
      const offset = Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
      if (Number(/slave0:.*offset=(\d+)/.exec(info)?.[1]) >= offset) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `body` with the replica hung (SIGSTOP), then lets it catch up. */
async function withReplicaHung<T>(body: () => Promise<T>): Promise<T> {
  replica.pause();
  try {
    return await body();
  } finally {
    replica.resume();
    await replicaInSync();
  }
}

const expect503 = (res: HttpResult) => {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(res.headers.get('retry-after')).not.toBeNull();
};

beforeAll(async () => {
  primary = new RedisServer({ dir: path.join(dir, 'primary'), appendfsync: 'everysec' });
  await primary.start();
  replica = new RedisServer({ dir: path.join(dir, 'replica'), appendfsync: 'everysec', args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  await replica.start();
  primaryClient = new Redis(primary.url);
  await replicaInSync();
  svc = await startTestService({ REDIS_URL: primary.url, REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '300', RATE_LIMIT_MAX: '1000000' });
  keys = new Keys(svc.config.REDIS_PREFIX);
  player = await new Player(svc.api, svc.rpcUrl).onboard(50);
}, 180_000);

afterAll(async () => {
  replica?.resume();
  try {
    await Promise.race([svc?.cleanup(), new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
  } finally {
    primaryClient?.disconnect();
    await replica?.stop();
    await primary?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

describe('acknowledged writes wait for the replica', () => {
  it('plays normally while the replica keeps up', async () => {
    const { reveal } = await player.playDice({ wager: 1 });
    expect(reveal.receiptId).toMatch(/^dice_/);
  });

  it('a commit the replica has not acknowledged answers 503; sent again once it has, the same ack', async () => {
    const p = await player.prepareDice({ wager: 1 });
    expect(p.res.status).toBe(200);
    const hash = p.res.body.betPayloadHash as string;
    const first = await withReplicaHung(async () => {
      const res = await player.commitDice(p.res.body);
      expect503(res);
      // Written on the primary all the same (the script ran): a re-send is answered from it, and waits again.
      expect(await primaryClient.hget(keys.bet(hash), 'state')).toBe('committed');
      expect503(await player.commitDice(p.res.body));
      return primaryClient.hget(keys.bet(hash), 'rngIndex');
    });
    const again = await player.commitDice(p.res.body);
    expect(again.status).toBe(200);
    expect(String(again.body.ack.rngIndex)).toBe(first);
    expect(again.body.status).toBe('awaiting_reveal');

    // The reveal likewise: settled on the primary, answered only once the replica has the settlement.
    const revealed = await withReplicaHung(async () => {
      const res = await player.revealDice(hash, p.clientSeedRaw, again.body.ack.revealMessage);
      expect503(res);
      expect(await primaryClient.hget(keys.bet(hash), 'state')).toBe('settled');
      expect503(await player.revealDice(hash, p.clientSeedRaw, again.body.ack.revealMessage));
    });
    expect(revealed).toBeUndefined();
    const settled = await player.revealDice(hash, p.clientSeedRaw, again.body.ack.revealMessage);
    expect(settled.status).toBe(200);
    expect(settled.body.receiptId).toBe(`dice_${hash.slice(0, 32)}`);
    const receipt = await player.get(`/receipts/${settled.body.receiptId}`);
    expect(receipt.status).toBe(200);
  });

  it('a withdrawal and the agent key made on first read wait too; the same Idempotency-Key returns the same withdrawal', async () => {
    const withdraw = () =>
      fetch(`${svc.api}/protocol/v1/player/withdraw`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${player.token}`, 'idempotency-key': 'replicated-1' },
        body: JSON.stringify({ amount: 1 }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any, headers: r.headers }));
    await withReplicaHung(async () => {
      expect503(await withdraw());
      expect503(await player.get('/protocol/v1/player/agent-key'));
      // A read that writes nothing answers as usual.
      expect((await player.get('/protocol/v1/player/status')).status).toBe(200);
    });
    const accepted = await withdraw();
    expect(accepted.status).toBe(200);
    const again = await withdraw();
    expect(again.body.withdrawal.id).toBe(accepted.body.withdrawal.id);
    const key = await player.get('/protocol/v1/player/agent-key');
    expect(key.status).toBe(200);
  });
});
