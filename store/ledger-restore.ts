// Ledger recovery's writes (`npm run ledger -- recover`): archived journal entries written again with their own ids
// and seqs, the commit and ticket-open writes of a play the archive holds, and the chain's commit records.
import type { Redis } from 'ioredis';
import { NO_WALLET, type Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';
import type { CommitRecord } from './anchor-store.ts';
import { replayArg, type JournalRecord } from './journal-records.ts';
import type { Address } from '../protocol/address.ts';

/** A committed bet as commit_bet.lua records it; amounts in micro-USDC. */
export interface RestoredBet {
  hash: string;
  wallet: Address;
  game: 'dice' | 'sweeper';
  /** The payload's JSON text, as stored at prepare. */
  payload: string;
  wager: bigint;
  stake: bigint;
  maxPayout: bigint;
  exposureDelta: bigint;
  sessionPubkey: string;
  commitment: string;
  betNonce: number;
  rngIndex: number;
  rngChainHead: string;
  committedAt: string;
  revealDeadline: string;
  ticketId: string;
  turn: string;
  commitSignature: string;
  source: 'api' | 'mcp';
}

export interface RestoredTicket {
  wallet: Address;
  ticketId: string;
  mode: string;
  wager: bigint;
  fullPayout: bigint;
  createdAt: string;
  serverSeedHash: string;
  source: 'api' | 'mcp';
}

/** What stays whole of an entry whose effects are not rebuilt. */
export interface KeptRecord {
  /** A play's bet-log item `<leafHex>:<receiptId>`, with its receipt body and entry text. */
  log?: { item: string; receiptBody: string; entryJson: string };
  /** An RNG index the entry used, and the index it disclosed (0 when none). */
  rng?: { chainHead: string; index: number; disclosed: number };
  /** A bet nonce the wallet used. */
  nonce?: { wallet: Address; betNonce: number };
  /** A client-seed commitment the bet used (never accepted again). */
  commitment?: string;
}

export type RestoreResult = { kind: 'ok' | 'dup' } | { kind: 'err'; reason: string; detail: string | null };

const resultOf = (reply: (string | null)[]): RestoreResult =>
  reply[0] === 'ok' || reply[0] === 'dup' ? { kind: reply[0] } : { kind: 'err', reason: String(reply[1]), detail: reply[2] ?? null };

export class LedgerRestore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {}

  /** The journal's counter: the seq of its newest event. */
  async journalSeq(): Promise<number> {
    return Number((await this.redis.get(this.keys.journalSeq())) ?? 0);
  }

  /**
   * Where the journal's restored entries end: the seq of the stream's newest entry, or the counter when the stream is
   * empty. The counter alone may be ahead: a recovery that stopped fences it at the archive's newest seq.
   */
  async journalPosition(): Promise<number> {
    return (await this.lastJournalEntry())?.seq ?? (await this.journalSeq());
  }

  /** The newest entry of the journal stream, or null when the stream is empty (or trimmed to nothing). */
  async lastJournalEntry(): Promise<JournalRecord | null> {
    const [entry] = await this.redis.xrevrange(this.keys.journal(), '+', '-', 'COUNT', 1);
    if (!entry) return null;
    const f: Record<string, string> = {};
    for (let i = 0; i + 1 < entry[1].length; i += 2) f[entry[1][i] as string] = entry[1][i + 1] as string;
    return { id: entry[0], seq: Number(f.seq), type: f.type ?? '', at: f.at ?? '', data: f.data ?? '' };
  }

  /** Every wallet the ledger has seen (a deposit, a key). */
  /** Every wallet the ledger holds; each was parsed before it was first written. */
  wallets(): Promise<Address[]> {
    return this.redis.smembers(this.keys.wallets()) as Promise<Address[]>;
  }

  /** What the wallets' running Sweeper tickets have banked above their stakes (the house's `banked`, summed over them). */
  async bankedOnRunningTickets(wallets: readonly Address[]): Promise<bigint> {
    let banked = 0n;
    for (const wallet of wallets) {
      const ticketId = await this.redis.get(this.keys.activeTicket(wallet));
      if (!ticketId) continue;
      const [status, amount] = await this.redis.hmget(this.keys.ticket(ticketId), 'status', 'banked');
      if (status === 'running') banked += BigInt(amount ?? '0');
    }
    return banked;
  }

  /**
   * The commit writes of a bet the archive shows committed after the backup, and its bet_committed entry (null: a new
   * one, as a commit journals it).
   */
  async restoreCommit(bet: RestoredBet, entry: JournalRecord | null, agentWindowMs: number): Promise<RestoreResult> {
    const k = this.keys;
    const committedAtMs = Date.parse(bet.committedAt);
    const revealDeadlineMs = Date.parse(bet.revealDeadline);
    const fields = { ...bet, committedAtMs, revealDeadlineMs, agentWindowMs, replay: replayArg(entry ? [entry] : []) };
    const reply = (await this.scripts.restoreCommit(
      [
        k.player(bet.wallet),
        k.bet(bet.hash),
        k.commitments(),
        k.house(),
        k.rng(),
        k.journal(),
        k.journalSeq(),
        k.pendingBets(bet.wallet),
        k.deadlines(),
        k.ticket(bet.ticketId || '-'),
        k.agentWagers(bet.wallet),
        k.agentWagered(bet.wallet),
      ],
      fields,
    )) as (string | null)[];
    return resultOf(reply);
  }

  /** The open writes of a ticket the archive shows opened after the backup, and its ticket_opened entry. */
  async restoreTicketOpen(t: RestoredTicket, entry: JournalRecord, agentWindowMs: number): Promise<RestoreResult> {
    const k = this.keys;
    const fields = {
      ...t,
      activeAtMs: Date.parse(t.createdAt),
      agentWindowMs,
      replay: replayArg([entry]),
    };
    const reply = (await this.scripts.restoreTicketOpen(
      [
        k.player(t.wallet),
        k.activeTicket(t.wallet),
        k.ticket(t.ticketId),
        k.house(),
        k.journal(),
        k.journalSeq(),
        k.idleTickets(),
        k.agentWagers(t.wallet),
        k.agentWagered(t.wallet),
      ],
      fields,
    )) as (string | null)[];
    return resultOf(reply);
  }

  /**
   * Writes archived entries again as they were, with what stays whole of them.
   * @returns false when an RNG index named a chain the ledger does not know (it was not booked)
   */
  async keep(entries: readonly JournalRecord[], kept: KeptRecord = {}): Promise<{ rngBooked: boolean }> {
    const k = this.keys;
    const receiptId = kept.log ? kept.log.item.slice(65) : '-';
    const record = {
      ...(kept.log ? { logItem: kept.log.item, receiptBody: kept.log.receiptBody, entryJson: kept.log.entryJson } : {}),
      ...(kept.rng ? { rngChainHead: kept.rng.chainHead, rngIndex: kept.rng.index, disclosed: kept.rng.disclosed } : {}),
      ...(kept.nonce ? { betNonce: kept.nonce.betNonce } : {}),
      ...(kept.commitment ? { commitment: kept.commitment } : {}),
    };
    const reply = (await this.scripts.restoreRecord(
      [k.journal(), k.journalSeq(), k.betLog(), k.receipt(receiptId), k.rng(), k.player(kept.nonce?.wallet ?? NO_WALLET), k.commitments()],
      { ...record, replay: replayArg(entries) },
    )) as string[];
    return { rngBooked: reply[1] === '1' };
  }

  /** Moves the journal's counter up to `seq` (never down), so no seq the archive holds is handed out again. */
  async fenceJournal(seq: number): Promise<void> {
    const current = await this.journalSeq();
    if (seq > current) await this.redis.set(this.keys.journalSeq(), String(seq));
  }

  /**
   * Records commits found on-chain (checked against the rebuilt log by the caller) and moves the committed size.
   * @returns how many were added
   */
  async restoreCommits(records: readonly CommitRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const k = this.keys;
    const args = records.flatMap((r) => [r.entryCount, JSON.stringify(r)]);
    return Number(await this.scripts.restoreCommits([k.anchor(), k.anchorPending(), k.anchorCommits()], args));
  }
}
