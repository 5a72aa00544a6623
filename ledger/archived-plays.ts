// Plays as the archive holds them: each receipt's signed inputs per turn (payload, commit signature, ack, seed), its
// bet-log entry, and the ledger records a recovery writes from them.
import { isHex32, type Hex32 } from '../protocol/hex32.ts';
import type { Address } from '../protocol/address.ts';
import type { Ack } from '../protocol/ack.ts';
import type { BetPayload } from '../protocol/bet-payload.ts';
import {
  betLogEntryJson,
  betLogLeafHexOfJson,
  diceReceiptId,
  pendingAnchor,
  sweeperReceiptId,
  type RevealedVia,
  type SeedReveal,
} from '../protocol/receipt.ts';
import { diceParamsOf } from '../games/dice.ts';
import { sweeperTurnExposure } from '../protocol/sweeper.ts';
import type { ArchivedTurn } from '../games/replay.ts';
import type { JournalRecord } from '../store/journal-records.ts';
import type { RestoredBet } from '../store/ledger-restore.ts';

/** One committed turn as its receipt's `verifierPayload` holds it. */
export interface TurnInput {
  receiptId: string;
  betPayload: BetPayload;
  betPayloadHash: Hex32;
  commitSignature: string;
  ack: Ack;
  clientSeedRaw: string | null;
  revealSignature: string | null;
  via: RevealedVia;
  source: 'api' | 'mcp';
}

/** A play's bet-log item, checked against its receipt's anchor, with what the ledger stores beside it. */
export interface LogRecord {
  item: string;
  leaf: string;
  receiptBody: string;
  entryJson: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Every turn of the archived receipts, by betPayloadHash. */
export function turnsOf(receipts: ReadonlyMap<string, Json>): Map<string, TurnInput> {
  const out = new Map<string, TurnInput>();
  for (const [receiptId, r] of receipts) {
    const vp = obj(r.verifierPayload);
    if (!vp) continue;
    const source = r.source === 'mcp' ? 'mcp' : 'api';
    const raw = Array.isArray(vp.turns) ? vp.turns : [vp];
    const via = (str(obj(r.proof)?.revealedVia) ?? 'reveal') as RevealedVia;
    for (const t of raw) {
      const turn = obj(t);
      const hash = turn?.betPayloadHash;
      const payload = obj(turn?.betPayload);
      const ack = obj(turn?.ack);
      if (!turn || !isHex32(hash) || !payload || !ack) continue;
      out.set(hash, {
        receiptId,
        betPayload: payload as unknown as BetPayload,
        betPayloadHash: hash,
        commitSignature: str(turn.commitSignature) ?? '',
        ack: ack as unknown as Ack,
        clientSeedRaw: str(turn.clientSeedRaw),
        revealSignature: str(turn.revealSignature),
        via,
        source,
      });
    }
  }
  return out;
}

/** The settlement the archive holds for a turn: its ack, its seed (null: settled at the deadline) and when. */
export function archivedTurn(t: TurnInput, settledAt: string): ArchivedTurn {
  const reveal: SeedReveal | null = t.clientSeedRaw ? { clientSeedRaw: t.clientSeedRaw, revealSignature: t.revealSignature, via: t.via } : null;
  return { ack: t.ack, reveal, settledAt };
}

/**
 * The bet-log item of an archived receipt: its entry's JCS text must hash to the leaf its anchor names. The body is
 * stored as the service first stored it, with a pending anchor (the worker fills it again from the commit records).
 */
export function logRecordOf(receipt: Json | undefined): LogRecord | null {
  const entry = obj(receipt?.verifierPayload)?.betLogEntry;
  const leafNamed = str(obj(receipt?.anchor)?.betLogEntryHash);
  const receiptId = str(receipt?.receiptId);
  if (!receipt || !entry || !leafNamed || !receiptId) return null;
  let entryJson: string;
  try {
    entryJson = betLogEntryJson(entry);
  } catch {
    return null;
  }
  const leaf = betLogLeafHexOfJson(entryJson);
  if (leaf !== leafNamed) return null;
  return { item: `${leaf}:${receiptId}`, leaf, receiptBody: JSON.stringify({ ...receipt, anchor: pendingAnchor(leaf) }), entryJson };
}

/** The receipt an event's play will have (a Dice bet's, or its ticket's), when the event names a play. */
export function receiptIdOf(e: JournalRecord, data: Json | null): string | null {
  const receiptId = str(data?.receiptId);
  if (receiptId) return receiptId;
  const ticketId = str(data?.ticketId);
  if (ticketId) return sweeperReceiptId(ticketId);
  const hash = str(data?.betPayloadHash);
  return e.type === 'bet_committed' && data?.game === 'dice' && hash ? diceReceiptId(hash) : null;
}

/** The commit record of a turn, as commit_bet.lua wrote it when the turn was first committed. */
export function restoredBetOf(t: TurnInput, wallet: Address): RestoredBet {
  const p = t.betPayload;
  const wager = BigInt(p.wager);
  let stake = 0n;
  let maxPayout = 0n;
  if (p.game === 'dice') {
    stake = wager;
    maxPayout = diceParamsOf(p.params.direction, p.params.targetBps, wager).payoutMicro;
  }
  return {
    hash: t.betPayloadHash,
    wallet,
    game: p.game,
    payload: JSON.stringify(p),
    wager,
    stake,
    maxPayout,
    // What commit_bet.lua reserved: a Dice bet its payout − stake, a choice turn its own increment (design §10).
    exposureDelta: p.game === 'dice' ? maxPayout - wager : p.params.turn === 'choice' ? sweeperTurnExposure(wager, p.params.mode, p.params.row) : 0n,
    sessionPubkey: p.sessionPubkey,
    commitment: p.commitment,
    betNonce: p.betNonce,
    rngIndex: t.ack.rngIndex,
    rngChainHead: t.ack.rngChainHead,
    committedAt: t.ack.committedAt,
    revealDeadline: t.ack.revealDeadline,
    ticketId: p.game === 'sweeper' ? p.params.ticketId : '',
    turn: p.game === 'sweeper' ? p.params.turn : '',
    commitSignature: t.commitSignature,
    source: t.source,
  };
}

/** The bet_committed text fields must name the same bet as the receipt's signed inputs. */
export function commitAgrees(t: TurnInput, data: Json): boolean {
  return (
    data.betPayloadHash === t.betPayloadHash &&
    data.betNonce === t.betPayload.betNonce &&
    data.rngIndex === t.ack.rngIndex &&
    data.rngChainHead === t.ack.rngChainHead &&
    data.wager === t.betPayload.wager
  );
}
