// A Redis restored from a backup older than a withdrawal that was paid, with no play anchored since (so the anchor's
// fork guard lets the service start): the restored ledger still holds the money the payout took. The ClickHouse archive
// proves the ledger is behind, so the keeper must pay nothing, even a request accepted before its first verdict;
// /ready fails naming both seqs and `npm run ledger -- recover`, and a new request is refused. After recovery the
// service is ready again, pays nothing twice, and the vault balances the books.
import { address } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ataOf } from '../../chain/genesis.ts';
import { recoverLedger } from '../../ledger/recover.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dumpLedger, recoveryDepsOf, restoreLedger } from '../helpers/ledger-dump.ts';
import { Player } from '../helpers/player.ts';

let svc: TestService;
let player: Player;

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', MANIFEST_MAX_DELAY_MS: '100' });
  player = await new Player(svc.api, svc.rpcUrl).onboard(50);
}, 120_000);

afterAll(async () => {
  await svc?.cleanup();
});

/** Every entry anchored and every journal event the ledger handed out shipped to the archive. */
async function archived(): Promise<void> {
  const { redis, keys } = svc.wiring;
  await vi.waitFor(
    async () => {
      const [size, committed, seq, shipped] = await Promise.all([
        redis.llen(keys.betLog()),
        redis.hget(keys.anchor(), 'committedSize'),
        redis.get(keys.journalSeq()),
        redis.hget(keys.heartbeat('shipper'), 'shippedSeq'),
      ]);
      expect(Number(committed)).toBe(size);
      expect(Number(shipped)).toBe(Number(seq));
    },
    { timeout: 90_000, interval: 200 },
  );
}

const walletUsdc = async () =>
  BigInt((await svc.wiring.rpc.getTokenAccountBalance(await ataOf(address(player.address), svc.wiring.setup.usdcMint)).send()).value.amount);

const keeperHistory = async () =>
  (await svc.wiring.rpc.getSignaturesForAddress(address(svc.wiring.operator.keeper.publicKey), { limit: 1000 }).send()).map((s) => s.signature);

const ready = async () => {
  const res = await fetch(`${svc.api.replace(/\/api$/, '')}/ready`);
  return { status: res.status, body: (await res.json()) as { checks: Record<string, { status: string; reason?: string }> } };
};

const withdraw = (amount: number, key: string) =>
  fetch(`${svc.api}/protocol/v1/player/withdraw`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${player.token}`, 'idempotency-key': key },
    body: JSON.stringify({ amount }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

describe('a ledger restored from a backup older than a paid withdrawal', () => {
  it('pays nothing again while it is behind the archive, fails /ready until recovered, and balances after recovery', async () => {
    await player.playDice({ wager: 1 });
    await archived();
    const older = await dumpLedger(svc);
    const backupSeq = Number(await svc.wiring.redis.get(svc.wiring.keys.journalSeq()));

    const before = await walletUsdc();
    const paid = await withdraw(5, 'after-the-backup');
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await keeperAtRest(svc);
    expect(await walletUsdc()).toBe(before + 5_000_000n);
    await archived();
    const archiveSeq = Number(await svc.wiring.redis.get(svc.wiring.keys.journalSeq()));
    expect(archiveSeq).toBeGreaterThan(backupSeq);

    await svc.worker!.stop();
    await svc.indexer!.stop();
    await restoreLedger(svc, older);
    // The same money asked for again on the restored ledger, accepted before the keeper's first verdict.
    const now = new Date();
    const again = await svc.wiring.stores.withdrawals.request(player.address, {
      id: 'wd_againafterrestore',
      amount: 5_000_000n,
      at: now.toISOString(),
      atMs: now.getTime(),
      alias: svc.wiring.aliases.of(player.address),
      idempotencyKey: 'again-after-restore',
    });
    expect(again).toEqual({ kind: 'ok', id: 'wd_againafterrestore' });

    svc = await svc.restart();
    const history = await keeperHistory();
    await vi.waitFor(
      async () => {
        const r = await ready();
        expect(r.status).toBe(503);
        expect(r.body.checks.payouts?.status).toBe('failing');
      },
      { timeout: 60_000, interval: 200 },
    );
    const reason = (await ready()).body.checks.payouts!.reason!;
    expect(reason).toContain(`the ledger's journal is at seq ${backupSeq + 1}, behind the archive in ClickHouse, which holds it up to seq ${archiveSeq}`);
    expect(reason).toContain('npm run ledger -- recover');
    const refused = await withdraw(5, 'while-behind');
    expect([refused.status, refused.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);

    await svc.worker!.keeper.flush();
    // Give a keeper that would pay again the time to do it.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await walletUsdc()).toBe(before + 5_000_000n);
    expect(await keeperHistory()).toEqual(history);
    expect((await svc.wiring.stores.withdrawals.get('wd_againafterrestore'))?.stored).toBeNull();

    // The operator's way out: the backup again (the request taken on the stale ledger goes with it), then recover.
    await svc.worker!.stop();
    await svc.indexer!.stop();
    await restoreLedger(svc, older);
    const deps = await recoveryDepsOf(svc);
    const report = await recoverLedger({ ...deps, watchMs: 1_500 });
    expect(report.outcome, report.message).toBe('recovered');
    expect(report.books.conserved, report.books.lines.join('\n')).toBe(true);

    svc = await svc.restart();
    await vi.waitFor(
      async () => {
        const r = await ready();
        expect(r.body.checks.payouts?.status, JSON.stringify(r.body.checks)).toBe('ok');
        expect(r.status, JSON.stringify(r.body.checks)).toBe(200);
      },
      { timeout: 60_000, interval: 200 },
    );
    await svc.worker!.keeper.flush();
    await keeperAtRest(svc);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await walletUsdc()).toBe(before + 5_000_000n);
    await expectConserved(svc, [player]);
  }, 400_000);
});
