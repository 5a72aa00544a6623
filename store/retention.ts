/**
 * How long settled plays stay in Redis (design §2: Redis is the operational ledger, ClickHouse the public archive).
 * A settled play's receipt, bets, recovery seeds and ended ticket (about 9 kB a Dice bet) are dropped once the
 * archive, the tiles and the receipt bundles hold its entry, and it settled before the retention window; its receipt
 * is then read from the archive (games/receipts.ts). The bet log, its tree and the used commitments stay, and of each
 * bet the session key that committed it (about 0.2 kB), for the session-key pointer.
 * @module
 */
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';
import { parseBetLogItem } from './anchor-tree.ts';
import { pipelineReplies } from './redis.ts';
import type { JournalRecord } from './journal-records.ts';

/** A receipt's stored texts as the archive holds them: its body as it settled, and its filled anchor (null: none archived). */
export interface ArchivedReceiptText {
  receiptId: string;
  body: string;
  anchor: string | null;
}

/** Where receipts Redis no longer holds are read: the ClickHouse archive (analytics/archive.ts). */
export interface ReceiptArchive {
  /**
   * The archived texts of those receipts the archive holds, in no particular order. `client` (who asks: its address)
   * is whose share of the archive's read budget the read spends.
   */
  archivedReceipts(query: { receiptIds: readonly string[]; client?: string }): Promise<ArchivedReceiptText[]>;
}

/** Most seqs one archived-events read spans. */
export const MAX_ARCHIVED_EVENTS = 1000;

/** Where journal events trimmed from the Redis stream are read: the ClickHouse archive (`journal_events`). */
export interface JournalArchive {
  /** Archived events with `afterSeq < seq <= toSeq` (at most 1,000 seqs a read), in seq order; `client` as above. */
  archivedEvents(query: { afterSeq: number; toSeq: number; client?: string }): Promise<JournalRecord[]>;
}

const SWEEPER_RECEIPT = 'sweeper_';
const SETTLED_AT_RE = /"settledAt":"([^"]*)"/;
const BET_HASH_RE = /"betPayloadHash":"([0-9a-f]{64})"/g;

export class RetentionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly scripts: Pick<Scripts, 'pruneSettled'>,
  ) {}

  /** The bet-log size below which settled plays' records are no longer in Redis (0: nothing was dropped). */
  async prunedSize(): Promise<number> {
    return Number((await this.redis.hget(this.keys.retention(), 'pruned')) ?? 0);
  }

  /**
   * Drops the records of the oldest plays not dropped yet, in log order: entries below `below` that settled before
   * `settledBeforeMs`, at most `limit` of them. It stops at the first entry that settled later, or whose time it
   * cannot read.
   * @returns how many entries' records were dropped (0 when another pruner moved the cursor first)
   */
  async prune(below: number, settledBeforeMs: number, limit: number): Promise<number> {
    const from = await this.prunedSize();
    const to = Math.min(below, from + limit);
    if (to <= from) return 0;
    const items = await this.redis.lrange(this.keys.betLog(), from, to - 1);
    const ids = items.map((item, i) => parseBetLogItem(item, from + i).receiptId);
    const texts = await this.#entryTexts(ids);
    const k = this.keys;
    const bets: string[] = [];
    const records: string[] = [];
    let count = 0;
    for (const [i, id] of ids.entries()) {
      const text = texts[i] ?? null;
      if (text !== null) {
        const settledAt = Date.parse(SETTLED_AT_RE.exec(text)?.[1] ?? '');
        if (!(settledAt < settledBeforeMs)) break;
        for (const hash of new Set(Array.from(text.matchAll(BET_HASH_RE), (m) => m[1] as string))) {
          bets.push(hash);
          records.push(k.recoverySeed(hash));
        }
      }
      // A receipt already gone (a log broken elsewhere) holds nothing more to drop: its bets cannot be named.
      records.push(k.receipt(id));
      if (id.startsWith(SWEEPER_RECEIPT)) records.push(k.ticket(id.slice(SWEEPER_RECEIPT.length)));
      count++;
    }
    if (count === 0) return 0;
    const reply = await this.scripts.pruneSettled([k.retention(), k.betSessionKeys(), ...bets.map((h) => k.bet(h)), ...records], [from, from + count, ...bets]);
    return reply === -1 ? 0 : count;
  }

  /** Each receipt's bet-log entry text, or its body where no entry was stored beside it; null where neither is. */
  async #entryTexts(ids: readonly string[]): Promise<(string | null)[]> {
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.receipt(id), 'entry');
    const entries = (await pipelineReplies(pipeline)) as (string | null)[];
    const bare = entries.flatMap((e, i) => (e ? [] : [i]));
    if (bare.length > 0) {
      const bodies = this.redis.pipeline();
      for (const i of bare) bodies.hget(this.keys.receipt(ids[i] as string), 'body');
      (await pipelineReplies(bodies)).forEach((body, j) => {
        entries[bare[j] as number] = (body as string | null) || null;
      });
    }
    return entries;
  }
}
