// Recovery when the archive lags: the receipt of the newest play is not archived yet (the archiver runs a pass behind
// the shipper). Recovery must stop at that play — never append a log entry out of order — name what it did not
// restore, leave the log short of the chain (so the service still refuses), and finish once the receipt is there,
// resuming from where it stopped: the journal back with its own ids and seqs, the root the chain's, the books whole.
// The tail also holds a withdrawal the keeper gave back to the balance (the wallet closed its USDC account first), and
// the end of a Sweeper ticket whose first turn was settled before the backup (its receipt signs every turn again).
import { address } from '@solana/kit';
import { getBurnCheckedInstruction, getCloseAccountInstruction } from '@solana-program/token';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { createQueueRedis } from '../../store/redis.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dumpLedger, recoveryDepsOf, restoreLedger } from '../helpers/ledger-dump.ts';
import { Player } from '../helpers/player.ts';
import { RecoveryArchive } from '../../analytics/recovery-archive.ts';
import { recoverLedger, type RecoverDeps } from '../../ledger/recover.ts';
import { toPublicEvent } from '../../store/anchor-manifests.ts';

let svc: TestService;
let player: Player;

beforeAll(async () => {
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', MANIFEST_MAX_DELAY_MS: '100' });
  player = await new Player(svc.api, svc.rpcUrl).onboard(50);
}, 120_000);

afterAll(async () => {
  await svc?.cleanup();
});

/** Every entry anchored and filled, every journal event and receipt archived. */
async function settledAndArchived(size: number): Promise<void> {
  const { redis, keys } = svc.wiring;
  await vi.waitFor(
    async () => {
      const [anchor, seq, shipped, progress] = await Promise.all([
        redis.hmget(keys.anchor(), 'committedSize', 'filled'),
        redis.get(keys.journalSeq()),
        redis.hget(keys.heartbeat('shipper'), 'shippedSeq'),
        redis.hmget(keys.archiveProgress(), 'settled', 'anchored'),
      ]);
      expect([anchor.map(Number), Number(shipped), progress.map(Number)]).toEqual([[size, size], Number(seq), [size, size]]);
    },
    { timeout: 90_000, interval: 200 },
  );
}

/** A withdrawal the keeper returns: asked while the keeper is paused, then the wallet closes its (empty) USDC account. */
async function returnedWithdrawal(p: Player, amount: number): Promise<string> {
  const queue = new Queue('keeper', { connection: createQueueRedis(svc.config.redis), prefix: svc.wiring.keys.queuePrefix() });
  await queue.pause();
  let id: string;
  try {
    await vi.waitFor(async () => expect(await queue.getActiveCount()).toBe(0), { timeout: 20_000, interval: 50 });
    const res = await fetch(`${svc.api}/protocol/v1/player/withdraw`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}`, 'idempotency-key': 'returned' },
      body: JSON.stringify({ amount }),
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    id = body.withdrawal.id;
    const mint = svc.wiring.setup.usdcMint;
    const ata = await ataOf(address(p.address), mint);
    const held = BigInt((await svc.wiring.rpc.getTokenAccountBalance(ata).send()).value.amount);
    await sendAndConfirm(svc.wiring.rpc, p.signer, [
      ...(held > 0n ? [getBurnCheckedInstruction({ account: ata, mint, authority: p.signer, amount: held, decimals: 6 })] : []),
      getCloseAccountInstruction({ account: ata, destination: p.signer.address, owner: p.signer }),
    ]);
  } finally {
    await queue.resume();
    await queue.close();
  }
  await vi.waitFor(
    async () => expect((await p.get('/protocol/v1/player/status')).body.withdrawals.find((w: { id: string }) => w.id === id)?.status).toBe('returned'),
    { timeout: 30_000, interval: 100 },
  );
  return id;
}

/** A turn of a ticket: prepared, committed, revealed. */
async function sweeperTurn(p: Player, prepared: { clientSeedRaw: string; res: { status: number; body: any } }): Promise<any> {
  expect(prepared.res.status).toBe(200);
  const c = await p.commitSweeper(prepared.res.body);
  expect(c.status).toBe(200);
  const r = await p.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, c.body.ack.revealMessage);
  expect(r.status).toBe(200);
  return r.body;
}

/** An easy ticket left running after one row won (a ticket whose first choice lost ends, and another opens). */
async function ticketWithARowWon(p: Player): Promise<string> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const opened = await p.openTicket('easy', 1);
    expect(opened.status).toBe(200);
    const ticketId = opened.body.ticket.id as string;
    const turn = await sweeperTurn(p, await p.prepareChoice(ticketId, 0, 0));
    if (turn.ticket.status === 'running') return ticketId;
  }
  throw new Error('no easy ticket survived its first row in 10 tries');
}

const logSize = () => svc.wiring.stores.anchors.logSize();

const journal = async () => {
  const { redis, keys } = svc.wiring;
  return (await redis.xrange(keys.journal(), '-', '+')).map(([id, fields]) => toPublicEvent(id, fields));
};

describe('recovery against an archive that lags', () => {
  it('stops before the play it cannot rebuild, names the rest, and finishes once the archive holds it', async () => {
    await player.playDice({ wager: 1 });
    const ticketId = await ticketWithARowWon(player);
    const base = await logSize();
    await settledAndArchived(base);
    const older = await dumpLedger(svc);
    expect((await sweeperTurn(player, await player.prepareCashout(ticketId))).ticket.status).not.toBe('running');
    await player.playDice({ wager: 2, target: 70 });
    await returnedWithdrawal(player, 3);
    const last = await player.playDice({ wager: 1, target: 30 });
    await settledAndArchived(base + 3);
    const status = (await player.get('/protocol/v1/player/status')).body;
    const events = await journal();

    // The service is stopped (its worker and indexer; the API takes no request), then Redis goes back.
    await svc.worker!.stop();
    await svc.indexer!.stop();
    await restoreLedger(svc, older);
    const deps = await recoveryDepsOf(svc);
    const missing = last.reveal.receiptId as string;
    class Lagging extends RecoveryArchive {
      override async receipts(ids: readonly string[]) {
        const found = await super.receipts(ids);
        found.delete(missing);
        return found;
      }
    }
    const lagging: RecoverDeps = { ...deps, archive: new Lagging(deps.archive.engine), watchMs: 1_500 };

    const first = await recoverLedger(lagging);
    expect(first.outcome).toBe('failed');
    expect(first.chain?.entryCount).toBe(base + 3);
    expect(first.after.logSize).toBe(base + 2);
    expect(first.message).toMatch(
      new RegExp(`the rebuilt log holds ${base + 2} entries \\(root [0-9a-f]{64}\\), but the commit \\w+ covers ${base + 3} \\(root [0-9a-f]{64}\\)`),
    );
    // It stops at the play's commit, so that a run once the receipt is archived rebuilds the play whole.
    expect(first.notes.join('\n')).toMatch(
      new RegExp(`stopped at journal seq \\d+ \\(bet_committed\\): play ${missing} ends in the archived journal, but the archive holds no receipt of it yet`),
    );
    const hash = last.commit.betPayloadHash as string;
    expect(first.unrebuilt.map((u) => u.type)).toEqual([`bet_committed ${hash}`, `bet_settled ${missing}`]);
    expect(first.unrebuilt[1]).toMatchObject({ player: status.alias, amounts: { wager: '1 USDC' } });
    // The seqs the archive holds are never handed out again, restored or not.
    expect(first.after.journalSeq).toBe(events[events.length - 1]!.seq);
    expect(await logSize()).toBe(base + 2);
    // The ticket and the Dice play before the withdrawal were settled again.
    expect(first.restored.plays).toBe(2);
    // The withdrawal's request and its return, before the play it stopped at, were rebuilt.
    expect(first.restored.withdrawals).toBe(2);

    const second = await recoverLedger({ ...deps, watchMs: 1_500 });
    expect(second.outcome, second.message).toBe('recovered');
    expect(second.after.logSize).toBe(base + 3);
    expect(second.unrebuilt).toEqual([]);
    expect(second.books.conserved, second.books.lines.join('\n')).toBe(true);
    expect(await journal()).toEqual(events);
    expect((await player.get('/protocol/v1/player/status')).body).toEqual(status);

    // Sentinel mode: the rebuilt ledger is declared whole only once the replicas confirm it.
    const lost = await recoverLedger({
      ...deps,
      watchMs: 1_500,
      replication: {
        confirm: async () => {
          throw new Error('0 of 1 replicas acknowledged');
        },
      },
    });
    expect(lost.outcome).toBe('failed');
    expect(lost.message).toMatch(/the log holds the chain's newest commit \(\d+ entries, root [0-9a-f]{64}\), but the replicas did not confirm it: 0 of 1/);
    let confirmed = 0;
    const whole = await recoverLedger({ ...deps, watchMs: 1_500, replication: { confirm: async () => void confirmed++ } });
    expect([whole.outcome, confirmed]).toEqual(['whole', 1]);
  }, 300_000);
});
