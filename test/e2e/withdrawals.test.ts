// Withdrawals end to end on localnet, as a user: request, the keeper's payout to the wallet's own USDC account with the
// withdraw memo, finalization; idempotency, bad amounts, the free balance; and the keeper killed after signing, after
// storing (before sending) and after sending (before marking): paid exactly once every time.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Queue } from 'bullmq';
import { address, createSolanaRpc, signature as toSignature } from '@solana/kit';
import { getCloseAccountInstruction } from '@solana-program/token';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { Keeper, type KeeperHooks } from '../../funding/keeper.ts';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { findWithdrawMemo } from '../../chain/keeper-transactions.ts';
import { createQueueRedis } from '../../store/redis.ts';
import { memosSignedBy, type RpcTransaction } from '../../protocol/verify/chain.ts';

class Crash extends Error {}

let svc: TestService;
const players: Player[] = [];
const USDC = 1_000_000n;

async function usdcOf(wallet: string): Promise<bigint> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  const ata = await ataOf(address(wallet), svc.wiring.setup.usdcMint);
  const { value } = await rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
  return value ? BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount) : 0n;
}

async function onboard(deposit: number): Promise<Player> {
  const p = await new Player(svc.api, svc.rpcUrl).onboard(deposit);
  players.push(p);
  return p;
}

const withdraw = (p: Player, amount: unknown, key?: string) =>
  fetch(`${svc.api}/protocol/v1/player/withdraw`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}`, ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ amount }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

async function finalized(p: Player, id: string): Promise<any> {
  let found: any;
  await vi.waitFor(
    async () => {
      const status = (await p.get('/protocol/v1/player/status')).body;
      found = status.withdrawals.find((w: { id: string }) => w.id === id);
      expect(found?.status).toBe('finalized');
    },
    { timeout: 30_000, interval: 100 },
  );
  return found;
}

/** Every successful keeper transaction carrying this withdrawal's memo, signed by the keeper alone. */
async function payoutsOf(id: string): Promise<string[]> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  const keeper = svc.wiring.operator.keeper.publicKey;
  const sigs = await rpc.getSignaturesForAddress(address(keeper), { limit: 1000 }).send();
  const found: string[] = [];
  for (const s of sigs) {
    if (s.err) continue;
    const tx = await rpc.getTransaction(s.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (memosSignedBy(tx as unknown as RpcTransaction, keeper).some((m) => m.text === `pfws:v1:withdraw:${id}`)) found.push(s.signature);
  }
  return found;
}

beforeAll(async () => {
  svc = await startTestService();
}, 60_000);

afterAll(async () => {
  await svc?.cleanup();
});

afterEach(async () => {
  if (!svc) return;
  await keeperAtRest(svc);
  await expectConserved(svc, players);
});

describe('a withdrawal', () => {
  it('moves the amount to pending at once, then the keeper pays the wallet’s own USDC account and it is finalized', async () => {
    const p = await onboard(100);
    const walletBefore = await usdcOf(p.address);
    const res = await withdraw(p, 12.5, 'first-withdrawal');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const w = res.body.withdrawal;
    expect(w).toMatchObject({ amount: 12.5, status: expect.stringMatching(/^(pending|sent|finalized)$/) });
    expect(w.id).toMatch(/^wd_[a-z2-7]{26}$/);
    expect(Date.parse(w.createdAt)).toBeGreaterThan(0);

    const done = await finalized(p, w.id);
    expect(done).toMatchObject({ id: w.id, amount: 12.5, status: 'finalized', createdAt: w.createdAt });
    expect(done.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(done.explorerUrl).toBe(svc.wiring.links.transaction(done.signature));
    expect(Date.parse(done.finalizedAt)).toBeGreaterThanOrEqual(Date.parse(w.createdAt));
    const status = (await p.get('/protocol/v1/player/status')).body;
    expect(status).toMatchObject({ balance: 87.5, pendingWithdrawals: 0 });

    // The tokens are in the wallet's ATA; the payout carries the withdraw memo, signed by the keeper alone.
    expect(await usdcOf(p.address)).toBe(walletBefore + 12_500_000n);
    const rpc = createSolanaRpc(svc.rpcUrl);
    const tx = await rpc.getTransaction(toSignature(done.signature), { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const keeper = svc.wiring.operator.keeper.publicKey;
    expect(memosSignedBy(tx as unknown as RpcTransaction, keeper).map((m) => m.text)).toEqual([`pfws:v1:withdraw:${w.id}`]);
    expect(await payoutsOf(w.id)).toEqual([done.signature]);
    // The journal names the alias, never the wallet.
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?limit=1000`)).body.events as { type: string; data: any }[];
    const paid = events.filter((e) => e.type === 'withdrawal_paid' && e.data.id === w.id);
    expect(paid).toHaveLength(1);
    expect(JSON.stringify(paid)).not.toContain(p.address);
  });

  it('is idempotent on Idempotency-Key: the same key returns the same withdrawal, paid once', async () => {
    const p = await onboard(50);
    const [a, b] = await Promise.all([withdraw(p, 5, 'same-key'), withdraw(p, 5, 'same-key')]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.withdrawal.id).toBe(a.body.withdrawal.id);
    const again = await withdraw(p, 5, 'same-key');
    expect(again.body.withdrawal.id).toBe(a.body.withdrawal.id);
    const other = await withdraw(p, 5, 'another-key');
    expect(other.body.withdrawal.id).not.toBe(a.body.withdrawal.id);
    await finalized(p, a.body.withdrawal.id);
    await finalized(p, other.body.withdrawal.id);
    const status = (await p.get('/protocol/v1/player/status')).body;
    expect(status.balance).toBe(40);
    expect(status.withdrawals.map((w: { id: string }) => w.id).sort()).toEqual([a.body.withdrawal.id, other.body.withdrawal.id].sort());
    // Replaying the key after it was paid still names the same, finalized withdrawal.
    expect((await withdraw(p, 5, 'same-key')).body.withdrawal).toMatchObject({ id: a.body.withdrawal.id, status: 'finalized' });
    expect(await payoutsOf(a.body.withdrawal.id)).toHaveLength(1);
  });

  it('refuses more than the free balance, and bad amounts, with nothing moved', async () => {
    const p = await onboard(20);
    const over = await withdraw(p, 20.000001, 'too-much');
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'insufficient_balance', balance: 20 } });
    // A stake in play is not free balance.
    const open = await p.openTicket('easy', 5);
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect((await withdraw(p, 16)).body.error.details.reason).toBe('insufficient_balance');
    for (const bad of [0, -1, 'abc', 1.0000001, '1e3', null, Number.MAX_SAFE_INTEGER, true]) {
      const res = await withdraw(p, bad);
      expect([res.status, res.body.error?.code], JSON.stringify(bad)).toEqual([400, 'INVALID_BET_AMOUNT']);
    }
    const missing = await fetch(`${svc.api}/protocol/v1/player/withdraw`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}` },
      body: '{}',
    });
    expect([missing.status, ((await missing.json()) as any).error.code]).toEqual([400, 'INVALID_BET_AMOUNT']);
    expect((await withdraw(p, 1, 'x'.repeat(300))).body.error.code).toBe('INVALID_REQUEST');
    const anonymous = await http('POST', `${svc.api}/protocol/v1/player/withdraw`, { amount: 1 });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'WALLET_SESSION_REQUIRED']);
    const status = (await p.get('/protocol/v1/player/status')).body;
    expect(status).toMatchObject({ balance: 15, pendingWithdrawals: 0, stakedInPlay: 5, withdrawals: [] });
    // The whole free balance is fine.
    const all = await withdraw(p, 15);
    expect(all.status).toBe(200);
    await finalized(p, all.body.withdrawal.id);
  });

  it('creates the wallet’s USDC account when it no longer exists', async () => {
    const p = new Player(svc.api, svc.rpcUrl);
    await p.init();
    await p.faucet(30);
    await p.login();
    await p.setup(30);
    players.push(p);
    // Empty and closed: the payout must create it again.
    const ata = await ataOf(address(p.address), svc.wiring.setup.usdcMint);
    await sendAndConfirm(svc.wiring.rpc, p.signer, [getCloseAccountInstruction({ account: ata, destination: p.signer.address, owner: p.signer })]);
    expect(await usdcOf(p.address)).toBe(0n);
    const res = await withdraw(p, 7);
    await finalized(p, res.body.withdrawal.id);
    expect(await usdcOf(p.address)).toBe(7n * USDC);
  });
});

describe('a keeper killed mid-payout', () => {
  let queue: Queue;

  beforeAll(async () => {
    // The service's own keeper stands still while a test drives it by hand.
    queue = new Queue('keeper', { connection: createQueueRedis(svc.config.REDIS_URL), prefix: svc.wiring.keys.queuePrefix() });
    await queue.pause();
    await vi.waitFor(async () => expect(await queue.getActiveCount()).toBe(0), { timeout: 20_000, interval: 50 });
  });

  afterAll(async () => {
    await queue.resume();
    await queue.close();
  });

  const keeper = (hooks: KeeperHooks = {}) => new Keeper(svc.wiring.worker.keeper.keeper, { hooks, settleBudgetMs: 15_000 });
  const crashAt = (point: keyof KeeperHooks): KeeperHooks => ({ [point]: async () => Promise.reject(new Crash(point)) });

  it.each(['afterSign', 'beforeSend', 'afterSend'] as const)('%s: a fresh keeper finishes it, and the wallet is paid exactly once', async (point) => {
    const p = await onboard(40);
    const walletBefore = await usdcOf(p.address);
    const vaultBefore = (await expectConserved(svc, players)).vault;
    const { id } = (await withdraw(p, 9)).body.withdrawal;
    await expect(keeper(crashAt(point)).runWithdrawal(id)).rejects.toThrow(Crash);
    const stored = await svc.wiring.stores.withdrawals.get(id);
    expect(stored!.status).toBe(point === 'afterSign' ? 'pending' : 'sent');
    // Stored before sending: killed before the send, nothing left the vault; after it, the payout landed.
    expect(await usdcOf(p.address)).toBe(point === 'afterSend' ? walletBefore + 9n * USDC : walletBefore);

    expect(await keeper().runWithdrawal(id)).toBe('done');
    expect(await keeper().runWithdrawal(id)).toBe('done');
    const done = await svc.wiring.stores.withdrawals.get(id);
    expect(done).toMatchObject({ status: 'finalized' });
    if (point !== 'afterSign') expect(done!.signature).toBe(stored!.stored!.signature);
    expect(await usdcOf(p.address)).toBe(walletBefore + 9n * USDC);
    expect(await payoutsOf(id)).toEqual([done!.signature]);
    expect(await findWithdrawMemo(svc.wiring.rpc, svc.wiring.operator.keeper.publicKey, id)).toMatchObject({ signature: done!.signature });
    const after = await expectConserved(svc, players);
    expect(after.vault).toBe(vaultBefore - 9n * USDC);
  });
});
