// The log never forks while the service runs either: Redis put back to an older copy under a running worker (as a
// restore onto the live host would) and a new play settled on it. The worker must not sign that log: the commit job
// fails as unrecoverable, anchoring halts, /ready fails naming both sizes and roots, and the chain keeps exactly one
// commit per size. The same in Sentinel mode (a primary, its replica and three Sentinels; every write waits for the
// replica): the older copy reaches the replica too, and the guard reads the log through the Sentinels' primary.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dumpLedger, restoreLedger } from '../helpers/ledger-dump.ts';
import { Player, http } from '../helpers/player.ts';
import { operatorCommitsAfter } from '../../chain/operator-history.ts';
import { RedisHa } from '../../chaos/redis-ha.ts';

let svc: TestService;
let player: Player;

const committedSize = async () => Number(await svc.wiring.redis.hget(svc.wiring.keys.anchor(), 'committedSize'));

/** Every key of the ledger but BullMQ's (the queues are not what a ledger restore is about), dumped. */

describe.each(['single node', 'Sentinel'] as const)('Redis going back under a running worker (%s)', (mode) => {
  let ha: RedisHa | null = null;
  let dir: string | null = null;

  beforeAll(async () => {
    const env: Record<string, string> = { ANCHOR_MAX_DELAY_MS: '100', MANIFEST_MAX_DELAY_MS: '100' };
    if (mode === 'Sentinel') {
      dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-fork-ha-'));
      ha = new RedisHa({ dir, name: 'pfws-fork', downAfterMs: 5_000, maxLagS: 10, appendfsync: 'everysec' });
      await ha.start();
      // Only the Sentinels lead to the primary: REDIS_URL's host names nothing.
      Object.assign(env, { REDIS_URL: 'redis://127.0.0.1:1/0', REDIS_SENTINELS: ha.sentinelList, REDIS_SENTINEL_NAME: 'pfws-fork' });
    }
    svc = await startTestService(env);
    if (mode === 'Sentinel') expect(svc.config.REDIS_WAIT_REPLICAS).toBe(1);
    player = await new Player(svc.api, svc.rpcUrl).onboard(50);
  }, 120_000);

  afterAll(async () => {
    await svc?.cleanup();
    await ha?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is never signed: anchoring halts, readiness fails, one commit per size on-chain', async () => {
    await player.playDice({ wager: 1 });
    await vi.waitFor(async () => expect(await committedSize()).toBe(1), { timeout: 60_000, interval: 100 });
    const older = await dumpLedger(svc);
    await player.playDice({ wager: 1, target: 70 });
    await vi.waitFor(async () => expect(await committedSize()).toBe(2), { timeout: 60_000, interval: 100 });

    await restoreLedger(svc, older);
    // A play on the older ledger takes index 1 of the log again, with another entry than the one committed.
    await player.playDice({ wager: 2, target: 30 });

    const { redis, keys } = svc.wiring;
    const fork = await vi.waitFor(
      async () => {
        const reason = await redis.hget(keys.anchor(), 'fork');
        expect(reason).toBeTruthy();
        return reason!;
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(fork).toMatch(/the ledger's bet log holds 1 entries \(root [0-9a-f]{64}\)|the first 2 of the ledger's 2 bet-log entries have root [0-9a-f]{64}/);
    expect(fork).toMatch(/covers 2 entries \(root [0-9a-f]{64}\)/);
    expect(fork).toContain('npm run ledger -- recover');
    expect(await redis.hget(keys.anchor(), 'halted')).toBe(fork);

    const ready = await http('GET', `${svc.api.replace(/\/api$/, '')}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.anchor).toEqual({ status: 'failing', reason: fork });

    // Nothing more was signed: one commit of each size, the second the one made before Redis went back.
    await new Promise((r) => setTimeout(r, 1_000));
    const { commits } = await operatorCommitsAfter(svc.wiring.rpc, svc.wiring.operator.anchor.publicKey, null);
    expect(commits.map((c) => c.entryCount)).toEqual([1, 2]);
    expect(await committedSize()).toBe(1);
  }, 240_000);

  it('a start on that ledger is refused with the same facts', async () => {
    await expect(svc.restart()).rejects.toThrow(/does not hold the newest on-chain commit .* covers 2 entries/);
  }, 120_000);
});
