// The keeper's send rules (design §3) against a localnet whose blockhashes expire within the test: a stored transaction
// is re-sent while it may land, rebuilt only once its blockhash expired with no status and no memo on-chain, and a
// payout that landed is recorded however the record was left, never paid again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { signature as toSignature, type KeyPairSigner } from '@solana/kit';
import { Keeper, type KeeperHooks } from '../../funding/keeper.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { NO_REPLICATION } from '../../store/replication.ts';
import { Keys } from '../../store/keys.ts';
import { defineScripts } from '../../store/scripts.ts';
import { LedgerStore } from '../../store/ledger.ts';
import { LpStore } from '../../store/lp.ts';
import { WithdrawalStore } from '../../store/withdrawals.ts';
import { findWithdrawMemo } from '../../chain/keeper-transactions.ts';
import { USDC, fundedWallet, startMoneyNet, usdcOf, type MoneyNet } from './money-net.ts';

class Crash extends Error {}

let m: MoneyNet;
let redis: Redis;
let keys: Keys;
let withdrawals: WithdrawalStore;
let ledger: LedgerStore;
let lp: LpStore;
const prefix = `test-keeper-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  // 3 ms slots: a blockhash (150 slots) expires in well under a second.
  m = await startMoneyNet(1_000, 3);
  redis = createRedis('redis://127.0.0.1:6379');
  keys = new Keys(prefix);
  const scripts = defineScripts(redis);
  withdrawals = new WithdrawalStore(redis, keys, scripts);
  ledger = new LedgerStore(redis, keys, scripts);
  lp = new LpStore(redis, keys, scripts);
  await redis.hset(keys.house(), 'vault', String(1_000n * USDC), 'capital', String(1_000n * USDC));
}, 60_000);

afterAll(async () => {
  const stale = await redis.keys(`${prefix}:*`);
  if (stale.length > 0) await redis.del(...stale);
  await redis.quit();
  await m?.dispose();
});

const keeper = (hooks: KeeperHooks = {}) =>
  new Keeper(
    {
      withdrawals,
      lp,
      ledger,
      rpc: m.rpc,
      setup: m.setup,
      keeperKey: m.keys.keeper,
      limits: { maxBetBps: 50, maxPayoutBps: 100, maxExposureBps: 2500 },
      commitment: 'confirmed',
      clock: () => new Date(),
      logger: pino({ level: 'silent' }),
      replication: NO_REPLICATION,
    },
    { hooks, settleBudgetMs: 15_000 },
  );
const crashAt = (point: keyof KeeperHooks): KeeperHooks => ({ [point]: async () => Promise.reject(new Crash(point)) });

/** A wallet with a ledger balance, and a withdrawal of `amount` requested from it. */
async function requested(amount: bigint): Promise<{ wallet: KeyPairSigner; id: string }> {
  const wallet = await fundedWallet(m, 0n);
  await redis.hset(keys.player(wallet.address), 'balance', String(amount));
  await redis.hincrby(keys.house(), 'balances', String(amount));
  const id = `wd_${randomBytes(8).toString('hex')}`;
  const now = new Date();
  expect(await withdrawals.request(wallet.address, { id, amount, at: now.toISOString(), atMs: now.getTime(), alias: 'p', idempotencyKey: id })).toEqual({
    kind: 'ok',
    id,
  });
  return { wallet, id };
}

async function expired(lastValidBlockHeight: bigint): Promise<void> {
  await vi.waitFor(async () => expect(await m.rpc.getBlockHeight({ commitment: 'finalized' }).send()).toBeGreaterThan(lastValidBlockHeight), {
    timeout: 20_000,
    interval: 50,
  });
}

const statusOf = async (signature: string) => (await m.rpc.getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true }).send()).value[0];

describe('the keeper', () => {
  it('rebuilds a stored transaction that was never sent, only after its blockhash expired, and pays once', async () => {
    const { wallet, id } = await requested(3n * USDC);
    await expect(keeper(crashAt('beforeSend')).runWithdrawal(id)).rejects.toThrow(Crash);
    const first = (await withdrawals.get(id))!.stored!;
    await expired(first.lastValidBlockHeight);
    expect(await statusOf(first.signature)).toBeNull();

    expect(await keeper().runWithdrawal(id)).toBe('done');
    const done = (await withdrawals.get(id))!;
    expect(done.status).toBe('finalized');
    expect(done.signature).not.toBe(first.signature);
    expect(await statusOf(first.signature)).toBeNull();
    expect(await usdcOf(m, wallet.address)).toBe(3n * USDC);
    expect((await findWithdrawMemo(m.rpc, m.keys.keeper.publicKey, id))?.signature).toBe(done.signature);
  });

  it('records a payout that landed, even once its blockhash expired: no rebuild, no second payment', async () => {
    const { wallet, id } = await requested(2n * USDC);
    await expect(keeper(crashAt('afterSend')).runWithdrawal(id)).rejects.toThrow(Crash);
    const sent = (await withdrawals.get(id))!.stored!;
    await expired(sent.lastValidBlockHeight);
    expect(await keeper().runWithdrawal(id)).toBe('done');
    expect((await withdrawals.get(id))!.signature).toBe(sent.signature);
    expect(await usdcOf(m, wallet.address)).toBe(2n * USDC);
  });

  it('finds a landed payout by its memo when the record lost its stored transaction', async () => {
    const { wallet, id } = await requested(USDC);
    await expect(keeper(crashAt('afterSend')).runWithdrawal(id)).rejects.toThrow(Crash);
    const sent = (await withdrawals.get(id))!.stored!;
    // As if the ledger came back from a backup taken before the keeper stored it.
    await redis.hdel(keys.withdrawal(id), 'signature', 'wire', 'lastValidBlockHeight');
    await redis.hset(keys.withdrawal(id), 'status', 'pending');
    expect(await keeper().runWithdrawal(id)).toBe('done');
    expect((await withdrawals.get(id))!.signature).toBe(sent.signature);
    expect(await usdcOf(m, wallet.address)).toBe(USDC);
  });

  it('finishes in the ledger once: pending withdrawals and the vault go down together', async () => {
    const before = await ledger.house();
    const { id } = await requested(USDC);
    expect((await ledger.house()).pendingWithdrawals).toBe(before.pendingWithdrawals + USDC);
    expect(await keeper().runWithdrawal(id)).toBe('done');
    expect(await keeper().runWithdrawal(id)).toBe('done');
    const after = await ledger.house();
    expect([after.pendingWithdrawals, after.vault]).toEqual([before.pendingWithdrawals, before.vault - USDC]);
    expect(await withdrawals.open()).not.toContain(id);
  });
});
