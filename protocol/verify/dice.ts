// The Dice receipt checker: one committed bet, the roll and payout recomputed, the bet-log entry matched.
import { settleDice, type DiceDirection } from '../dice.ts';
import type { DiceBetPayload } from '../bet-payload.ts';
import type { Checks } from './report.ts';
import { checkTurn, isRecord, type TurnContext } from './turn.ts';
import { agree, agreeAmounts, entryLeafHex, type RngUse } from './entry.ts';

export const DICE_GAME_ID = 'dice:protocol-v1';

export interface GameCheck {
  /** Leaf hash of the receipt's bet-log entry, when it has one. */
  leafHex: string | null;
  rngUses: RngUse[];
}

/** Checks a Dice receipt's game part; the caller checks the anchor. */
export function checkDiceReceipt(receipt: Record<string, unknown>, ctx: TurnContext, checks: Checks): GameCheck {
  const vp = receipt.verifierPayload;
  if (!isRecord(vp)) {
    checks.fail('verifier-payload', 'the receipt has no verifierPayload');
    return { leafHex: null, rngUses: [] };
  }
  checks.add('game', receipt.gameId === DICE_GAME_ID && isRecord(vp.betPayload) && vp.betPayload.game === 'dice', 'not a Protocol V1 dice bet');
  const entry = vp.betLogEntry;
  const facts = checkTurn(
    {
      betPayload: vp.betPayload,
      betPayloadHash: vp.betPayloadHash,
      commitSignature: vp.commitSignature,
      ack: vp.ack,
      revealSignature: vp.revealSignature,
      clientSeedRaw: vp.clientSeedRaw,
      rngReveal: vp.rngReveal,
    },
    ctx,
    checks,
    '',
    isRecord(entry) ? entry.settledAt : undefined,
  );
  const leafHex = entryLeafHex(entry);
  if (!facts) return { leafHex, rngUses: [] };
  const payload = facts.payload as DiceBetPayload;
  const rngUses = [{ head: facts.ack.rngChainHead, index: facts.ack.rngIndex }];

  let wager: bigint;
  try {
    wager = BigInt(payload.wager);
    if (wager <= 0n) throw new RangeError('wager');
  } catch {
    checks.fail('outcome', 'betPayload.wager is not a positive micro-USDC integer string');
    return { leafHex, rngUses };
  }
  let roll: number | null = null;
  let payout = 0n;
  let status: string = 'forfeited';
  if (facts.seed !== null && facts.rngReveal !== null) {
    try {
      const outcome = settleDice({
        rngValueHex: facts.rngReveal,
        clientSeedRaw: facts.seed,
        betPayloadHash: facts.hash,
        direction: payload.params?.direction as DiceDirection,
        targetBps: payload.params?.targetBps,
        wagerMicro: wager,
      });
      roll = outcome.roll;
      payout = outcome.payout;
      status = outcome.won ? 'won' : 'lost';
    } catch (err) {
      checks.fail('outcome', `the outcome cannot be recomputed: ${(err as Error).message}`);
      return { leafHex, rngUses };
    }
  }
  const result = isRecord(receipt.result) ? receipt.result : {};
  agree(checks, 'outcome', 'the recorded outcome differs from the recomputed one', [
    ['result.roll', result.roll, roll],
    ['status', receipt.status, status],
  ]);
  agreeAmounts(checks, receipt, result, wager, payout);
  if (!isRecord(entry)) {
    checks.fail('bet-log-entry', 'verifierPayload.betLogEntry is missing');
    return { leafHex, rngUses };
  }
  agree(checks, 'bet-log-entry', 'the bet-log entry does not match the verified bet', [
    ['receiptId', entry.receiptId, receipt.id],
    ['game', entry.game, 'dice'],
    ['gameId', entry.gameId, DICE_GAME_ID],
    ['player', entry.player, payload.player],
    ['betPayloadHash', entry.betPayloadHash, facts.hash],
    ['ackHash', entry.ackHash, facts.ack.ackHash],
    ['rngChainHead', entry.rngChainHead, facts.ack.rngChainHead],
    ['rngIndex', entry.rngIndex, facts.ack.rngIndex],
    ['commitment', entry.commitment, payload.commitment],
    ['clientSeedRaw', entry.clientSeedRaw, facts.seed],
    ['roll', entry.roll, roll],
    ['status', entry.status, status],
    ['wager', entry.wager, payload.wager],
    ['payout', entry.payout, payout.toString()],
  ]);
  agree(checks, 'receipt-fields', 'the receipt shows values other than the verified ones', [
    ['player', receipt.player, payload.player],
    ['actorAlias', receipt.actorAlias, payload.player],
    ['receiptId', receipt.receiptId, receipt.id],
    ['proof.rngIndex', isRecord(receipt.proof) ? receipt.proof.rngIndex : undefined, facts.ack.rngIndex],
    ['proof.rngReveal', isRecord(receipt.proof) ? receipt.proof.rngReveal : undefined, facts.rngReveal],
  ]);
  return { leafHex, rngUses };
}
