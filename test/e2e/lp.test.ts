// LP flows end to end on localnet, as a user: a deposit to the vault with the lp-deposit memo is minted LP shares at
// design §3's formula; play moves NAV; a redemption is paid at the same price; a first depositor cannot inflate the
// price; redemptions wait, in order, while free liquidity is short. The books balance after every test, and the
// verifier (`pfws-verify all`) passes with withdrawals and LP flows in the history.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSolanaRpc } from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { startTestService, type TestService } from '../helpers/service.ts';
import { expectVerifiedAll } from '../helpers/verify-all.ts';
import { Player, http } from '../helpers/player.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { lpDeposit, lpRedeem, lpWallet, mintedTo as mintedToWallet, pool as poolOf, tokenOf as tokenOfWallet, waitFor } from '../helpers/lp.ts';
import { Keeper } from '../../funding/keeper.ts';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { redemptionValue, sharesForDeposit, VIRTUAL_SHARES } from '../../protocol/lp-shares.ts';
import { formatMicro, microToNumber } from '../../protocol/money.ts';

const USDC = 1_000_000n;
let svc: TestService;
const players: Player[] = [];

const tokenOf = (wallet: string, mint: 'usdcMint' | 'lpMint') => tokenOfWallet(svc, wallet, mint);
const pool = () => poolOf(svc);
const mintedTo = (p: Player, shares: bigint) => mintedToWallet(svc, p, shares);

/** A wallet with dev USDC and SOL, signed in; an LP needs no session key. */
async function wallet(usdc: number): Promise<Player> {
  const p = await lpWallet(svc, usdc);
  players.push(p);
  return p;
}

beforeAll(async () => {
  // A small house, so that play moves NAV visibly; maxPayout at 100% of NAV and no per-wallet share, so one bet can
  // hold most of maxExposure.
  svc = await startTestService({
    DEV_HOUSE_CAPITAL: '1000',
    MAX_PAYOUT_BPS: '10000',
    MAX_WALLET_EXPOSURE_BPS: '10000',
    ANCHOR_MAX_DELAY_MS: '100',
    MANIFEST_MAX_DELAY_MS: '100',
  });
}, 60_000);

afterAll(async () => {
  await svc?.cleanup();
});

afterEach(async () => {
  if (!svc) return;
  await keeperAtRest(svc);
  await expectConserved(svc, players);
});

describe('an LP deposit and its redemption', () => {
  it('mints shares at floor(amount × (supply + 10^6) / (NAV_before + 1)) and pays them back at the same price, with play in between', async () => {
    const lp = await wallet(500);
    const usdcBefore = await tokenOf(lp.address, 'usdcMint');
    const before = await pool();
    expect(before.supply).toBe(1000n * USDC);
    const expectedShares = sharesForDeposit(300n * USDC, before.supply, before.nav);
    await lpDeposit(lp, 300);
    await mintedTo(lp, expectedShares);
    const minted = await pool();
    expect(minted).toMatchObject({ supply: before.supply + expectedShares, nav: before.nav + 300n * USDC });

    const house = (await http('GET', `${svc.api}/house`)).body.house;
    expect(house).toMatchObject({
      totalStaked: 300,
      baseBankroll: 1300,
      totalValue: microToNumber(minted.nav),
      sharePrice: Number(minted.nav) / Number(minted.supply),
    });
    const position = (await lp.get('/house/position')).body.position;
    expect(position).toEqual({
      shares: microToNumber(expectedShares),
      principal: 300,
      currentValue: microToNumber(redemptionValue(expectedShares, minted.supply, minted.nav)),
      profit: microToNumber(redemptionValue(expectedShares, minted.supply, minted.nav) - 300n * USDC),
      ownership: Number(expectedShares) / Number(minted.supply),
    });

    // Play moves NAV: the house wins or loses these bets.
    const gambler = await new Player(svc.api, svc.rpcUrl).onboard(100);
    players.push(gambler);
    for (let i = 0; i < 6; i++) await gambler.playDice({ wager: 5, target: 20, direction: 'under' });
    const played = await pool();
    expect(played.nav).not.toBe(minted.nav);
    const moved = (await lp.get('/house/position')).body.position;
    expect(moved.currentValue).toBe(microToNumber(redemptionValue(expectedShares, played.supply, played.nav)));
    expect(moved.profit).toBeCloseTo(moved.currentValue - 300, 6);

    const value = redemptionValue(expectedShares, played.supply, played.nav);
    expect(value).toBe((expectedShares * (played.nav + 1n)) / (played.supply + VIRTUAL_SHARES));
    await lpRedeem(lp, expectedShares);
    await waitFor(async () => expect(await tokenOf(lp.address, 'usdcMint')).toBe(usdcBefore - 300n * USDC + value));
    expect(await tokenOf(lp.address, 'lpMint')).toBe(0n);
    await waitFor(async () => expect((await pool()).supply).toBe(before.supply));
    const after = await pool();
    expect(after.nav).toBe(played.nav - value);
    const finalPosition = (await lp.get('/house/position')).body.position;
    expect(finalPosition).toEqual({ shares: 0, principal: 0, currentValue: 0, profit: 0, ownership: 0 });
    expect((await http('GET', `${svc.api}/house`)).body.house.totalStaked).toBe(0);
    // The LP's burned shares left the supply on-chain too.
    const rpc = createSolanaRpc(svc.rpcUrl);
    await waitFor(async () => expect(BigInt((await rpc.getTokenSupply(svc.wiring.setup.lpMint).send()).value.amount)).toBe(before.supply));
  });

  it('refuses bad amounts and shares, and redeeming shares the wallet does not hold', async () => {
    const lp = await wallet(10);
    for (const bad of [0, -1, 'abc', 1.0000001]) {
      const res = await lp.post('/protocol/v1/house/lp-deposit-transaction', { amount: bad });
      expect([res.status, res.body.error.code], JSON.stringify(bad)).toEqual([400, 'INVALID_BET_AMOUNT']);
    }
    for (const bad of [0, -1, 'abc', 1.0000001]) {
      const res = await lp.post('/protocol/v1/house/lp-redeem-transaction', { shares: bad });
      expect([res.status, res.body.error.code], JSON.stringify(bad)).toEqual([400, 'INVALID_REQUEST']);
    }
    const none = await lp.post('/protocol/v1/house/lp-redeem-transaction', { shares: 1 });
    expect(none.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'insufficient_shares', shares: 0 } });
    expect((await http('POST', `${svc.api}/protocol/v1/house/lp-deposit-transaction`, { amount: 1 })).status).toBe(401);
  });
});

describe('a first depositor', () => {
  it('cannot inflate the share price to take a later depositor’s value', async () => {
    const attacker = await wallet(600);
    const victim = await wallet(200);
    const start = await pool();
    const attackerShares = sharesForDeposit(1n, start.supply, start.nav);
    await lpDeposit(attacker, '0.000001');
    // Priced once the micro-USDC moved from pending LP deposits into NAV.
    await waitFor(async () => expect(await pool()).toMatchObject({ supply: start.supply + attackerShares, nav: start.nav + 1n }));
    if (attackerShares > 0n) await mintedTo(attacker, attackerShares);
    const priced = await pool();
    const priceBefore = (await http('GET', `${svc.api}/house`)).body.house.sharePrice;

    // A bare transfer into the vault is unattributed: a liability, not NAV, so the price does not move.
    const mint = svc.wiring.setup.usdcMint;
    await sendAndConfirm(svc.wiring.rpc, attacker.signer, [
      getTransferCheckedInstruction({
        source: await ataOf(attacker.signer.address, mint),
        mint,
        destination: svc.wiring.setup.vaultTokenAccount,
        authority: attacker.signer,
        amount: 500n * USDC,
        decimals: 6,
      }),
    ]);
    await waitFor(async () => expect((await svc.wiring.stores.ledger.house()).unattributed).toBeGreaterThanOrEqual(500n * USDC));
    expect(await pool()).toEqual(priced);
    expect((await http('GET', `${svc.api}/house`)).body.house.sharePrice).toBe(priceBefore);

    const victimShares = sharesForDeposit(100n * USDC, priced.supply, priced.nav);
    await lpDeposit(victim, 100);
    await mintedTo(victim, victimShares);
    const after = await pool();
    // The victim's shares are worth what it paid, to within one share's price.
    const worth = redemptionValue(victimShares, after.supply, after.nav);
    expect(worth).toBeGreaterThanOrEqual(100n * USDC - (priced.nav + priced.supply - 1n) / priced.supply);
    expect((await victim.get('/house/position')).body.position.principal).toBe(100);
    // And the attacker's shares are worth what it paid, not its donation.
    if (attackerShares > 0n) expect(redemptionValue(attackerShares, after.supply, after.nav)).toBeLessThanOrEqual(2n);
  });
});

describe('redemptions while free liquidity is short', () => {
  it('wait in a queue, in order, and are paid in order once the exposure is released; the price never moved with it', async () => {
    const a = await wallet(500);
    const b = await wallet(100);
    let p = await pool();
    const sharesA = sharesForDeposit(400n * USDC, p.supply, p.nav);
    await lpDeposit(a, 400);
    await mintedTo(a, sharesA);
    p = await pool();
    const sharesB = sharesForDeposit(20n * USDC, p.supply, p.nav);
    await lpDeposit(b, 20);
    await mintedTo(b, sharesB);

    // One unrevealed 99x Dice bet holding about 24% of NAV in exposure leaves about 4% of NAV free to pay redemptions.
    const gambler = await new Player(svc.api, svc.rpcUrl).onboard(50);
    players.push(gambler);
    p = await pool();
    const price = (await http('GET', `${svc.api}/house`)).body.house.sharePrice;
    const bet = await gambler.prepareDice({ wager: formatMicro((p.nav * 24n) / 100n / 98n), target: 1, direction: 'under' });
    expect(bet.res.status, JSON.stringify(bet.res.body)).toBe(200);
    const committed = await gambler.commitDice(bet.res.body);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    const held = await pool();
    expect(held.exposure).toBeGreaterThan((held.nav * 23n) / 100n);
    // Open exposure is owed to no one: NAV and the share price stay where they were.
    expect(held.nav).toBe(p.nav);
    expect((await http('GET', `${svc.api}/house`)).body.house.sharePrice).toBe(price);
    const [usdcA, usdcB] = [await tokenOf(a.address, 'usdcMint'), await tokenOf(b.address, 'usdcMint')];

    await lpRedeem(a, sharesA);
    await lpRedeem(b, sharesB);
    const queue = () => svc.wiring.redis.lrange(svc.wiring.keys.lpRedeemQueue(), 0, -1);
    await waitFor(async () => expect(await queue()).toHaveLength(2));
    const [jobA, jobB] = await queue();
    expect((await svc.wiring.stores.lp.job(jobA!))!.wallet).toBe(a.address);
    // A cannot be paid now; B could, but waits behind A.
    p = await pool();
    expect(redemptionValue(sharesA, p.supply, p.nav)).toBeGreaterThan(p.nav - (p.exposure * 10_000n) / 2_500n);
    expect(await new Keeper(svc.wiring.worker!.keeper.keeper).fixLp()).toBe(0);
    expect(await queue()).toEqual([jobA, jobB]);
    expect([await tokenOf(a.address, 'usdcMint'), await tokenOf(b.address, 'usdcMint')]).toEqual([usdcA, usdcB]);

    // The bet settles (a win or a loss): its exposure is released and the queue is paid in order.
    const revealed = await gambler.revealDice(bet.res.body.betPayloadHash, bet.clientSeedRaw, committed.body.ack.revealMessage);
    expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
    await waitFor(async () => expect(await queue()).toEqual([]));
    const [fixedA, fixedB] = await Promise.all([
      svc.wiring.redis.hgetall(svc.wiring.keys.lpJob(jobA!)),
      svc.wiring.redis.hgetall(svc.wiring.keys.lpJob(jobB!)),
    ]);
    expect(Date.parse(fixedA.fixedAt!)).toBeLessThanOrEqual(Date.parse(fixedB.fixedAt!));
    // Each at NAV per share when it was valued.
    expect(BigInt(fixedA.value!)).toBe(redemptionValue(sharesA, BigInt(fixedA.supplyBefore!), BigInt(fixedA.nav!)));
    expect(BigInt(fixedB.value!)).toBe(redemptionValue(sharesB, BigInt(fixedB.supplyBefore!), BigInt(fixedB.nav!)));
    expect(BigInt(fixedB.supplyBefore!)).toBe(BigInt(fixedA.supplyBefore!) - sharesA);
    await waitFor(async () => {
      expect(await tokenOf(a.address, 'usdcMint')).toBe(usdcA + BigInt(fixedA.value!));
      expect(await tokenOf(b.address, 'usdcMint')).toBe(usdcB + BigInt(fixedB.value!));
    });
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?limit=1000`)).body.events as { type: string; data: any }[];
    expect(events.filter((e) => e.type === 'lp_redeem_valued').map((e) => e.data.jobId)).toEqual(expect.arrayContaining([jobA, jobB]));
    const order = events.filter((e) => e.type === 'lp_redeem_valued' && [jobA, jobB].includes(e.data.jobId)).map((e) => e.data.jobId);
    expect(order).toEqual([jobA, jobB]);
  });
});

describe('the verifier', () => {
  it('passes `pfws-verify all`, solvency included, with withdrawals and LP flows in the history', async () => {
    const p = await new Player(svc.api, svc.rpcUrl).onboard(40);
    players.push(p);
    await p.playDice({ wager: 1, target: 50 });
    const w = await fetch(`${svc.api}/protocol/v1/player/withdraw`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}`, 'idempotency-key': 'verify-run' },
      body: JSON.stringify({ amount: 10 }),
    }).then((r) => r.json() as Promise<any>);
    await waitFor(async () => {
      const status = (await p.get('/protocol/v1/player/status')).body;
      expect(status.withdrawals.find((x: { id: string }) => x.id === w.withdrawal.id)?.status).toBe('finalized');
    });
    await p.playDice({ wager: 1, target: 50 });
    // Every entry anchored, so the latest commit's liabilities include the withdrawal's effects.
    const { redis, keys } = svc.wiring;
    await waitFor(async () => {
      const [size, state] = await Promise.all([redis.llen(keys.betLog()), redis.hmget(keys.anchor(), 'committedSize', 'filled')]);
      expect([Number(state[0]), Number(state[1])]).toEqual([size, size]);
    });
    expect(await expectVerifiedAll(svc)).toContain('solvency');
  });
});
