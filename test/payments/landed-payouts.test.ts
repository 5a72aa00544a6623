// Ledger recovery's check of open keeper jobs against the keeper key's history (ledger/landed-payouts.ts), on a
// localnet whose slots are 3 ms long so that blockhashes expire within a test: a payout that lands while recovery
// waits for the lost keeper's sends to expire is still found, one that never landed is left to the keeper, and what
// cannot be cleared is held for an operator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWithdrawal } from '../../chain/keeper-transactions.ts';
import { confirmSignature, sendWire } from '../../chain/send.ts';
import type { SolanaRpc } from '../../chain/rpc.ts';
import { recordLandedPayouts, type LandedPayoutDeps } from '../../ledger/landed-payouts.ts';
import type { WithdrawalRecord } from '../../store/withdrawals.ts';
import { USDC, startMoneyNet, usdcOf, walletWithUsdcAccount, type MoneyNet } from './money-net.ts';
import type { Address } from '../../protocol/address.ts';

let fast: MoneyNet;

beforeAll(async () => {
  fast = await startMoneyNet(1_000, 3);
});
afterAll(async () => {
  await fast?.dispose();
});

/** Open withdrawals as the ledger holds them after a restore: no record of any send. */
function ledgerOf(open: { id: string; wallet: Address; amount: bigint }[]) {
  const finished = new Map<string, string>();
  const held = new Map<string, string>();
  const records = (): WithdrawalRecord[] =>
    open
      .filter((w) => !finished.has(w.id) && !held.has(w.id))
      .map((w) => ({
        ...w,
        alias: '',
        status: 'pending',
        createdAt: new Date().toISOString(),
        createdAtMs: Date.now(),
        stored: null,
        sent: [],
        signature: null,
        finalizedAt: null,
        returnedAt: null,
        returnReason: null,
        stuck: null,
      }));
  const deps = (rpc: SolanaRpc): LandedPayoutDeps => ({
    rpc,
    keeperKey: fast.keys.keeper.publicKey,
    commitment: 'confirmed',
    withdrawals: {
      openRecords: async () => records(),
      finish: async (id, _wallet, signature) => {
        finished.set(id, signature);
        return true;
      },
      markStuck: async (id, reason) => void held.set(id, reason),
    },
    lp: { openJobs: async () => [], job: async () => null, finish: async () => true, markStuck: async () => undefined },
    clock: () => new Date(),
    expiryWaitMs: 30_000,
  });
  return { finished, held, deps };
}

const height = (rpc: SolanaRpc) => rpc.getBlockHeight({ commitment: 'confirmed' }).send();

describe('open payouts after a ledger restore', () => {
  it('finds a lost send that lands while recovery waits for its blockhash to expire, and leaves one never sent to the keeper', async () => {
    const wallet = await walletWithUsdcAccount(fast);
    const heightBefore = await height(fast.rpc);
    // Signed by the keeper before the crash; the record of it went with the Redis tail, and it is still in flight.
    const lost = await buildWithdrawal(fast.rpc, fast.setup, fast.keys.keeper.signer, { wallet: wallet.address, amount: 2n * USDC, withdrawalId: 'wd_lost' });
    let landedDuringWait = false;
    // It reaches the cluster only once recovery has scanned the history and waits for the lost sends to expire.
    const rpc = new Proxy(fast.rpc, {
      get(target, prop, receiver) {
        if (prop !== 'getBlockHeight') return Reflect.get(target, prop, receiver);
        return (config?: { commitment?: 'finalized' | 'confirmed' }) => {
          const call = target.getBlockHeight(config);
          return {
            send: async () => {
              if (config?.commitment === 'finalized' && !landedDuringWait) {
                landedDuringWait = true;
                await sendWire(target, lost.wire);
                await confirmSignature(target, lost.signature);
              }
              return call.send();
            },
          };
        };
      },
    }) as SolanaRpc;
    const ledger = ledgerOf([
      { id: 'wd_lost', wallet: wallet.address, amount: 2n * USDC },
      { id: 'wd_never', wallet: wallet.address, amount: 3n * USDC },
    ]);
    const result = await recordLandedPayouts(ledger.deps(rpc), { heightBefore, backupAtMs: Date.now() - 60_000, replayComplete: true });
    expect(landedDuringWait).toBe(true);
    expect(result).toMatchObject({ recorded: 1, held: 0 });
    expect(ledger.finished).toEqual(new Map([['wd_lost', lost.signature]]));
    expect(ledger.held.size).toBe(0);
    // Recovery returned only once every blockhash the lost keeper could have used had expired.
    expect(await fast.rpc.getBlockHeight({ commitment: 'finalized' }).send()).toBeGreaterThan(heightBefore + 150n);
    expect(await usdcOf(fast, wallet.address)).toBe(2n * USDC);
  });

  it('finds a payout that landed before recovery without waiting, among many other keeper transactions', async () => {
    const wallet = await walletWithUsdcAccount(fast);
    const paid = await buildWithdrawal(fast.rpc, fast.setup, fast.keys.keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_paid' });
    await sendWire(fast.rpc, paid.wire);
    await confirmSignature(fast.rpc, paid.signature);
    // Another job whose id the first one's memo begins with: a memo text that contains it is not it.
    const other = await buildWithdrawal(fast.rpc, fast.setup, fast.keys.keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_paid2' });
    await sendWire(fast.rpc, other.wire);
    await confirmSignature(fast.rpc, other.signature);
    const ledger = ledgerOf([{ id: 'wd_paid', wallet: wallet.address, amount: USDC }]);
    const result = await recordLandedPayouts(ledger.deps(fast.rpc), { heightBefore: await height(fast.rpc), backupAtMs: null, replayComplete: true });
    expect(result).toMatchObject({ recorded: 1, held: 0 });
    expect(ledger.finished).toEqual(new Map([['wd_paid', paid.signature]]));
  });

  it('holds every open payout for an operator when the archived tail was not restored whole', async () => {
    const wallet = await walletWithUsdcAccount(fast);
    const ledger = ledgerOf([{ id: 'wd_partial', wallet: wallet.address, amount: USDC }]);
    const result = await recordLandedPayouts(ledger.deps(fast.rpc), { heightBefore: await height(fast.rpc), backupAtMs: null, replayComplete: false });
    expect(result).toMatchObject({ recorded: 0, held: 1 });
    expect(ledger.held.get('wd_partial')).toMatch(/not restored whole.*pfws:v1:withdraw:wd_partial/);
    expect(ledger.finished.size).toBe(0);
  });
});
