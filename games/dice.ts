// Dice rules on Protocol V1 (design §4): a turn is the whole play; its params are a direction and a target.
import type { Ack } from '../protocol/ack.ts';
import type { Address } from '../protocol/address.ts';
import type { BetPayload, DiceBetPayload } from '../protocol/bet-payload.ts';
import { buildDiceSettlement, type DiceReceipt } from '../protocol/dice-receipt.ts';
import { DiceRuleError, diceMultiplierBps, dicePayout, targetToBps, winningCount, type DiceDirection } from '../protocol/dice.ts';
import { gameRejected } from '../protocol/errors.ts';
import { microToNumber } from '../protocol/money.ts';
import { diceReceiptId } from '../protocol/receipt.ts';
import type { AckSource, BetRecord, BetStore } from '../store/bets.ts';
import type { RngStore } from '../store/rng.ts';
import { livePlayJson, type Game, type PrepareInput, type TurnOutcome, type TurnPlan, type TurnToSettle } from './game.ts';
import { parseWager } from './lifecycle.ts';
import type { Receipts } from './receipts.ts';

export interface DiceDeps {
  bets: BetStore;
  rng: RngStore;
  ackOf: (bet: AckSource) => Ack;
  /** A settled bet's stored reply is read from its receipt (from the archive once Redis has dropped it). */
  receipts: Pick<Receipts, 'read'>;
}

/** What a client sees of its bet before it commits: chance, multiplier and potential payout. */
export function diceParamsOf(direction: DiceDirection, targetBps: number, wager: bigint) {
  const count = winningCount(direction, targetBps);
  const multiplierBps = diceMultiplierBps(count);
  const payout = dicePayout(wager, multiplierBps);
  return {
    direction,
    target: targetBps / 100,
    targetBps,
    winningCount: count,
    winChance: count / 100,
    multiplierBps: Number(multiplierBps),
    multiplier: Number(multiplierBps) / 10_000,
    potentialPayout: microToNumber(payout),
    payoutMicro: payout,
  };
}

/** The reveal reply of a settled bet, from its receipt, so the settlement itself is never stored twice. */
const replyOf = (receipt: Pick<DiceReceipt, 'receiptId' | 'result' | 'proof' | 'verifierPayload' | 'anchor'>) => ({
  betPayloadHash: receipt.proof.betPayloadHash,
  receiptId: receipt.receiptId,
  outcome: receipt.result,
  rngReveal: receipt.proof.rngReveal,
  ack: receipt.verifierPayload.ack,
  betLogEntry: receipt.verifierPayload.betLogEntry,
  betLogEntryHash: receipt.anchor.betLogEntryHash,
});

export class DiceGame implements Game {
  readonly name = 'dice' as const;

  constructor(readonly deps: DiceDeps) {}

  async planTurn(_wallet: Address, input: PrepareInput): Promise<TurnPlan> {
    const wager = parseWager(input.wager);
    let params: ReturnType<typeof diceParamsOf>;
    try {
      const targetBps = targetToBps(input.target);
      if (input.direction !== 'under' && input.direction !== 'over') throw new DiceRuleError('direction must be "under" or "over"');
      params = diceParamsOf(input.direction, targetBps, wager);
    } catch (err) {
      if (err instanceof DiceRuleError) throw gameRejected(err.message, 'bad_params');
      throw err;
    }
    const { payoutMicro, ...diceParams } = params;
    return {
      params: { direction: params.direction, targetBps: params.targetBps },
      wager,
      locks: 'stake',
      maxPayout: payoutMicro,
      exposure: payoutMicro - wager,
      reply: { diceParams },
    };
  }

  /** The optional `diceParams` echo of a commit body must agree with the signed payload. */
  checkCommit(payload: BetPayload, body: Record<string, unknown>): void {
    const echo = body.diceParams;
    if (!echo || typeof echo !== 'object' || payload.game !== 'dice') return;
    const { direction, targetBps } = echo as { direction?: unknown; targetBps?: unknown };
    if ((direction !== undefined && direction !== payload.params.direction) || (targetBps !== undefined && targetBps !== payload.params.targetBps)) {
      throw gameRejected('diceParams do not match betPayload.params', 'params_mismatch');
    }
  }

  async commitReply(): Promise<Record<string, unknown>> {
    return {};
  }

  async settleTurn(turn: TurnToSettle): Promise<TurnOutcome> {
    const { bet, ack, reveal, settledAt } = turn;
    const s = buildDiceSettlement({
      betPayload: turn.payload as DiceBetPayload,
      betPayloadHash: bet.hash,
      commitSignature: bet.commitSignature,
      ack,
      reveal,
      rngReveal: turn.rngReveal,
      settledAt,
      source: turn.source,
    });
    const { receiptId, status, wager, payout, result } = s;
    const player = s.receipt.player;
    const rngReveal = s.receipt.proof.rngReveal;
    const event = {
      type: 'bet_settled',
      json: JSON.stringify({
        game: 'dice',
        player,
        receiptId,
        betPayloadHash: bet.hash,
        rngIndex: bet.rngIndex,
        rngReveal,
        wager: wager.toString(),
        payout: payout.toString(),
        status,
        roll: s.roll,
        source: turn.source,
      }),
    };
    return {
      reply: replyOf(s.receipt),
      write: {
        settlement: receiptId,
        disclosedIndex: rngReveal ? bet.rngIndex : 0,
        turnEvent: null,
        play: null,
        end: {
          payout,
          houseNet: wager - payout,
          won: status === 'won',
          receiptId,
          receiptJson: JSON.stringify(s.receipt),
          leafHashHex: s.betLogEntryHash,
          entryJson: s.betLogEntryJcs,
          event,
          recentJson: JSON.stringify({
            receiptId,
            roll: result.roll,
            rollDisplay: result.rollDisplay,
            direction: result.direction,
            target: result.target,
            won: result.won,
            status,
            wager: microToNumber(wager),
            payout: result.payout,
            settledAt,
            source: turn.source,
          }),
          playJson: livePlayJson(event, settledAt),
        },
      },
    };
  }

  async storedReply(bet: BetRecord): Promise<Record<string, unknown>> {
    const receipt = await this.deps.receipts.read(diceReceiptId(bet.hash));
    if (!receipt) throw new Error(`settled bet ${bet.hash} has no receipt`);
    return replyOf(receipt as unknown as DiceReceipt);
  }

  /** The dice session: balance, nonce, chain head, recent rolls, and every bet awaiting its reveal, oldest first. */
  async session(wallet: Address) {
    const { bets } = this.deps;
    const [player, pendingHashes, recentRolls, head] = await Promise.all([
      bets.playerTotals(wallet),
      bets.pendingBets(wallet),
      bets.recentPlays(wallet, 'dice', 20),
      this.deps.rng.head(),
    ]);
    const pending = (await Promise.all(pendingHashes.map((h) => bets.bet(h))))
      .filter((b): b is BetRecord => b !== null && b.game === 'dice' && b.state === 'committed')
      // The bet nonce advances at every commit, so it is the commit order.
      .sort((a, b) => a.betNonce - b.betNonce)
      .map((b) => {
        const payload = JSON.parse(b.payload) as DiceBetPayload;
        return {
          status: 'awaiting_reveal' as const,
          betPayloadHash: b.hash,
          betNonce: b.betNonce,
          rngIndex: b.rngIndex,
          wager: microToNumber(b.wager),
          direction: payload.params.direction,
          target: payload.params.targetBps / 100,
          commitment: b.commitment,
          committedAt: b.committedAt,
          revealDeadline: b.revealDeadline,
          ack: this.deps.ackOf(b),
        };
      });
    return {
      balance: microToNumber(player.balance),
      nonce: player.nonce,
      serverSeedHash: head ?? null,
      recentRolls,
      pendingBet: pending[0] ?? null,
      pendingBets: pending,
    };
  }
}
