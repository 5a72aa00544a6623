// The house's books in the real ledger scripts (issue 21): open exposure moves neither NAV nor the LP price, so finding
// 1 (exposure opened, an LP deposit, the bets lose, the redemption) pays the depositor only its share of the losses; a
// Sweeper ticket reserves exposure only for a turn in flight, and its banked payout is owed; one wallet holds at most its
// share of maxExposure. Against Redis on 127.0.0.1:6379, under a key prefix of its own per test.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Keeper, type KeeperDeps } from '../../funding/keeper.ts';
import { diceMultiplierBps, dicePayout } from '../../protocol/dice.ts';
import { limitsOf, type LimitSettings } from '../../protocol/house.ts';
import { redemptionValue, sharesForDeposit, VIRTUAL_SHARES } from '../../protocol/lp-shares.ts';
import { sweeperBanked, sweeperOwed, sweeperPayout, sweeperTurnExposure } from '../../protocol/sweeper.ts';
import { BetStore, type TurnWrite } from '../../store/bets.ts';
import { Keys } from '../../store/keys.ts';
import { LedgerStore, lpJobIdOf, type ChainItem } from '../../store/ledger.ts';
import { LpStore } from '../../store/lp.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { defineScripts, type Scripts } from '../../store/scripts.ts';
import { TicketStore } from '../../store/tickets.ts';
import type { Address } from '../../protocol/address.ts';
import type { Hex32 } from '../../protocol/hex32.ts';
import { randomAddress, randomHex32, randomKey } from '../helpers/random-ids.ts';

const USDC = 1_000_000n;
const DEFAULTS: LimitSettings = { maxBetBps: 50, maxPayoutBps: 100, maxExposureBps: 2500, maxWalletExposureBps: 500 };
const AGENT = { maxBet: USDC, maxWagered: USDC, windowMs: 1_000 };

let redis: Redis;
let scripts: Scripts;
let keys: Keys;
let ledger: LedgerStore;
let bets: BetStore;
let tickets: TicketStore;
let lp: LpStore;
let items = 0;
const prefixes: string[] = [];
/** Every wallet's one session key. */
const SESSION = randomKey();

/** Applies one on-chain fact as the indexer would; returns its item key. */
async function apply(item: Omit<ChainItem, 'key' | 'signature' | 'slot'>): Promise<string> {
  items++;
  const key = `sig${items}:0`;
  await ledger.applyChainItem({ key, signature: `sig${items}`, slot: items, ...item }, new Date().toISOString());
  return key;
}

async function wallet(balance: bigint): Promise<Address> {
  const w = randomAddress();
  await apply({ kind: 'setup', wallet: w, alias: `p_${w.slice(0, 8)}`, sessionPubkey: SESSION });
  if (balance > 0n) await apply({ kind: 'deposit', wallet: w, alias: `p_${w.slice(0, 8)}`, amount: balance });
  return w;
}

const nav = async (limits = DEFAULTS) => limitsOf(await ledger.house(), limits).nav;

/** Prepares and commits a bet or turn, with the exposure the game would compute for it. */
async function commit(
  w: Address,
  p: { wager: bigint; maxPayout: bigint; exposure: bigint; ticketId?: string; row?: number },
  limits = DEFAULTS,
): Promise<{ hash: Hex32; result: Awaited<ReturnType<BetStore['commit']>> }> {
  const hash = randomHex32();
  const turn = p.ticketId !== undefined;
  const payload = turn ? { params: { turn: 'choice', row: p.row ?? 0 } } : { params: {} };
  const now = Date.now();
  await bets.savePrepared(
    hash,
    {
      wallet: w,
      game: turn ? 'sweeper' : 'dice',
      payload: JSON.stringify(payload),
      wager: p.wager,
      maxPayout: p.maxPayout,
      exposureDelta: p.exposure,
      sessionPubkey: SESSION,
      commitment: hash,
      betNonce: (await ledger.player(w)).nonce,
      expiresAtMs: now + 60_000,
      ...(turn ? { ticketId: p.ticketId, turn: 'choice' as const } : {}),
      source: 'api',
    },
    60_000,
    100,
  );
  const result = await bets.commit(hash, w, {
    nowMs: now,
    committedAt: new Date(now).toISOString(),
    revealDeadlineMs: now + 86_400_000,
    revealDeadline: new Date(now + 86_400_000).toISOString(),
    limits,
    agent: AGENT,
    sessionSignature: 'sig',
    maxUnrevealed: 100,
    ...(turn ? { ticketId: p.ticketId } : {}),
  });
  return { hash, result };
}

const dice99x = (wager: bigint) => {
  const maxPayout = dicePayout(wager, diceMultiplierBps(100));
  return { wager, maxPayout, exposure: maxPayout - wager };
};

const end = (id: string, wager: bigint, payout: bigint): NonNullable<TurnWrite['end']> => ({
  payout,
  houseNet: wager - payout,
  won: payout > 0n,
  receiptId: id,
  receiptJson: '{}',
  leafHashHex: '00',
  entryJson: '{}',
  event: { type: 'bet_settled', json: '{}' },
  recentJson: '{}',
  playJson: '',
});

/** The keeper's LP valuation (fixLp reads and writes the ledger only; it never reaches the chain). */
const keeper = (limits = DEFAULTS) =>
  new Keeper({
    lp,
    ledger,
    limits,
    clock: () => new Date(),
    logger: pino({ level: 'silent' }),
    gate: { check: async () => ({ state: 'clear', archiveSeq: 0, ledgerSeq: 0 }) },
  } as unknown as KeeperDeps);

beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  scripts = defineScripts(redis);
});

beforeEach(async () => {
  keys = new Keys(`test-exposure-${randomBytes(4).toString('hex')}`);
  prefixes.push(keys.prefix);
  ledger = new LedgerStore(redis, keys, scripts);
  bets = new BetStore(redis, keys, scripts);
  tickets = new TicketStore(redis, keys, scripts);
  lp = new LpStore(redis, keys, scripts);
  await redis.hset(keys.rng(), { chainId: '1', head: 'ab'.repeat(32), length: '1000000', next: '1' });
  // Genesis: 1,000,000 USDC of capital and as many bootstrap shares (a price of 1).
  await apply({ kind: 'house', amount: 1_000_000n * USDC });
  await redis.hset(keys.house(), 'lpSupply', String(1_000_000n * USDC));
});

afterAll(async () => {
  for (const prefix of prefixes) {
    const left = await redis.keys(`${prefix}:*`);
    if (left.length) await redis.del(...left);
  }
  await redis.quit();
});

describe('finding 1 against the ledger scripts', () => {
  it('exposure opened around an LP deposit moves no price: the depositor gets only its share of the bets it saw lose', async () => {
    // As run: 23 unrevealed 99x bets from two wallets, 2,004 USDC staked; no per-wallet share, to hold all of it.
    const limits = { ...DEFAULTS, maxWalletExposureBps: 10_000 };
    const gamblers = [await wallet(1_100n * USDC), await wallet(1_100n * USDC)];
    const navBefore = await nav(limits);
    const bet = dice99x(87_130_434n);
    const open: { w: Address; hash: Hex32 }[] = [];
    for (let i = 0; i < 23; i++) {
      const w = gamblers[i % 2]!;
      const { hash, result } = await commit(w, bet, limits);
      expect(result.kind, result.kind === 'err' ? result.reason : '').toBe('ok');
      open.push({ w, hash });
    }
    const house = await ledger.house();
    expect(house.exposure).toBe(23n * bet.exposure);
    expect(house.exposure).toBeGreaterThan(196_000n * USDC);
    expect(await nav(limits)).toBe(navBefore);

    const depositor = await wallet(0n);
    const deposit = 1_000_000n * USDC;
    const supply = house.lpSupply;
    const mintKey = await apply({ kind: 'lp-deposit', wallet: depositor, alias: 'lp', amount: deposit });
    expect(await keeper(limits).fixLp()).toBe(1);
    const shares = (await lp.job(lpJobIdOf({ key: mintKey, kind: 'lp-deposit' })))!.shares;
    // Priced at the NAV the bets did not move (the attack as run got 1,279,654 shares at a price of about 0.8).
    expect(shares).toBe(sharesForDeposit(deposit, supply, navBefore));

    for (const { w, hash } of open) {
      const settled = await bets.settleTurn(
        { hash, wallet: w, game: 'dice', ticketId: '' },
        {
          settlement: 'lost',
          disclosedIndex: 0,
          turnEvent: null,
          play: null,
          end: end(`dice_${hash}`, bet.wager, 0n),
        },
        new Date().toISOString(),
      );
      expect(settled.kind).toBe('ok');
    }
    const lost = 23n * bet.wager;
    expect((await ledger.house()).exposure).toBe(0n);
    expect(await nav(limits)).toBe(navBefore + deposit + lost);

    const redeemKey = await apply({ kind: 'lp-redeem', wallet: depositor, alias: 'lp', shares });
    const supplyAtRedeem = (await ledger.house()).lpSupply;
    expect(await keeper(limits).fixLp()).toBe(1);
    const value = (await lp.job(lpJobIdOf({ key: redeemKey, kind: 'lp-redeem' })))!.value!;
    expect(value).toBe(redemptionValue(shares, supplyAtRedeem, navBefore + deposit + lost));
    // Its pro-rata share of the losses, and no more (the attack as run took +111,380 USDC on 1,000,000).
    expect(value - deposit).toBeLessThanOrEqual((shares * lost) / (supplyAtRedeem + VIRTUAL_SHARES));
    expect(value - deposit - lost).toBeLessThan(0n);
  });
});

describe('a Sweeper ticket in the ledger scripts', () => {
  it('reserves nothing while idle, only the increment of a turn in flight, and books its banked payout as owed', async () => {
    const w = await wallet(100n * USDC);
    const wager = 10n * USDC;
    const before = await nav();
    const opened = await tickets.open(w, {
      id: 't_1',
      mode: 'hard',
      wager,
      fullPayout: sweeperPayout(wager, 'hard', 8),
      sessionPubkey: SESSION,
      createdAt: new Date().toISOString(),
      serverSeedHash: 'ab'.repeat(32),
      source: 'api',
      limits: DEFAULTS,
      agent: AGENT,
      nowMs: Date.now(),
    });
    expect(opened.kind).toBe('ok');
    expect(await ledger.house()).toMatchObject({ staked: wager, exposure: 0n, banked: 0n });
    expect(await nav()).toBe(before);

    // A choice for row 0 reserves what row 1 would add: 19.8 − 10 USDC.
    const first = await commit(w, { wager, maxPayout: 0n, exposure: sweeperTurnExposure(wager, 'hard', 0), ticketId: 't_1', row: 0 });
    expect(first.result.kind).toBe('ok');
    expect((await ledger.house()).exposure).toBe(9_800_000n);
    expect((await ledger.player(w)).exposure).toBe(9_800_000n);
    expect(await nav()).toBe(before);

    // The row clears: the exposure is released and the 9.8 USDC won is owed, so NAV falls by exactly that.
    const cleared = await bets.settleTurn(
      { hash: first.hash, wallet: w, game: 'sweeper', ticketId: 't_1' },
      {
        settlement: 'safe',
        disclosedIndex: 0,
        turnEvent: null,
        play: { status: 'running', outcome: '', banked: sweeperBanked(wager, 'hard', 1), state: { rowsWon: '1', turns: '[]' } },
        end: null,
      },
      new Date().toISOString(),
    );
    expect(cleared.kind).toBe('ok');
    expect(await ledger.house()).toMatchObject({ staked: wager, exposure: 0n, banked: 9_800_000n });
    expect((await ledger.player(w)).exposure).toBe(0n);
    expect(await nav()).toBe(before - 9_800_000n);

    // Idle, it holds no exposure; closed as idle it is paid what it is owed, and NAV does not move.
    const owed = sweeperOwed(wager, 'hard', 1);
    const closed = await bets.settleTurn(
      { hash: '', wallet: w, game: 'sweeper', ticketId: 't_1' },
      {
        settlement: 'idle',
        disclosedIndex: 0,
        turnEvent: null,
        play: { status: 'settled', outcome: 'cashed_out', banked: 0n, state: { rowsWon: '1', turns: '[]' } },
        closedBy: 'idle',
        end: end('sweeper_t_1', wager, owed),
      },
      new Date().toISOString(),
      { cutoffMs: Date.now() + 60_000 },
    );
    expect(closed.kind).toBe('ok');
    expect(await ledger.house()).toMatchObject({ staked: 0n, exposure: 0n, banked: 0n });
    expect((await ledger.player(w)).balance).toBe(100n * USDC - wager + owed);
    expect(await nav()).toBe(before - 9_800_000n);
  });
});

describe("a wallet's share of maxExposure", () => {
  it('refuses a Dice bet or a turn that would pass it, atomically, and lets another wallet bet', async () => {
    // NAV 1,000,000: maxExposure 250,000, a wallet's share 12,500.
    const share = 12_500n * USDC;
    const a = await wallet(2_000n * USDC);
    expect((await commit(a, dice99x(100n * USDC))).result.kind).toBe('ok'); // 9,800 held
    const before = await ledger.player(a);
    const over = await commit(a, dice99x(28n * USDC + 1n)); // 2,744.000098 more: over the share by 44.000098
    expect(over.result).toEqual({ kind: 'err', reason: 'wallet_exposure', detail: share.toString() });
    expect(await ledger.player(a)).toEqual(before);
    expect((await commit(a, dice99x(27_500_000n))).result.kind).toBe('ok'); // 12,495 held

    const opened = await tickets.open(a, {
      id: 't_2',
      mode: 'hard',
      wager: 10n * USDC,
      fullPayout: sweeperPayout(10n * USDC, 'hard', 8),
      sessionPubkey: SESSION,
      createdAt: new Date().toISOString(),
      serverSeedHash: 'ab'.repeat(32),
      source: 'api',
      limits: DEFAULTS,
      agent: AGENT,
      nowMs: Date.now(),
    });
    // Opening checks the house's headroom only; the turn is what would hold exposure, and it does not fit.
    expect(opened.kind).toBe('ok');
    const turn = await commit(a, { wager: 10n * USDC, maxPayout: 0n, exposure: sweeperTurnExposure(10n * USDC, 'hard', 0), ticketId: 't_2' });
    expect(turn.result).toEqual({ kind: 'err', reason: 'wallet_exposure', detail: share.toString() });
    expect((await ledger.house()).exposure).toBe(12_495n * USDC);

    const b = await wallet(200n * USDC);
    expect((await commit(b, dice99x(100n * USDC))).result.kind).toBe('ok');
  });
});
