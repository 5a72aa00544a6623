// The end-of-run checks that no bet was lost and the money adds up: receipts for every acknowledged bet, each
// settled play once in the bet log, each player's books, and conservation against the vault read on-chain.
import { address, createSolanaRpc } from '@solana/kit';
import type { Redis } from 'ioredis';
import { parseNonNegativeAmount } from '../protocol/money.ts';
import type { BetJournal } from './bet-journal.ts';
import type { ChaosPlayer } from './load.ts';
import { retrying } from './recovery.ts';
import type { Check } from './report.ts';
import { sleep } from './ports.ts';

/** An API decimal number as exact micro-USDC (negative allowed: the house's game net can be). */
export const toMicro = (n: number): bigint => (n < 0 ? -parseNonNegativeAmount(-n) : parseNonNegativeAmount(n));

async function getJson(url: string): Promise<{ status: number; body: any }> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      if (res.status >= 500 && attempt < 20) {
        await sleep(250);
        continue;
      }
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    } catch (err) {
      if (attempt >= 20) throw err;
      await sleep(250);
    }
  }
}

async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

export interface Receipt {
  id: string;
  status: string;
  betAmount: number;
  payout: number;
  proof?: { turns?: { betPayloadHash: string }[] };
  anchor?: { status: string };
}

export interface ReceiptAudit {
  /** Acknowledged bets with no receipt, or a forfeited one although the seed was known; by round. */
  lost: { betPayloadHash: string; round: number; why: string }[];
  /** Every receipt of the journal's bets and tickets, by id. */
  receipts: Map<string, Receipt & { player: number }>;
  committedWithoutAck: number;
}

/** Reads the receipt of every bet the service committed, or acknowledged, and of every ticket. */
export async function auditReceipts(api: string, journal: BetJournal): Promise<ReceiptAudit> {
  const receipts = new Map<string, Receipt & { player: number }>();
  const lost: ReceiptAudit['lost'] = [];
  const ticketIds = [...journal.tickets.keys()];
  await inBatches(ticketIds, 16, async (ticketId) => {
    const res = await getJson(`${api}/receipts/sweeper_${ticketId}`);
    if (res.status === 200) receipts.set(res.body.receipt.id, { ...res.body.receipt, player: journal.tickets.get(ticketId)!.player });
  });
  const bets = [...journal.bets.values()];
  let committedWithoutAck = 0;
  await inBatches(bets, 16, async (bet) => {
    let receipt: Receipt | undefined;
    if (bet.game === 'dice') {
      const res = await getJson(`${api}/receipts/dice_${bet.betPayloadHash.slice(0, 32)}`);
      if (res.status === 200) {
        receipt = res.body.receipt as Receipt;
        receipts.set(receipt.id, { ...receipt, player: bet.player });
      }
    } else {
      const ticket = receipts.get(`sweeper_${bet.ticketId}`);
      if (ticket?.proof?.turns?.some((t) => t.betPayloadHash === bet.betPayloadHash)) receipt = ticket;
    }
    if (receipt && !bet.acked) committedWithoutAck++;
    if (!bet.acked) return;
    if (!receipt) lost.push({ betPayloadHash: bet.betPayloadHash, round: bet.round, why: `${bet.game} bet acknowledged, no settled receipt holds it` });
    else if (receipt.status === 'forfeited')
      lost.push({ betPayloadHash: bet.betPayloadHash, round: bet.round, why: `${receipt.id} forfeited although its seed was stored` });
  });
  return { lost, receipts, committedWithoutAck };
}

/** Waits until the anchor worker has committed every bet-log entry on-chain. */
export async function waitAnchored(api: string, timeoutMs: number): Promise<{ size: number; committedSize: number; waitedMs: number }> {
  const t0 = Date.now();
  for (;;) {
    const { body } = await getJson(`${api}/protocol/v1/bet-log/entries?limit=1`);
    if (body.committedSize === body.size || Date.now() - t0 > timeoutMs)
      return { size: body.size, committedSize: body.committedSize, waitedMs: Date.now() - t0 };
    await sleep(250);
  }
}

/** Each settled receipt appears in the bet log exactly once, and the log holds nothing else of ours twice. */
export async function auditBetLog(api: string, receipts: ReceiptAudit['receipts']): Promise<Check[]> {
  const ids: string[] = [];
  for (let from = 0; ; ) {
    const { body } = await getJson(`${api}/protocol/v1/bet-log/entries?from=${from}&limit=1000`);
    ids.push(...body.entries.map((e: { receiptId: string }) => e.receiptId));
    from += body.entries.length;
    if (!body.entries.length || from >= body.size) break;
  }
  const seen = new Set<string>();
  const duplicates = ids.filter((id) => {
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  });
  const missing = [...receipts.keys()].filter((id) => !seen.has(id));
  return [
    {
      name: 'bet log: one entry per settled play',
      held: duplicates.length === 0,
      detail: duplicates.length ? `${duplicates.length} duplicated, e.g. ${duplicates.slice(0, 3).join(', ')}` : `${ids.length} entries, none twice`,
    },
    {
      name: 'bet log: every receipt logged',
      held: missing.length === 0,
      detail: missing.length
        ? `${missing.length} receipts not in the log, e.g. ${missing.slice(0, 3).join(', ')}`
        : `${receipts.size} receipts found in the log`,
    },
  ];
}

/** A player's balance is its deposit plus the net of its receipts, with nothing left staked. */
export async function playerBooks(player: ChaosPlayer, receipts: ReceiptAudit['receipts']): Promise<Check> {
  const status = await retrying(() => player.must('GET', '/protocol/v1/player/status'));
  const own = [...receipts.values()].filter((r) => r.player === player.index);
  const net = own.reduce((n, r) => n + toMicro(r.payout) - toMicro(r.betAmount), 0n);
  const expected = toMicro(player.deposit) + net;
  const balance = toMicro(status.balance);
  const held = balance === expected && status.stakedInPlay === 0 && status.exposure === 0 && status.totals.plays === own.length;
  return {
    name: `books of player ${player.index}`,
    held,
    detail: `balance ${status.balance} vs deposit ${player.deposit} + net ${Number(net) / 1e6} of ${own.length} receipts; staked ${status.stakedInPlay}, exposure ${status.exposure}, plays ${status.totals.plays}`,
  };
}

export interface ConservationInput {
  api: string;
  rpcUrl: string;
  /** Every wallet that ever held a balance in this service. */
  players: readonly ChaosPlayer[];
  redis: Redis;
  /** The ledger's house hash (store/keys.ts `house()`), read for the two totals no API shows. */
  houseKey: string;
}

/**
 * vault (on-chain) = Σ players (balance + stake in play + pending withdrawals) + payouts banked on open tickets
 * + unattributed + LP deposits not yet minted + NAV, with NAV = house capital + game net − banked payouts (computed
 * without the vault). Open exposure is owed to no one and is on neither side.
 */
export async function conservation(input: ConservationInput): Promise<Check[]> {
  const config = (await getJson(`${input.api}/protocol/v1/config`)).body;
  const rpc = createSolanaRpc(input.rpcUrl);
  const vault = BigInt((await rpc.getTokenAccountBalance(address(config.vaultTokenAccount)).send()).value.amount);
  const house = (await getJson(`${input.api}/house`)).body.house;
  const [unattributed, lpPending, balances, staked, banked] = (
    await input.redis.hmget(input.houseKey, 'unattributed', 'lpPending', 'balances', 'staked', 'banked')
  ).map((v) => BigInt(v ?? '0'));
  let sumBalance = 0n;
  let sumStaked = 0n;
  let sumPending = 0n;
  await inBatches(input.players, 16, async (p) => {
    const s = await retrying(() => p.must('GET', '/protocol/v1/player/status'));
    sumBalance += toMicro(s.balance);
    sumStaked += toMicro(s.stakedInPlay);
    sumPending += toMicro(s.pendingWithdrawals);
  });
  const nav = toMicro(house.baseBankroll) + toMicro(house.gameNet) - banked!;
  const locked = sumBalance + sumStaked + sumPending + banked! + unattributed! + lpPending!;
  const fmt = (m: bigint) => (Number(m) / 1e6).toFixed(6);
  return [
    {
      name: 'conservation: vault = liabilities + banked payouts + unattributed + NAV',
      held: vault === locked + nav,
      detail: `vault ${fmt(vault)} vs players ${fmt(sumBalance + sumStaked + sumPending)} + banked ${fmt(banked!)} + unattributed ${fmt(unattributed!)} + lp ${fmt(lpPending!)} + NAV ${fmt(nav)} (diff ${fmt(vault - locked - nav)})`,
    },
    {
      name: 'house totals = Σ players',
      held: balances === sumBalance && staked === sumStaked,
      detail: `house balances ${fmt(balances!)} vs Σ ${fmt(sumBalance)}; house staked ${fmt(staked!)} vs Σ ${fmt(sumStaked)}`,
    },
  ];
}
