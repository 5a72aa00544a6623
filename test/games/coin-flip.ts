// A coin flip, defined only here: the proof that a game plugs into the one lifecycle (games/lifecycle.ts) and the
// ledger's own scripts by implementing games/game.ts alone. Call heads or tails; a right call pays 1.96x.
import type { BetPayload } from '../../protocol/bet-payload.ts';
import { gameRejected } from '../../protocol/errors.ts';
import { OutcomeStream } from '../../protocol/outcome.ts';
import { betLogEntryJson, betLogLeafHexOfJson } from '../../protocol/receipt.ts';
import type { BetRecord, BetStore } from '../../store/bets.ts';
import type { Game, GameName, PrepareInput, TurnOutcome, TurnPlan, TurnToSettle } from '../../games/game.ts';
import { parseWager } from '../../games/lifecycle.ts';
import type { Receipts } from '../../games/receipts.ts';

/** Not one of the service's games: the lifecycle knows it only through the registry the test hands it. */
export const COIN_FLIP = 'coinflip' as GameName;
const PAYOUT_BPS = 19_600n;
const SIDES = ['heads', 'tails'] as const;
type Side = (typeof SIDES)[number];

export const coinFlipReceiptId = (betPayloadHash: string): string => `coinflip_${betPayloadHash.slice(0, 32)}`;

/** The side a bet lands on: the same HMAC stream every game draws from, one draw of two. */
export const landedSide = (rngValueHex: string, clientSeedRaw: string, betPayloadHash: string): Side =>
  SIDES[new OutcomeStream(rngValueHex, clientSeedRaw, betPayloadHash).drawInt(2)]!;

const callOf = (payload: BetPayload): Side => (payload.params as unknown as { call: Side }).call;

export class CoinFlipGame implements Game {
  readonly name = COIN_FLIP;

  constructor(readonly deps: { bets: BetStore; receipts: Pick<Receipts, 'read'> }) {}

  async planTurn(_wallet: string, input: PrepareInput): Promise<TurnPlan> {
    const wager = parseWager(input.wager);
    if (input.call !== 'heads' && input.call !== 'tails') throw gameRejected('call must be "heads" or "tails"', 'bad_params');
    const payout = (wager * PAYOUT_BPS) / 10_000n;
    return {
      params: { call: input.call } as unknown as BetPayload['params'],
      wager,
      locks: 'stake',
      maxPayout: payout,
      exposure: payout - wager,
      reply: { coinFlipParams: { call: input.call, payout: payout.toString() } },
    };
  }

  checkCommit(): void {}

  async commitReply(): Promise<Record<string, unknown>> {
    return {};
  }

  async settleTurn(turn: TurnToSettle): Promise<TurnOutcome> {
    const { bet, reveal, rngReveal, settledAt } = turn;
    const call = callOf(turn.payload);
    const landed = reveal && rngReveal ? landedSide(rngReveal, reveal.clientSeedRaw, bet.hash) : null;
    const won = landed === call;
    const payout = won ? (bet.wager * PAYOUT_BPS) / 10_000n : 0n;
    const status = landed === null ? 'forfeited' : won ? 'won' : 'lost';
    const receiptId = coinFlipReceiptId(bet.hash);
    const entry = { receiptId, game: COIN_FLIP, betPayloadHash: bet.hash, wager: bet.wager.toString(), payout: payout.toString(), status };
    const entryJson = betLogEntryJson(entry);
    const leafHashHex = betLogLeafHexOfJson(entryJson);
    const receipt = { receiptId, game: COIN_FLIP, call, landed, status, payout: payout.toString(), rngReveal, settledAt, betLogEntry: entry };
    const event = { type: 'coinflip_settled', json: JSON.stringify({ game: COIN_FLIP, receiptId, betPayloadHash: bet.hash, status }) };
    return {
      reply: { receiptId, call, landed, status, payout: payout.toString() },
      write: {
        settlement: receiptId,
        disclosedIndex: rngReveal ? bet.rngIndex : 0,
        turnEvent: null,
        play: null,
        end: {
          payout,
          houseNet: bet.wager - payout,
          won,
          receiptId,
          receiptJson: JSON.stringify(receipt),
          leafHashHex,
          entryJson,
          event,
          recentJson: JSON.stringify({ receiptId, call, landed, status, settledAt }),
          playJson: '',
        },
      },
    };
  }

  async storedReply(bet: BetRecord): Promise<Record<string, unknown>> {
    const receipt = await this.deps.receipts.read(coinFlipReceiptId(bet.hash));
    if (!receipt) throw new Error(`settled coin flip ${bet.hash} has no receipt`);
    const { receiptId, call, landed, status, payout } = receipt;
    return { receiptId, call, landed, status, payout };
  }
}
