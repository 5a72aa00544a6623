// The keeper's send rules (design §3) against a localnet whose blockhashes expire within the test: a stored transaction
// is re-sent while it may land, rebuilt only once its blockhash expired with no status and no payment among the job's
// recorded sends, and a payout that landed is recorded however the record was left, never paid again. The keeper pays
// only into the wallet's own USDC account (a withdrawal whose account vanished goes back to the balance, and the
// keeper pays no rent), and works through withdrawals in the ledger's fair order.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { address, signature as toSignature, type Address, type KeyPairSigner } from '@solana/kit';
import { getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstructionAsync } from '@solana-program/token';
import { Keeper, type KeeperDeps, type KeeperHooks, type KeeperOptions } from '../../funding/keeper.ts';
import { PayoutGate } from '../../funding/payout-gate.ts';
import { HeartbeatStore } from '../../store/heartbeats.ts';
import { JournalStream } from '../../store/analytics.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { NO_REPLICATION } from '../../store/replication.ts';
import { Keys } from '../../store/keys.ts';
import { defineScripts } from '../../store/scripts.ts';
import { LedgerStore } from '../../store/ledger.ts';
import { LpStore } from '../../store/lp.ts';
import { WithdrawalStore } from '../../store/withdrawals.ts';
import { buildWithdrawal } from '../../chain/keeper-transactions.ts';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import type { SolanaRpc } from '../../chain/rpc.ts';
import { memosSignedBy, type RpcTransaction } from '../../protocol/verify/chain.ts';
import { USDC, solOf, startMoneyNet, usdcOf, walletWithUsdcAccount, type MoneyNet } from './money-net.ts';

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

/** A reconciliation must never need the keeper address's history, which anyone can lengthen. */
const noHistory = (rpc: SolanaRpc): SolanaRpc =>
  new Proxy(rpc, {
    get(target, prop, receiver) {
      if (prop === 'getSignaturesForAddress') throw new Error('the keeper read its address history');
      return Reflect.get(target, prop, receiver);
    },
  });

/** A gate that always finds the ledger level with the archive. */
const LEVEL: KeeperDeps['gate'] = { check: async () => ({ state: 'clear', archiveSeq: 0, ledgerSeq: 0 }) };

const keeper = (hooks: KeeperHooks = {}, options: KeeperOptions = {}, gate = LEVEL) =>
  new Keeper(
    {
      withdrawals,
      lp,
      ledger,
      rpc: noHistory(m.rpc),
      setup: m.setup,
      keeperKey: m.keys.keeper,
      limits: { maxBetBps: 50, maxPayoutBps: 100, maxExposureBps: 2500 },
      commitment: 'confirmed',
      clock: () => new Date(),
      logger: pino({ level: 'silent' }),
      replication: NO_REPLICATION,
      gate,
    },
    { hooks, settleBudgetMs: 15_000, ...options },
  );
const crashAt = (point: keyof KeeperHooks): KeeperHooks => ({ [point]: async () => Promise.reject(new Crash(point)) });

async function credit(wallet: Address, amount: bigint): Promise<void> {
  await redis.hincrby(keys.player(wallet), 'balance', String(amount));
  await redis.hincrby(keys.house(), 'balances', String(amount));
}

async function request(wallet: Address, amount: bigint, atMs = Date.now()): Promise<string> {
  const id = `wd_${randomBytes(8).toString('hex')}`;
  expect(
    await withdrawals.request(wallet, { id, amount, at: new Date(atMs).toISOString(), atMs, alias: `p_${wallet.slice(0, 6)}`, idempotencyKey: id }),
  ).toEqual({ kind: 'ok', id });
  return id;
}

/** A wallet with its own USDC account and a ledger balance, and a withdrawal of `amount` requested from it. */
async function requested(amount: bigint): Promise<{ wallet: KeyPairSigner; id: string }> {
  const wallet = await walletWithUsdcAccount(m);
  await credit(wallet.address, amount);
  return { wallet, id: await request(wallet.address, amount) };
}

async function expired(lastValidBlockHeight: bigint): Promise<void> {
  await vi.waitFor(async () => expect(await m.rpc.getBlockHeight({ commitment: 'finalized' }).send()).toBeGreaterThan(lastValidBlockHeight), {
    timeout: 20_000,
    interval: 50,
  });
}

const statusOf = async (signature: string) => (await m.rpc.getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true }).send()).value[0];

/** Every successful keeper transaction carrying this withdrawal's memo (a test may scan the keeper's history). */
async function payoutsOf(id: string): Promise<string[]> {
  const keeperKey = m.keys.keeper.publicKey;
  const found: string[] = [];
  for (const s of await m.rpc.getSignaturesForAddress(address(keeperKey), { limit: 1000 }).send()) {
    if (s.err) continue;
    const tx = await m.rpc.getTransaction(s.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (memosSignedBy(tx as unknown as RpcTransaction, keeperKey).some((x) => x.text === `pfws:v1:withdraw:${id}`)) found.push(s.signature);
  }
  return found;
}

async function closeUsdcAccount(wallet: KeyPairSigner): Promise<void> {
  const ata = await ataOf(wallet.address, m.setup.usdcMint);
  await sendAndConfirm(m.rpc, wallet, [getCloseAccountInstruction({ account: ata, destination: wallet.address, owner: wallet })]);
}

const journalOf = async (type: string) =>
  ((await redis.xrange(keys.journal(), '-', '+')) as [string, string[]][])
    .map(([, fields]) => Object.fromEntries(fields.flatMap((v, i, all) => (i % 2 === 0 ? [[v, all[i + 1]]] : []))) as Record<string, string>)
    .filter((e) => e.type === type)
    .map((e) => JSON.parse(e.data ?? '{}') as Record<string, string>);

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
    expect(done.sent).toEqual([first.signature, done.signature]);
    expect(await statusOf(first.signature)).toBeNull();
    expect(await usdcOf(m, wallet.address)).toBe(3n * USDC);
    expect(await payoutsOf(id)).toEqual([done.signature]);
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

  it('finds a payout that landed among the withdrawal’s earlier sends when a later one was stored and expired unseen', async () => {
    const { wallet, id } = await requested(USDC);
    await expect(keeper(crashAt('afterSend')).runWithdrawal(id)).rejects.toThrow(Crash);
    const paid = (await withdrawals.get(id))!.stored!;
    // As if a keeper had missed the landing and stored a second transaction, never sent; it expires unseen.
    const second = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: id });
    expect(await withdrawals.storeSigned(id, paid.signature, second)).toBe('ok');
    await expired(second.lastValidBlockHeight);
    expect(await statusOf(second.signature)).toBeNull();

    expect(await keeper().runWithdrawal(id)).toBe('done');
    expect((await withdrawals.get(id))!).toMatchObject({ status: 'finalized', signature: paid.signature });
    expect(await usdcOf(m, wallet.address)).toBe(USDC);
    expect(await payoutsOf(id)).toEqual([paid.signature]);
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

describe('the payout gate', () => {
  it('pays nothing while the ledger is behind the archive or the archive cannot be read, and pays once it is level', async () => {
    const { wallet, id } = await requested(2n * USDC);
    const heartbeats = new HeartbeatStore(redis, keys);
    const ledgerSeq = await JournalStream.of(redis, keys).lastSeq();
    let archived: () => Promise<number> = async () => ledgerSeq + 3;
    const errors: unknown[][] = [];
    const logger = { ...pino({ level: 'silent' }), error: (...args: unknown[]) => errors.push(args) } as unknown as KeeperDeps['logger'];
    const gate = new PayoutGate({
      archivedSeq: () => archived(),
      ledgerSeq: () => JournalStream.of(redis, keys).lastSeq(),
      heartbeats,
      clock: () => new Date(),
      logger,
    });
    const held = keeper({}, { settleBudgetMs: 300 }, gate);

    expect(await held.withdrawalPass()).toEqual({ signed: 0, deferred: 0 });
    expect(await held.runWithdrawal(id)).toBe('pending');
    expect(await held.fixLp()).toBe(0);
    expect((await heartbeats.read('keeper'))?.fields).toMatchObject({ payouts: 'behind', archiveSeq: String(ledgerSeq + 3), ledgerSeq: String(ledgerSeq) });
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.[1])).toContain(
      `the ledger's journal is at seq ${ledgerSeq}, behind the archive in ClickHouse, which holds it up to seq ${ledgerSeq + 3}`,
    );
    expect(String(errors[0]?.[1])).toContain('npm run ledger -- recover');

    archived = async () => Promise.reject(new Error('connect ECONNREFUSED'));
    expect(await held.withdrawalPass()).toEqual({ signed: 0, deferred: 0 });
    expect((await heartbeats.read('keeper'))?.fields).toMatchObject({ payouts: 'unknown' });

    await heartbeats.beat('shipper', 1_000, { stopped: 'the ledger reuses journal seqs ClickHouse holds' });
    archived = async () => ledgerSeq;
    expect(await held.withdrawalPass()).toEqual({ signed: 0, deferred: 0 });
    expect((await heartbeats.read('keeper'))?.fields.reason).toContain('the ledger reuses journal seqs');
    expect((await withdrawals.get(id))?.stored).toBeNull();
    expect(await usdcOf(m, wallet.address)).toBe(0n);

    await heartbeats.beat('shipper', 1_000, { stopped: '' });
    expect(await keeper({}, {}, gate).runWithdrawal(id)).toBe('done');
    expect((await heartbeats.read('keeper'))?.fields.payouts).toBe('clear');
    expect(await usdcOf(m, wallet.address)).toBe(2n * USDC);
  });
});

describe('a wallet whose USDC account is gone when the keeper comes to it', () => {
  async function expectReturned(wallet: KeyPairSigner, id: string, amount: bigint) {
    const w = (await withdrawals.get(id))!;
    expect(w).toMatchObject({ status: 'returned', returnReason: 'no_token_account' });
    expect(w.returnedAt).not.toBeNull();
    expect(await withdrawals.open()).not.toContain(id);
    expect(await redis.zscore(keys.walletOpenWithdrawals(wallet.address), id)).toBeNull();
    expect(await ledger.player(wallet.address)).toMatchObject({ balance: amount, pendingWithdrawals: 0n });
    expect(await journalOf('withdrawal_returned')).toContainEqual({
      player: `p_${wallet.address.slice(0, 6)}`,
      id,
      amount: String(amount),
      reason: 'no_token_account',
    });
    expect(await usdcOf(m, wallet.address)).toBe(0n);
    expect(await payoutsOf(id)).toEqual([]);
    // Returned, it is never paid or sent afterwards.
    expect(await keeper().runWithdrawal(id)).toBe('done');
    await expect(withdrawals.finish(id, wallet.address, 'x', new Date().toISOString())).rejects.toThrow(/returned/);
    expect(await withdrawals.storeSigned(id, w.signature, { signature: 'y', wire: 'z', lastValidBlockHeight: 1n })).toBe('done');
  }

  it('returns the withdrawal to the balance before any transaction: the keeper spends nothing, and no rent', async () => {
    const before = await ledger.house();
    const { wallet, id } = await requested(2n * USDC);
    await closeUsdcAccount(wallet);
    const keeperSol = await solOf(m, m.keys.keeper.signer.address);
    expect(await keeper().runWithdrawal(id)).toBe('done');
    await expectReturned(wallet, id, 2n * USDC);
    expect(await solOf(m, m.keys.keeper.signer.address)).toBe(keeperSol);
    // NAV did not move: the amount is owed to the player again, in the balance.
    const after = await ledger.house();
    expect([after.vault, after.balances - before.balances, after.pendingWithdrawals]).toEqual([before.vault, 2n * USDC, before.pendingWithdrawals]);
  });

  it('returns it when its stored transaction expired unsent: it can never land, and no rebuild pays rent', async () => {
    const { wallet, id } = await requested(USDC);
    await expect(keeper(crashAt('beforeSend')).runWithdrawal(id)).rejects.toThrow(Crash);
    const stored = (await withdrawals.get(id))!.stored!;
    await closeUsdcAccount(wallet);
    await expired(stored.lastValidBlockHeight);
    const keeperSol = await solOf(m, m.keys.keeper.signer.address);
    expect(await keeper().runWithdrawal(id)).toBe('done');
    await expectReturned(wallet, id, USDC);
    expect(await solOf(m, m.keys.keeper.signer.address)).toBe(keeperSol);
  });

  it('returns it when its transaction landed and failed because the account was closed after it was signed', async () => {
    const { wallet, id } = await requested(USDC);
    await expect(keeper(crashAt('beforeSend')).runWithdrawal(id)).rejects.toThrow(Crash);
    const stored = (await withdrawals.get(id))!.stored!;
    await closeUsdcAccount(wallet);
    const keeperSol = await solOf(m, m.keys.keeper.signer.address);
    // The stored bytes reach the chain (skipping preflight) and fail: nothing moved but the fee.
    await m.rpc.sendTransaction(stored.wire as Parameters<SolanaRpc['sendTransaction']>[0], { encoding: 'base64', skipPreflight: true }).send();
    await vi.waitFor(async () => expect((await statusOf(stored.signature))?.err).toBeTruthy(), { timeout: 10_000, interval: 50 });
    const failed = await m.rpc.getTransaction(toSignature(stored.signature), { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(await keeper().runWithdrawal(id)).toBe('done');
    await expectReturned(wallet, id, USDC);
    expect(await solOf(m, m.keys.keeper.signer.address)).toBe(keeperSol - BigInt(failed!.meta!.fee));
    expect(await redis.zscore(keys.stuckKeeperJobs(), id)).toBeNull();
  });

  it('pays it when the wallet opened its account again, at its own cost, before the keeper came to it', async () => {
    const { wallet, id } = await requested(USDC);
    await closeUsdcAccount(wallet);
    await sendAndConfirm(m.rpc, wallet, [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: wallet, owner: wallet.address, mint: m.setup.usdcMint }),
    ]);
    expect(await keeper().runWithdrawal(id)).toBe('done');
    expect((await withdrawals.get(id))!.status).toBe('finalized');
    expect(await usdcOf(m, wallet.address)).toBe(USDC);
  });
});

describe('the withdrawal queue', () => {
  it('sends another wallet’s withdrawal second, ahead of one wallet’s backlog of 120 that waited longer', async () => {
    const heavy = await walletWithUsdcAccount(m);
    const other = await walletWithUsdcAccount(m);
    await credit(heavy.address, 120n * USDC);
    await credit(other.address, USDC);
    // The backlog came in over the last 4 minutes, 2 s apart: by the ledger's time order alone it would all go first.
    const now = Date.now();
    const backlog: string[] = [];
    for (let i = 0; i < 120; i++) backlog.push(await request(heavy.address, USDC, now - 240_000 + i * 2_000));
    const single = await request(other.address, USDC, now);
    expect((await withdrawals.open(1_000)).indexOf(single)).toBe(120);

    const sendOrder: string[] = [];
    const k = keeper({ beforeSend: async (job) => void sendOrder.push(job.id) });
    for (let pass = 0; pass < 50 && (await withdrawals.open(1)).length > 0; pass++) {
      const { signed, deferred } = await k.withdrawalPass();
      expect(signed).toBeLessThanOrEqual(32);
      if (deferred === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(await withdrawals.open()).toEqual([]);
    // On this fast chain a blockhash can expire before a busy pass sends its last transactions: those are rebuilt
    // later. The order that matters is each withdrawal's first send.
    const firstSends = [...new Set(sendOrder)];
    expect(firstSends).toHaveLength(121);
    expect(firstSends.indexOf(single)).toBe(1);
    // Within the backlog, the wallet's own order holds.
    expect(firstSends.filter((id) => id !== single)).toEqual(backlog);
    expect(await usdcOf(m, heavy.address)).toBe(120n * USDC);
    expect(await usdcOf(m, other.address)).toBe(USDC);
  });

  it('goes on with the others when one withdrawal’s step fails', async () => {
    const broken = await requested(USDC);
    const fine = await requested(USDC);
    // A record the keeper cannot build a transaction from.
    await redis.hset(keys.withdrawal(broken.id), 'amount', '0');
    const k = keeper();
    expect(await k.withdrawalPass()).toMatchObject({ signed: 1, deferred: 0 });
    await vi.waitFor(
      async () => {
        await k.withdrawalPass();
        expect((await withdrawals.get(fine.id))!.status).toBe('finalized');
      },
      { timeout: 15_000, interval: 50 },
    );
    expect((await withdrawals.get(broken.id))!).toMatchObject({ status: 'pending', stored: null });
    expect(await withdrawals.open()).toEqual([broken.id]);
    // Repaired, it is paid by a keeper that has not seen it fail (this one waits out its backoff first).
    await redis.hset(keys.withdrawal(broken.id), 'amount', String(USDC));
    expect(await keeper().runWithdrawal(broken.id)).toBe('done');
    expect(await usdcOf(m, broken.wallet.address)).toBe(USDC);
  });

  it('spreads one wallet’s open withdrawals a second apart, and starts afresh once they are paid', async () => {
    const a = await walletWithUsdcAccount(m);
    const b = await walletWithUsdcAccount(m);
    await credit(a.address, 10n * USDC);
    await credit(b.address, 10n * USDC);
    const t = Date.now() + 3_600_000;
    const a1 = await request(a.address, USDC, t);
    const a2 = await request(a.address, USDC, t + 1);
    const a3 = await request(a.address, USDC, t + 2);
    const b1 = await request(b.address, USDC, t + 1_500);
    const score = (id: string) => redis.zscore(keys.openWithdrawals(), id).then(Number);
    expect([await score(a1), await score(a2), await score(a3), await score(b1)]).toEqual([t, t + 1_000, t + 2_000, t + 1_500]);
    for (const id of [a1, a2, a3, b1]) expect(await keeper().runWithdrawal(id)).toBe('done');
    // Nothing of the wallet's is open any more: a new one is scored by its own time.
    const a4 = await request(a.address, USDC, t + 10);
    expect(await score(a4)).toBe(t + 10);
    expect(await keeper().runWithdrawal(a4)).toBe('done');
  });

  it('caps a wallet’s unpaid withdrawals, with nothing moved past the cap', async () => {
    const w = await walletWithUsdcAccount(m);
    await credit(w.address, 5n * USDC);
    const at = { at: new Date().toISOString(), atMs: Date.now(), alias: 'p', maxPending: 2 };
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_cap1', amount: USDC, idempotencyKey: 'c1' })).toMatchObject({ kind: 'ok' });
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_cap2', amount: USDC, idempotencyKey: 'c2' })).toMatchObject({ kind: 'ok' });
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_cap3', amount: USDC, idempotencyKey: 'c3' })).toEqual({
      kind: 'err',
      reason: 'pending_withdrawal_limit',
      open: 2,
    });
    expect(await ledger.player(w.address)).toMatchObject({ balance: 3n * USDC, pendingWithdrawals: 2n * USDC });
    expect(await withdrawals.get('wd_cap3')).toBeNull();
    expect(await keeper().runWithdrawal('wd_cap1')).toBe('done');
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_cap3', amount: USDC, idempotencyKey: 'c3' })).toMatchObject({ kind: 'ok' });
    for (const id of ['wd_cap2', 'wd_cap3']) expect(await keeper().runWithdrawal(id)).toBe('done');
  });

  it('refuses an Idempotency-Key reused with another amount, with nothing moved; the same amount answers the same withdrawal', async () => {
    const w = await walletWithUsdcAccount(m);
    await credit(w.address, 5n * USDC);
    const at = { at: new Date().toISOString(), atMs: Date.now(), alias: 'p' };
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_idem1', amount: 2n * USDC, idempotencyKey: 'k' })).toEqual({ kind: 'ok', id: 'wd_idem1' });
    const journalBefore = await redis.xlen(keys.journal());
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_idem2', amount: 3n * USDC, idempotencyKey: 'k' })).toEqual({
      kind: 'err',
      reason: 'idempotency_key_reused',
      id: 'wd_idem1',
      amount: 2n * USDC,
    });
    expect(await withdrawals.request(w.address, { ...at, id: 'wd_idem3', amount: 2n * USDC, idempotencyKey: 'k' })).toEqual({
      kind: 'existing',
      id: 'wd_idem1',
    });
    expect(await redis.xlen(keys.journal())).toBe(journalBefore);
    expect(await withdrawals.get('wd_idem2')).toBeNull();
    expect(await ledger.player(w.address)).toMatchObject({ balance: 3n * USDC, pendingWithdrawals: 2n * USDC });
    expect(await keeper().runWithdrawal('wd_idem1')).toBe('done');
  });
});
