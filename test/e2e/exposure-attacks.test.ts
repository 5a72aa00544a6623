// Issue 21, findings 1 and 2, replayed against the real service with its default limits. Open exposure is owed to no
// one, so it moves neither NAV nor the LP price: bets held open around an LP deposit pay the depositor only its share of
// how they settle, and an honest LP leaving meanwhile is paid in full. Each wallet holds at most its share of
// maxExposure (MAX_WALLET_EXPOSURE_BPS), and a ticket only the increment of a turn in flight, so ten wallets of 2,000
// USDC holding all they may stop neither a bystander's 1 USDC Dice bet or 0.1 USDC ticket nor an LP's exit.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { lpDeposit, lpRedeem, lpWallet, mintedTo, pool, tokenOf, waitFor } from '../helpers/lp.ts';
import { settleDice } from '../../protocol/dice.ts';
import { limitsOf } from '../../protocol/house.ts';
import { freeLiquidity, redemptionValue, sharesForDeposit, VIRTUAL_SHARES } from '../../protocol/lp-shares.ts';
import { formatMicro } from '../../protocol/money.ts';
import { sweeperTurnExposure } from '../../protocol/sweeper.ts';

const USDC = 1_000_000n;
let svc: TestService;
const players: Player[] = [];

async function onboard(deposit: number): Promise<Player> {
  const p = await new Player(svc.api, svc.rpcUrl).onboard(deposit);
  players.push(p);
  return p;
}

const limits = async () => limitsOf(await svc.wiring.stores.ledger.house(), svc.wiring.limits);
const sharePrice = async (): Promise<number> => (await http('GET', `${svc.api}/house`)).body.house.sharePrice;

/** A 99x Dice bet (under 1.00) committed with a seed that loses at the next RNG index: a test of the books, not of luck. */
async function commitLosing(p: Player, wager: bigint) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const [chainId, next] = await svc.wiring.redis.hmget(svc.wiring.keys.rng(), 'chainId', 'next');
    const rngValueHex = svc.wiring.rngChains.get(Number(chainId)).valueHex(Number(next));
    const prepared = await p.prepareDice({ wager: formatMicro(wager), target: 1, direction: 'under' });
    expect(prepared.res.status, JSON.stringify(prepared.res.body)).toBe(200);
    const { betPayloadHash } = prepared.res.body;
    const { won } = settleDice({ rngValueHex, clientSeedRaw: prepared.clientSeedRaw, betPayloadHash, direction: 'under', targetBps: 100, wagerMicro: wager });
    if (won) continue;
    const committed = await p.commitDice(prepared.res.body);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect(committed.body.rngIndex).toBe(Number(next));
    return { p, betPayloadHash, clientSeedRaw: prepared.clientSeedRaw, revealMessage: committed.body.ack.revealMessage as string, wager };
  }
  throw new Error('no losing seed found');
}

/** Commits unrevealed 99x Dice bets until the wallet holds all of its share of maxExposure, to the micro-USDC. */
async function fillShare(p: Player) {
  const held: Awaited<ReturnType<typeof commitLosing>>[] = [];
  for (;;) {
    const { maxWalletExposure, maxPayout } = await limits();
    const room = maxWalletExposure - (await svc.wiring.stores.ledger.player(p.address)).exposure;
    // A 99x bet of w holds 98w; its payout 99w must fit maxPayout.
    const wager = room / 98n < maxPayout / 99n ? room / 98n : maxPayout / 99n;
    if (wager === 0n) return held;
    held.push(await commitLosing(p, wager));
  }
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

describe('finding 1: open exposure and the LP price', () => {
  it('bets held open around an LP deposit move no price: the depositor gets its share of their losses, no more', async () => {
    const honest = await lpWallet(svc, 1_000);
    let p = await pool(svc);
    const honestShares = sharesForDeposit(1_000n * USDC, p.supply, p.nav);
    await lpDeposit(honest, 1_000);
    await mintedTo(svc, honest, honestShares);

    const before = await pool(svc);
    const priceBefore = await sharePrice();
    const gamblers = [await onboard(2_000), await onboard(2_000)];
    const bets = [...(await fillShare(gamblers[0]!)), ...(await fillShare(gamblers[1]!))];
    const held = await pool(svc);
    const { maxWalletExposure } = await limits();
    expect(held.exposure).toBeGreaterThan(2n * (maxWalletExposure - 98n));
    expect([held.nav, held.supply]).toEqual([before.nav, before.supply]);
    expect(await sharePrice()).toBe(priceBefore);

    // An honest LP leaving now is paid as if no bet were open (the attack as run paid 809 of 1,000 USDC).
    const honestUsdc = await tokenOf(svc, honest.address, 'usdcMint');
    const honestValue = redemptionValue(honestShares, held.supply, held.nav);
    expect(honestValue).toBeGreaterThanOrEqual(1_000n * USDC - 2n);
    await lpRedeem(honest, honestShares);
    await waitFor(async () => expect(await tokenOf(svc, honest.address, 'usdcMint')).toBe(honestUsdc + honestValue));

    // The attacker's deposit is priced at the NAV the open bets did not move (as run: 1,279,654 shares for 1,000,000).
    const attacker = await lpWallet(svc, 1_000_000);
    p = await pool(svc);
    const deposit = 1_000_000n * USDC;
    expect(p.nav).toBe(held.nav - honestValue);
    const shares = sharesForDeposit(deposit, p.supply, p.nav);
    await lpDeposit(attacker, 1_000_000);
    await mintedTo(svc, attacker, shares);

    // The bets lose.
    let lost = 0n;
    for (const bet of bets) {
      const revealed = await bet.p.revealDice(bet.betPayloadHash, bet.clientSeedRaw, bet.revealMessage);
      expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
      expect(revealed.body.outcome.status).toBe('lost');
      lost += bet.wager;
    }
    const settled = await pool(svc);
    expect(settled.exposure).toBe(0n);
    expect(settled.nav).toBe(p.nav + deposit + lost);

    const attackerUsdc = await tokenOf(svc, attacker.address, 'usdcMint');
    const value = redemptionValue(shares, settled.supply, settled.nav);
    await lpRedeem(attacker, shares);
    await waitFor(async () => expect(await tokenOf(svc, attacker.address, 'usdcMint')).toBe(attackerUsdc + value));
    // Its pro-rata share of the losses it saw, and no more (as run: +111,380 USDC on 1,000,000 in 4.5 s).
    expect(value - deposit).toBeLessThanOrEqual((shares * lost) / (settled.supply + VIRTUAL_SHARES));
    // With the bets it lost, the attack costs the attacker money.
    expect(value - deposit - lost).toBeLessThan(0n);
  }, 120_000);
});

describe('finding 2: wallets holding all the exposure they may', () => {
  it('ten wallets of 2,000 USDC stop neither a bystander’s 1 USDC Dice bet or 0.1 USDC ticket nor an LP exit', async () => {
    const lp = await lpWallet(svc, 10_000);
    let p = await pool(svc);
    const lpShares = sharesForDeposit(10_000n * USDC, p.supply, p.nav);
    await lpDeposit(lp, 10_000);
    await mintedTo(svc, lp, lpShares);

    const holders: Player[] = [];
    for (let i = 0; i < 10; i += 5) holders.push(...(await Promise.all(Array.from({ length: 5 }, () => onboard(2_000)))));
    for (const h of holders) {
      // A hard ticket whose full board fits maxPayout, with a choice turn in flight: the turn holds its increment.
      const open = await h.openTicket('hard', 39);
      expect(open.status, JSON.stringify(open.body)).toBe(200);
      const choice = await h.prepareChoice(open.body.ticket.id, 0, 0);
      expect(choice.res.status, JSON.stringify(choice.res.body)).toBe(200);
      expect((await h.commitSweeper(choice.res.body)).status).toBe(200);
      expect((await svc.wiring.stores.ledger.player(h.address)).exposure).toBe(sweeperTurnExposure(39n * USDC, 'hard', 0));
      // Unrevealed 99x Dice bets fill the rest of its share; one more is refused, at prepare and by name.
      await fillShare(h);
      const more = await h.prepareDice({ wager: 1, target: 1, direction: 'under' });
      expect(more.res.body.error).toMatchObject({ code: 'GAME_INPUT_REJECTED', details: { reason: 'wallet_exposure' } });
    }
    const { maxExposure, maxWalletExposure } = await limits();
    const held = await pool(svc);
    expect(held.exposure).toBeGreaterThan(10n * (maxWalletExposure - 98n));
    expect(held.exposure).toBeLessThanOrEqual(maxExposure / 2n);

    // An LP exits: free liquidity covers it, and it is paid at the price the open bets did not move.
    p = await pool(svc);
    const value = redemptionValue(lpShares, p.supply, p.nav);
    expect(value).toBeLessThanOrEqual(freeLiquidity(p.nav, p.exposure, svc.wiring.limits.maxExposureBps));
    expect(value).toBeGreaterThanOrEqual(10_000n * USDC - 2n);
    const lpUsdc = await tokenOf(svc, lp.address, 'usdcMint');
    await lpRedeem(lp, lpShares);
    await waitFor(async () => expect(await tokenOf(svc, lp.address, 'usdcMint')).toBe(lpUsdc + value));

    // A bystander plays a 1 USDC Dice bet at 99x and a 0.1 USDC hard ticket.
    const bystander = await onboard(10);
    await bystander.playDice({ wager: 1, target: 1, direction: 'under' });
    const ticket = await bystander.openTicket('hard', 0.1);
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
    const turn = await bystander.prepareChoice(ticket.body.ticket.id, 0, 1);
    expect(turn.res.status, JSON.stringify(turn.res.body)).toBe(200);
    const committed = await bystander.commitSweeper(turn.res.body);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    const revealed = await bystander.revealSweeper(turn.res.body.betPayloadHash, turn.clientSeedRaw, committed.body.ack.revealMessage);
    expect(revealed.status, JSON.stringify(revealed.body)).toBe(200);
  }, 240_000);
});
