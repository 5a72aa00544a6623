// A withdrawal paid in the tail a backup lost, after the archive's last event: the archive rebuilds its request, but
// the keeper's record of the send and the payout's journal entry are gone. Recovery must find the payout in the keeper
// key's history and record it, so that the service, started again, does not pay it a second time, and the vault
// on-chain still balances the books.
import { address } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ataOf } from '../../chain/genesis.ts';
import { RecoveryArchive } from '../../analytics/recovery-archive.ts';
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

/** Every entry anchored, every journal event up to `seq` shipped to the archive. */
async function archivedTo(size: number, seq: number): Promise<void> {
  const { redis, keys } = svc.wiring;
  await vi.waitFor(
    async () => {
      const [committed, shipped] = await Promise.all([redis.hget(keys.anchor(), 'committedSize'), redis.hget(keys.heartbeat('shipper'), 'shippedSeq')]);
      expect(Number(committed)).toBe(size);
      expect(Number(shipped)).toBeGreaterThanOrEqual(seq);
    },
    { timeout: 90_000, interval: 200 },
  );
}

const walletUsdc = async (rpc: TestService['wiring']['rpc']) =>
  BigInt((await rpc.getTokenAccountBalance(await ataOf(address(player.address), svc.wiring.setup.usdcMint)).send()).value.amount);

describe('a withdrawal paid after the backup and after the archive', () => {
  it('is found on-chain by recovery and never paid again once the service starts', async () => {
    await player.playDice({ wager: 1 });
    const size = await svc.wiring.stores.anchors.logSize();
    const { redis, keys } = svc.wiring;
    await archivedTo(size, Number(await redis.get(keys.journalSeq())));
    const older = await dumpLedger(svc);

    const before = await walletUsdc(svc.wiring.rpc);
    const res = await fetch(`${svc.api}/protocol/v1/player/withdraw`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${player.token}`, 'idempotency-key': 'lost-tail' },
      body: JSON.stringify({ amount: 5 }),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const id = body.withdrawal.id as string;
    await keeperAtRest(svc);
    const paid = await svc.wiring.stores.withdrawals.get(id);
    expect(paid?.status).toBe('finalized');
    const signature = paid!.signature!;
    expect(await walletUsdc(svc.wiring.rpc)).toBe(before + 5_000_000n);
    // The archive holds the request, not the payout: its last event is the one before `withdrawal_paid`.
    const events = await redis.xrange(keys.journal(), '-', '+');
    const seqOf = (type: string) => {
      const e = events.find(([, f]) => f[f.indexOf('type') + 1] === type && f[f.indexOf('data') + 1]!.includes(id));
      return Number(e![1][e![1].indexOf('seq') + 1]);
    };
    const paidSeq = seqOf('withdrawal_paid');
    expect(seqOf('withdrawal_requested')).toBeLessThan(paidSeq);
    await archivedTo(size, paidSeq - 1);

    await svc.worker!.stop();
    await svc.indexer!.stop();
    await restoreLedger(svc, older);
    const { wiring } = svc;
    const deps = await recoveryDepsOf(svc);
    class Lagging extends RecoveryArchive {
      override async maxSeq() {
        return Math.min(await super.maxSeq(), paidSeq - 1);
      }
    }
    const report = await recoverLedger({ ...deps, archive: new Lagging(deps.archive.engine), watchMs: 1_500 });
    expect(report.outcome, report.message).toBe('recovered');
    expect(report.restored.withdrawals).toBe(1);
    expect(report.restored.payouts).toBe(1);
    expect(report.notes.join('\n')).toContain(`withdrawal ${id} was paid on-chain after the backup (${signature})`);
    expect(report.books.conserved, report.books.lines.join('\n')).toBe(true);
    const recovered = await wiring.stores.withdrawals.get(id);
    expect([recovered?.status, recovered?.signature]).toEqual(['finalized', signature]);

    svc = await svc.restart();
    await svc.worker!.keeper.flush();
    await keeperAtRest(svc);
    // Give a keeper that would pay again the time to do it.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await walletUsdc(svc.wiring.rpc)).toBe(before + 5_000_000n);
    expect((await svc.wiring.stores.withdrawals.get(id))?.signature).toBe(signature);
    await expectConserved(svc, [player]);
  }, 300_000);
});
