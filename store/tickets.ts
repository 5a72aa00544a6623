// Sweeper tickets in Redis: open (atomic, one per wallet) and read; turns settle through BetStore.settleTurn.
import type { Redis } from 'ioredis';
import type { Address, Base58Key } from '../protocol/address.ts';
import type { AgentLimitSettings } from '../protocol/agent-limits.ts';
import type { LimitSettings } from '../protocol/house.ts';
import type { LedgerRejection } from '../protocol/errors.ts';
import type { PlaySource } from '../protocol/receipt.ts';
import type { Hex32 } from '../protocol/hex32.ts';
import type { Keys } from './keys.ts';
import { noDeadline, type NotAfter } from './redis.ts';
import type { Scripts } from './scripts.ts';
import { rejectionOf } from './bets.ts';

export interface TicketTurn {
  betPayloadHash: Hex32;
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
  wallet: Address;
  status: 'running' | 'settled';
  outcome: 'busted' | 'cashed_out' | 'cleared' | 'forfeited' | 'expired' | null;
  /** `idle` when the deadline worker closed it (design §10). */
  closedBy: 'idle' | null;
  mode: string;
  wager: bigint;
  fullPayout: bigint;
  rowsWon: number;
  /** The turn awaiting its reveal, or '' when none is. */
  pendingTurn: Hex32 | '';
  createdAt: string;
  endedAt: string | null;
  nonce: number;
  serverSeedHash: string;
  payout: bigint | null;
  source: PlaySource;
  turns: TicketTurn[];
}

/** A ticket's own state as its turns write it (PlayWrite.state) and `TicketStore.get` reads it back. */
export const ticketState = (rowsWon: number, turns: readonly TicketTurn[]): Record<string, string> => ({
  rowsWon: String(rowsWon),
  turns: JSON.stringify(turns),
});

export type OpenResult = { kind: 'ok'; nonce: number } | { kind: 'err'; reason: LedgerRejection; detail: string | null };

export class TicketStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
    /** When a money-moving script sent now must no longer run (store/redis.ts). */
    readonly notAfter: NotAfter = noDeadline,
  ) {}

  async open(
    wallet: Address,
    t: {
      id: string;
      mode: string;
      wager: bigint;
      fullPayout: bigint;
      sessionPubkey: Base58Key;
      createdAt: string;
      serverSeedHash: string;
      source: PlaySource;
      limits: LimitSettings;
      /** An MCP ticket's stake is checked against and booked in the agent window at `nowMs`. */
      agent: AgentLimitSettings;
      nowMs: number;
    },
  ): Promise<OpenResult> {
    const k = this.keys;
    const reply = (await this.scripts.openTicket(
      [
        k.player(wallet),
        k.sessionKeys(wallet),
        k.activeTicket(wallet),
        k.ticket(t.id),
        k.house(),
        k.journal(),
        k.journalSeq(),
        k.idleTickets(),
        k.agentWagers(wallet),
        k.agentWagered(wallet),
      ],
      {
        wallet,
        ticketId: t.id,
        mode: t.mode,
        wager: t.wager,
        fullPayout: t.fullPayout,
        // The headroom the full board needs under maxExposure; nothing is reserved until a turn is in flight.
        headroom: t.fullPayout - t.wager,
        sessionPubkey: t.sessionPubkey,
        createdAt: t.createdAt,
        serverSeedHash: t.serverSeedHash,
        maxExposureBps: t.limits.maxExposureBps,
        maxPayoutBps: t.limits.maxPayoutBps,
        maxBetBps: t.limits.maxBetBps,
        source: t.source,
        nowMs: t.nowMs,
        agentMaxWagered: t.agent.maxWagered,
        agentWindowMs: t.agent.windowMs,
        notAfterMs: this.notAfter(),
      },
    )) as (string | null)[];
    if (reply[0] === 'err') return rejectionOf(reply);
    return { kind: 'ok', nonce: Number(reply[1]) };
  }

  async get(id: string): Promise<TicketRecord | null> {
    const r = await this.redis.hgetall(this.keys.ticket(id));
    if (!r.wallet) return null;
    return {
      id,
      wallet: r.wallet as Address,
      status: r.status as TicketRecord['status'],
      outcome: (r.outcome || null) as TicketRecord['outcome'],
      closedBy: r.closedBy === 'idle' ? 'idle' : null,
      mode: r.mode ?? '',
      wager: BigInt(r.wager ?? '0'),
      fullPayout: BigInt(r.fullPayout ?? '0'),
      rowsWon: Number(r.rowsWon ?? 0),
      pendingTurn: (r.pendingTurn ?? '') as Hex32 | '',
      createdAt: r.createdAt ?? '',
      endedAt: r.endedAt || null,
      nonce: Number(r.nonce ?? 0),
      serverSeedHash: r.serverSeedHash ?? '',
      payout: r.payout !== undefined ? BigInt(r.payout) : null,
      source: r.source === 'mcp' ? 'mcp' : 'api',
      turns: JSON.parse(r.turns ?? '[]') as TicketTurn[],
    };
  }

  async activeTicketId(wallet: Address): Promise<string | null> {
    return this.redis.get(this.keys.activeTicket(wallet));
  }

  /** Running tickets with no turn in flight whose last activity is at or before `cutoffMs`, oldest first. */
  async idleTickets(cutoffMs: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.idleTickets(), '-inf', String(cutoffMs), 'LIMIT', 0, limit);
  }

  /** Drops a ticket that ended or has a turn in flight from the idle index (checked atomically). */
  async forgetIdle(ticketId: string): Promise<void> {
    await this.scripts.forgetIdleTicket([this.keys.ticket(ticketId), this.keys.idleTickets()], [ticketId]);
  }
}
