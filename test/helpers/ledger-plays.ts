// Journal events and settled plays written by the ledger's own scripts, for volumes real bets cannot reach in a test
// or a bench: a bet committed as ledger recovery restores one (restore_commit.lua), settled by settle_turn.lua, which
// journals the settle event and publishes the play exactly as a game's settlement does. No money moves: the synthetic
// bet stakes and pays 0, whatever its event says.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { betLogEntryJson, betLogLeafHexOfJson } from '../../protocol/receipt.ts';
import { BetStore } from '../../store/bets.ts';
import type { JournalRecord } from '../../store/journal-records.ts';
import type { Keys } from '../../store/keys.ts';
import { LedgerRestore } from '../../store/ledger-restore.ts';
import { RngStore } from '../../store/rng.ts';
import { defineScripts } from '../../store/scripts.ts';
import type { Hex32 } from '../../protocol/hex32.ts';
import { randomAddress, randomHex32 } from './random-ids.ts';

export interface JournalEntry {
  type: string;
  at: string;
  data: unknown;
}

const WALLET = randomAddress();

export class LedgerPlays {
  readonly bets: BetStore;
  readonly restore: LedgerRestore;
  readonly rng: RngStore;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
  ) {
    const scripts = defineScripts(redis);
    this.bets = new BetStore(redis, keys, scripts);
    this.restore = new LedgerRestore(redis, keys, scripts);
    this.rng = new RngStore(redis, keys, scripts);
  }

  /** Journals a bet_committed event (a bet of the synthetic wallet, never settled unless `settle` does). @returns its seq and hash */
  async commit(at = new Date().toISOString()): Promise<{ seq: number; hash: Hex32 }> {
    const hash = await this.committedBet(at);
    return { seq: await this.restore.journalPosition(), hash };
  }

  /** A committed bet of the synthetic wallet, for `settle`. @returns its hash */
  async committedBet(at = new Date().toISOString()): Promise<Hex32> {
    // A prefix with no RNG chain gets one; index 0 is below every index a chain gives out, so none is used up.
    const head = (await this.redis.hget(this.keys.rng(), 'head')) ?? (await this.#newChain());
    const hash = randomHex32();
    const result = await this.restore.restoreCommit(
      {
        hash,
        wallet: WALLET,
        game: 'dice',
        payload: '{}',
        wager: 0n,
        stake: 0n,
        maxPayout: 0n,
        exposureDelta: 0n,
        sessionPubkey: '',
        commitment: hash,
        betNonce: 0,
        rngIndex: 0,
        rngChainHead: head,
        committedAt: at,
        revealDeadline: new Date(Date.parse(at) + 86_400_000).toISOString(),
        ticketId: '',
        turn: '',
        commitSignature: '',
        source: 'api',
      },
      null,
      0,
    );
    if (result.kind !== 'ok') throw new Error(`restore_commit: ${JSON.stringify(result)}`);
    return hash;
  }

  /**
   * A settled play: journals `event` (as its settle event) and publishes `livePlayJson` ('' for none) on the plays
   * channel, both from settle_turn.lua; `hash` names a bet from `committedBet`, else one is committed first.
   * @returns the settle event's seq
   */
  async settle(event: JournalEntry & { data: { receiptId: string } }, livePlayJson: string, hash?: Hex32): Promise<number> {
    hash ??= await this.committedBet(event.at);
    const receiptId = event.data.receiptId;
    const entryJson = betLogEntryJson({ receiptId, betPayloadHash: hash });
    const leafHashHex = betLogLeafHexOfJson(entryJson);
    const result = await this.bets.settleTurn(
      { hash, wallet: WALLET, game: 'dice', ticketId: '' },
      {
        settlement: receiptId,
        disclosedIndex: 0,
        turnEvent: null,
        play: null,
        end: {
          payout: 0n,
          houseNet: 0n,
          won: false,
          receiptId,
          // The anchor checks every entry against its stored receipt's leaf before committing it.
          receiptJson: JSON.stringify({ receiptId, anchor: { betLogEntryHash: leafHashHex } }),
          leafHashHex,
          entryJson,
          event: { type: event.type, json: JSON.stringify(event.data) },
          recentJson: JSON.stringify({ receiptId }),
          playJson: livePlayJson,
        },
      },
      event.at,
    );
    if (result.kind !== 'ok' || result.endSeq === null) throw new Error(`settle_turn: ${JSON.stringify(result)}`);
    return result.endSeq;
  }

  /**
   * Appends entries as they are, with consecutive seqs, by ledger recovery's own path (restore_record.lua writes
   * archived entries again): nothing else is journaled between them. @returns their seqs
   */
  async append(entries: readonly JournalEntry[]): Promise<number[]> {
    const last = await this.restore.lastJournalEntry();
    let seq = last?.seq ?? (await this.restore.journalSeq());
    let [ms, n] = (last?.id ?? '0-0').split('-').map(Number) as [number, number];
    const seqs: number[] = [];
    for (let i = 0; i < entries.length; i += 500) {
      const records: JournalRecord[] = [];
      for (const e of entries.slice(i, i + 500)) {
        const now = Date.now();
        if (now > ms) [ms, n] = [now, 0];
        else n += 1;
        seqs.push(++seq);
        records.push({ id: `${ms}-${n}`, seq, type: e.type, at: e.at, data: JSON.stringify(e.data) });
      }
      await this.restore.keep(records);
    }
    return seqs;
  }

  async #newChain(): Promise<string> {
    const head = randomBytes(32).toString('hex');
    await this.rng.setCurrent({ chainId: 1, head, length: 1_000_000, signature: '' });
    return head;
  }
}
