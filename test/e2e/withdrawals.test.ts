// Withdrawals end to end on localnet, as a user: request, the keeper's payout to the wallet's own USDC account with the
// withdraw memo, finalization; idempotency (and a key reused with another amount), the minimum, bad amounts, the free
// balance; a wallet without its USDC account (refused, or returned to the balance if it closed the account after
// asking: the keeper never pays its rent); one wallet's backlog not holding up another's payout; and the keeper killed
// after signing, after storing (before sending) and after sending (before marking): paid exactly once every time.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Queue } from 'bullmq';
import { address, createSolanaRpc, signature as toSignature } from '@solana/kit';
import { getBurnCheckedInstruction, getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstructionAsync } from '@solana-program/token';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { Keeper, type KeeperHooks } from '../../funding/keeper.ts';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
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

/** The keeper's successful transactions, oldest first (localnet lists an address's history in the order it landed). */
async function keeperHistory(): Promise<string[]> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  const sigs = await rpc.getSignaturesForAddress(address(svc.wiring.operator.keeper.publicKey), { limit: 1000 }).send();
  return sigs
    .filter((s) => !s.err)
    .map((s) => s.signature as string)
    .reverse();
}

const keeperSol = async () => (await createSolanaRpc(svc.rpcUrl).getBalance(address(svc.wiring.operator.keeper.publicKey)).send()).value;

/** The wallet empties (burns) and closes its USDC account, taking back the rent. */
async function closeUsdcAccount(p: Player): Promise<void> {
  const mint = svc.wiring.setup.usdcMint;
  const ata = await ataOf(address(p.address), mint);
  const held = await usdcOf(p.address);
  await sendAndConfirm(svc.wiring.rpc, p.signer, [
    ...(held > 0n ? [getBurnCheckedInstruction({ account: ata, mint, authority: p.signer, amount: held, decimals: 6 })] : []),
    getCloseAccountInstruction({ account: ata, destination: p.signer.address, owner: p.signer }),
  ]);
}

/** Stops the service's own keeper (its queue) until the returned function resumes it. */
async function keeperPaused(): Promise<() => Promise<void>> {
  const queue = new Queue('keeper', { connection: createQueueRedis(svc.config.REDIS_URL), prefix: svc.wiring.keys.queuePrefix() });
  await queue.pause();
  await vi.waitFor(async () => expect(await queue.getActiveCount()).toBe(0), { timeout: 20_000, interval: 50 });
  return async () => {
    await queue.resume();
    await queue.close();
  };
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

  it('refuses an Idempotency-Key reused with another amount (400), with nothing moved', async () => {
    const p = await onboard(30);
    const first = await withdraw(p, 4, 'reused-key');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const other = await withdraw(p, 6, 'reused-key');
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { reason: 'idempotency_key_reused', amount: 6, originalAmount: 4 },
    });
    // The same key and amount still name the first; the refused one left no trace.
    expect((await withdraw(p, 4, 'reused-key')).body.withdrawal.id).toBe(first.body.withdrawal.id);
    await finalized(p, first.body.withdrawal.id);
    const status = (await p.get('/protocol/v1/player/status')).body;
    expect(status).toMatchObject({ balance: 26, pendingWithdrawals: 0 });
    expect(status.withdrawals.map((w: { id: string }) => w.id)).toEqual([first.body.withdrawal.id]);

    // Raced: two amounts under one new key, one withdrawal and one refusal.
    const raced = await Promise.all([withdraw(p, 2, 'raced-key'), withdraw(p, 3, 'raced-key')]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 400]);
    const won = raced.find((r) => r.status === 200)!.body.withdrawal;
    expect(raced.find((r) => r.status === 400)!.body.error.details.reason).toBe('idempotency_key_reused');
    await finalized(p, won.id);
    expect((await p.get('/protocol/v1/player/status')).body.balance).toBe(26 - won.amount);
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
    // Below the minimum (MIN_WITHDRAWAL_USDC, 1 by default): the minimum is in the details, in USDC.
    for (const dust of [0.000001, 0.5, '0.999999']) {
      const res = await withdraw(p, dust, `dust-${dust}`);
      expect([res.status, res.body.error?.code, res.body.error?.details], JSON.stringify(dust)).toEqual([400, 'INVALID_BET_AMOUNT', { minimum: 1 }]);
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

  it('is refused for a wallet without its own USDC account, with nothing moved: the keeper never pays its rent', async () => {
    const p = await onboard(30);
    await closeUsdcAccount(p);
    const res = await withdraw(p, 7, 'no-account');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'no_token_account' } });
    expect(res.body.error.message).toMatch(/create it/);
    expect((await p.get('/protocol/v1/player/status')).body).toMatchObject({ balance: 30, pendingWithdrawals: 0, withdrawals: [] });
    // Once the wallet opened it again itself, the same request goes through.
    await sendAndConfirm(svc.wiring.rpc, p.signer, [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: p.signer, owner: p.signer.address, mint: svc.wiring.setup.usdcMint }),
    ]);
    const again = await withdraw(p, 7, 'no-account');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await finalized(p, again.body.withdrawal.id);
    expect(await usdcOf(p.address)).toBe(7n * USDC);
  });
});

describe('the payout queue', () => {
  it('goes back to the balance, journaled, when the wallet closed its account before the keeper paid: no rent, no payout', async () => {
    const p = await onboard(20);
    const resume = await keeperPaused();
    let id: string;
    let sol: bigint;
    try {
      const res = await withdraw(p, 5, 'closed-later');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.withdrawal.id;
      await closeUsdcAccount(p);
      sol = await keeperSol();
    } finally {
      await resume();
    }
    let w: any;
    await vi.waitFor(
      async () => {
        w = (await p.get('/protocol/v1/player/status')).body.withdrawals.find((x: { id: string }) => x.id === id);
        expect(w.status).toBe('returned');
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(w).toMatchObject({ id, amount: 5, status: 'returned', returnReason: 'no_token_account' });
    expect(Date.parse(w.returnedAt)).toBeGreaterThan(0);
    expect((await p.get('/protocol/v1/player/status')).body).toMatchObject({ balance: 20, pendingWithdrawals: 0 });
    expect(await keeperSol()).toBe(sol!);
    expect(await payoutsOf(id!)).toEqual([]);
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?limit=1000`)).body.events as { type: string; data: any }[];
    expect(events.filter((e) => e.type === 'withdrawal_returned' && e.data.id === id)).toEqual([
      expect.objectContaining({ data: { player: expect.any(String), id, amount: '5000000', reason: 'no_token_account' } }),
    ]);
  });

  it('pays another wallet’s withdrawal ahead of one wallet’s backlog of 110 queued before it', async () => {
    const heavy = await onboard(110);
    const other = await onboard(5);
    const resume = await keeperPaused();
    const backlog: string[] = [];
    let single: string;
    try {
      for (let i = 0; i < 110; i++) {
        const res = await withdraw(heavy, 1, `backlog-${i}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        backlog.push(res.body.withdrawal.id);
      }
      const res = await withdraw(other, 1, 'single');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      single = res.body.withdrawal.id;
    } finally {
      await resume();
    }
    const paid = await finalized(other, single!);
    await keeperAtRest(svc, 120_000);
    // The keeper's history orders every payout as it landed.
    const history = await keeperHistory();
    const heavyPayouts = await Promise.all(backlog.map(async (id) => (await svc.wiring.stores.withdrawals.get(id))!.signature!));
    const positions = heavyPayouts.map((signature) => history.indexOf(signature));
    expect(positions.every((i) => i >= 0)).toBe(true);
    const ahead = positions.filter((i) => i < history.indexOf(paid.signature)).length;
    expect(ahead, `the single payout landed after ${ahead} of the backlog's`).toBeLessThanOrEqual(1);
    expect((await heavy.get('/protocol/v1/player/status')).body).toMatchObject({ balance: 0, pendingWithdrawals: 0 });
  }, 240_000);
});

describe('a keeper killed mid-payout', () => {
  let resume: () => Promise<void>;

  // The service's own keeper stands still while a test drives it by hand.
  beforeAll(async () => {
    resume = await keeperPaused();
  });

  afterAll(async () => {
    await resume?.();
  });

  const keeper = (hooks: KeeperHooks = {}) => new Keeper(svc.wiring.worker!.keeper.keeper, { hooks, settleBudgetMs: 15_000 });
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
    const after = await expectConserved(svc, players);
    expect(after.vault).toBe(vaultBefore - 9n * USDC);
  });
});
