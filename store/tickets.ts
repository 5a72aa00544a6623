// Sweeper tickets in Redis: open (atomic, one per wallet), read, and settle a turn.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { ScriptRunner } from './scripts.ts';
import type { LimitSettings } from './ledger.ts';
import { playerTotalsOf, type PlayerTotals } from './bets.ts';

export interface TicketTurn {
  betPayloadHash: string;
  kind: 'choice' | 'cashout';
  row: number | null;
  choiceColumn: number | null;
  mineColumn: number | null;
  safe: boolean | null;
  clientSeedRaw: string | null;
  rngIndex: number;
  rngChainHead: string;
  rngReveal: string | null;
  revealSignature: string | null;
  settledAt: string;
}

export interface TicketRecord {
  id: string;
  wallet: string;
  status: 'running' | 'settled';
  outcome: 'busted' | 'cashed_out' | 'cleared' | 'forfeited' | null;
  mode: string;
  wager: bigint;
  fullPayout: bigint;
  rowsWon: number;
  pendingTurn: string;
  createdAt: string;
  endedAt: string | null;
  nonce: number;
  serverSeedHash: string;
  payout: bigint | null;
  turns: TicketTurn[];
}

export type OpenResult = { kind: 'ok'; nonce: number } | { kind: 'err'; reason: string; detail: string | null };

export interface SettleTurnArgs {
  settlementJson: string;
  rowsWon: number;
  status: 'running' | 'settled';
  outcome: string;
  turns: TicketTurn[];
  endedAt: string;
  payout: bigint;
  houseNet: bigint;
  receiptId: string;
  receiptJson: string;
  leafHashHex: string;
  turnEventJson: string;
  ticketEventJson: string;
  recentJson: string;
  disclosedIndex: number;
  settledAt: string;
  /** Published on the plays channel when the turn ends the ticket. */
  playJson: string;
}

export type SettleTurnResult = { kind: 'ok' | 'dup'; settlement: string; player: PlayerTotals } | { kind: 'err'; reason: string };

export class TicketStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: ScriptRunner,
  ) {}

  async open(
    wallet: string,
    t: { id: string; mode: string; wager: bigint; fullPayout: bigint; sessionPubkey: string; createdAt: string; serverSeedHash: string; limits: LimitSettings },
  ): Promise<OpenResult> {
    const k = this.keys;
    const reply = (await this.scripts.openTicket(
      [k.player(wallet), k.sessionKeys(wallet), k.activeTicket(wallet), k.ticket(t.id), k.house(), k.journal(), k.journalSeq()],
      [
        wallet, t.id, t.mode, t.wager.toString(), t.fullPayout.toString(), (t.fullPayout - t.wager).toString(), t.sessionPubkey,
        t.createdAt, t.serverSeedHash, t.limits.maxExposureBps, t.limits.maxPayoutBps, t.limits.maxBetBps,
      ],
    )) as (string | null)[];
    if (reply[0] === 'err') return { kind: 'err', reason: reply[1] as string, detail: reply[2] ?? null };
    return { kind: 'ok', nonce: Number(reply[1]) };
  }

  async get(id: string): Promise<TicketRecord | null> {
    const r = await this.redis.hgetall(this.keys.ticket(id));
    if (!r.wallet) return null;
    return {
      id,
      wallet: r.wallet,
      status: r.status as TicketRecord['status'],
      outcome: (r.outcome || null) as TicketRecord['outcome'],
      mode: r.mode ?? '',
      wager: BigInt(r.wager ?? '0'),
      fullPayout: BigInt(r.fullPayout ?? '0'),
      rowsWon: Number(r.rowsWon ?? 0),
      pendingTurn: r.pendingTurn ?? '',
      createdAt: r.createdAt ?? '',
      endedAt: r.endedAt || null,
      nonce: Number(r.nonce ?? 0),
      serverSeedHash: r.serverSeedHash ?? '',
      payout: r.payout !== undefined ? BigInt(r.payout) : null,
      turns: JSON.parse(r.turns ?? '[]') as TicketTurn[],
    };
  }

  async activeTicketId(wallet: string): Promise<string | null> {
    return this.redis.get(this.keys.activeTicket(wallet));
  }

  async settleTurn(betPayloadHash: string, wallet: string, ticketId: string, a: SettleTurnArgs): Promise<SettleTurnResult> {
    const k = this.keys;
    const reply = (await this.scripts.settleTurn(
      [
        k.player(wallet), k.bet(betPayloadHash), k.ticket(ticketId), k.activeTicket(wallet), k.house(), k.journal(), k.journalSeq(),
        k.pendingBets(wallet), k.deadlines(), k.betLog(), k.receipt(a.receiptId), k.rng(), k.recentPlays(wallet, 'sweeper'),
      ],
      [
        betPayloadHash, wallet, a.settlementJson, a.rowsWon, a.status, JSON.stringify(a.turns), a.endedAt, a.payout.toString(),
        a.houseNet.toString(), a.receiptJson, `${a.leafHashHex}:${a.receiptId}`, a.turnEventJson, a.ticketEventJson, a.recentJson,
        a.disclosedIndex, a.settledAt, a.outcome, k.playsChannel(), a.playJson,
      ],
    )) as (string | null)[];
    if (reply[0] === 'err') return { kind: 'err', reason: reply[1] as string };
    return { kind: reply[0] as 'ok' | 'dup', settlement: reply[1] as string, player: playerTotalsOf(reply, 2) };
  }
}
