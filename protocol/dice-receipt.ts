// The Dice receipt and bet-log entry, rebuilt from a bet's verifiable inputs alone: the service writes
// them through this function, and a verifier rebuilds them through it and compares the leaf.
import type { Ack } from './ack.ts';
import type { DiceBetPayload } from './bet-payload.ts';
import { diceMultiplierBps, settleDice, winningCount } from './dice.ts';
import { microToNumber } from './money.ts';
import {
  betLogEntryJson,
  betLogLeafHexOfJson,
  DICE_GAME_ID,
  diceReceiptId,
  pendingAnchor,
  receiptHead,
  type PlaySource,
  type ReceiptStatus,
  type SeedReveal,
} from './receipt.ts';

export interface DiceSettlementInput {
  betPayload: DiceBetPayload;
  betPayloadHash: string;
  commitSignature: string;
  ack: Ack;
  /** The client seed; null settles the bet as forfeited (no seed by the deadline). */
  reveal: SeedReveal | null;
  /** s_rngIndex of the ack's chain; only known to the player once revealed, so null without a reveal. */
  rngReveal: string | null;
  settledAt: string;
  source: PlaySource;
}

/**
 * Settles a Dice bet from its inputs: the outcome, the bet-log entry with its leaf, and the receipt.
 * @throws {import('./dice.ts').DiceRuleError} when the payload's params are not a valid Dice bet
 */
export function buildDiceSettlement(input: DiceSettlementInput) {
  const { betPayload: payload, betPayloadHash: hash, ack, reveal, settledAt } = input;
  const wager = BigInt(payload.wager);
  const { direction, targetBps } = payload.params;
  const rngReveal = reveal ? input.rngReveal : null;
  const outcome =
    reveal && rngReveal
      ? settleDice({ rngValueHex: rngReveal, clientSeedRaw: reveal.clientSeedRaw, betPayloadHash: hash, direction, targetBps, wagerMicro: wager })
      : null;
  const payout = outcome?.payout ?? 0n;
  const status: ReceiptStatus = !outcome ? 'forfeited' : outcome.won ? 'won' : 'lost';
  const receiptId = diceReceiptId(hash);
  const alias = payload.player;
  const clientSeedRaw = reveal?.clientSeedRaw ?? null;
  const betLogEntry = {
    v: 1,
    receiptId,
    game: 'dice',
    gameId: DICE_GAME_ID,
    player: alias,
    betPayloadHash: hash,
    ackHash: ack.ackHash,
    rngChainHead: ack.rngChainHead,
    rngIndex: ack.rngIndex,
    commitment: payload.commitment,
    clientSeedRaw,
    roll: outcome?.roll ?? null,
    status,
    wager: wager.toString(),
    payout: payout.toString(),
    settledAt,
  };
  const betLogEntryJcs = betLogEntryJson(betLogEntry);
  const betLogEntryHash = betLogLeafHexOfJson(betLogEntryJcs);
  const result = {
    roll: outcome?.roll ?? null,
    rollDisplay: outcome ? outcome.roll / 100 : null,
    direction,
    target: targetBps / 100,
    targetBps,
    won: outcome?.won ?? false,
    status,
    multiplierBps: Number(diceMultiplierBps(winningCount(direction, targetBps))),
    payout: microToNumber(payout),
    payoutMicro: payout.toString(),
    profit: microToNumber(payout - wager),
  };
  // Not `{ ...head, input, … }`: V8 (Node 20) builds a spread followed by more properties on a slow path, about 10 µs
  // for a receipt, on every bet and every audited entry.
  const receipt = Object.assign(receiptHead({ receiptId, game: 'dice', gameId: DICE_GAME_ID, player: alias, source: input.source, wager, payout, status }), {
    input: {
      direction,
      target: targetBps / 100,
      targetBps,
      wager: microToNumber(wager),
      wagerMicro: wager.toString(),
      commitment: payload.commitment,
      clientSeedRaw,
      sessionPubkey: payload.sessionPubkey,
      betNonce: payload.betNonce,
    },
    result,
    proof: {
      betPayloadHash: hash,
      ackHash: ack.ackHash,
      rngChainHead: ack.rngChainHead,
      rngIndex: ack.rngIndex,
      rngReveal,
      revealedVia: reveal?.via ?? 'deadline',
    },
    verifierPayload: {
      version: 1,
      betPayload: payload,
      betPayloadHash: hash,
      commitSignature: input.commitSignature,
      ack,
      revealSignature: reveal?.revealSignature ?? null,
      clientSeedRaw,
      rngReveal,
      betLogEntry,
    },
    anchor: pendingAnchor(betLogEntryHash),
    createdAt: settledAt,
  });
  return { receiptId, status, wager, payout, roll: outcome?.roll ?? null, result, betLogEntry, betLogEntryJcs, betLogEntryHash, receipt };
}

export type DiceSettlement = ReturnType<typeof buildDiceSettlement>;
export type DiceReceipt = DiceSettlement['receipt'];
