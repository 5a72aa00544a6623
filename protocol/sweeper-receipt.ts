// Sweeper turns and the ticket's receipt and bet-log entry, rebuilt from the turns' verifiable inputs alone:
// the service settles through these functions, and a verifier rebuilds through them and compares the leaf.
import type { Ack } from './ack.ts';
import type { SweeperBetPayload } from './bet-payload.ts';
import { microToNumber } from './money.ts';
import {
  betLogEntryJson,
  betLogLeafHexOfJson,
  pendingAnchor,
  receiptHead,
  SWEEPER_GAME_ID,
  sweeperReceiptId,
  type PlaySource,
  type ReceiptStatus,
} from './receipt.ts';
import { SWEEPER_ROWS, sweeperMineColumn, sweeperMultiplierBps, sweeperPayout, type SweeperMode } from './sweeper.ts';

/** One committed turn as a verifier sees it (a receipt's `verifierPayload.turns[i]`). */
export interface SweeperTurnInput {
  betPayload: SweeperBetPayload;
  betPayloadHash: string;
  commitSignature: string;
  ack: Ack;
  /** null when the deadline passed without a seed: the turn forfeits the ticket. */
  clientSeedRaw: string | null;
  revealSignature: string | null;
  /** s_rngIndex; null without a seed. */
  rngReveal: string | null;
}

export type SweeperOutcome = 'running' | 'busted' | 'cashed_out' | 'cleared' | 'forfeited' | 'expired';

/** Who ended a ticket other than its own turns: `idle`, the deadline worker after TICKET_IDLE_MS (design §10). */
export type SweeperClosedBy = 'idle';

/**
 * Design §10: an idle running ticket is cashed out at its current payout once a row is won; with no row won no
 * randomness was drawn, so it expires and its stake is returned.
 */
export const idleOutcome = (rowsWon: number): SweeperOutcome => (rowsWon >= 1 ? 'cashed_out' : 'expired');

/** What one settled turn drew. */
export interface SweeperTurnResult {
  kind: 'choice' | 'cashout';
  row: number | null;
  choiceColumn: number | null;
  /** The row's mine column; null for a cashout or a forfeited turn. */
  mineColumn: number | null;
  safe: boolean | null;
}

/** Draws one turn's mine column from its RNG reveal and seed; a turn without a seed draws nothing. */
export function resolveSweeperTurn(turn: Pick<SweeperTurnInput, 'betPayload' | 'betPayloadHash' | 'clientSeedRaw' | 'rngReveal'>): SweeperTurnResult {
  const params = turn.betPayload.params;
  const row = params.turn === 'choice' ? params.row : null;
  const choiceColumn = params.turn === 'choice' ? params.choiceColumn : null;
  if (params.turn !== 'choice' || turn.clientSeedRaw === null || turn.rngReveal === null) {
    return { kind: params.turn, row, choiceColumn, mineColumn: null, safe: null };
  }
  const mineColumn = sweeperMineColumn({
    rngValueHex: turn.rngReveal,
    clientSeedRaw: turn.clientSeedRaw,
    betPayloadHash: turn.betPayloadHash,
    mode: params.mode,
  });
  return { kind: 'choice', row, choiceColumn, mineColumn, safe: mineColumn !== choiceColumn };
}

/** The ticket's state after a turn: a mine busts it, the last row clears it, a cashout or a missing seed ends it. */
export function nextSweeperState(rowsWon: number, turn: SweeperTurnResult, seeded: boolean): { rowsWon: number; outcome: SweeperOutcome } {
  if (!seeded) return { rowsWon, outcome: 'forfeited' };
  if (turn.kind === 'cashout') return { rowsWon, outcome: 'cashed_out' };
  if (!turn.safe) return { rowsWon, outcome: 'busted' };
  return { rowsWon: rowsWon + 1, outcome: rowsWon + 1 === SWEEPER_ROWS ? 'cleared' : 'running' };
}

/** What a finished ticket pays: the current multiplier when cleared or cashed out, the stake when expired, else nothing. */
export const sweeperTicketPayout = (wager: bigint, mode: SweeperMode, outcome: SweeperOutcome, rowsWon: number): bigint =>
  outcome === 'cleared' || outcome === 'cashed_out' ? sweeperPayout(wager, mode, rowsWon) : outcome === 'expired' ? wager : 0n;

export interface SweeperTicketInput {
  ticketId: string;
  mode: SweeperMode;
  wager: bigint;
  player: string;
  source: PlaySource;
  turns: readonly SweeperTurnInput[];
  settledAt: string;
  /** Set when the ticket was closed while running, not by a turn (design §10); absent otherwise. */
  closedBy?: SweeperClosedBy;
}

/**
 * The receipt of a finished ticket, from its turns in order. A ticket closed as idle (`closedBy: 'idle'`) ends after
 * its turns as {@link idleOutcome} says, and its receipt and bet-log entry say `closedBy: 'idle'`; every other
 * ticket's entry is exactly as before (no `closedBy` field).
 * @throws {Error} when the turns do not end the ticket (and it was not closed), or a turn follows its end
 */
export function buildSweeperSettlement(input: SweeperTicketInput) {
  const { ticketId, mode, wager, settledAt, closedBy } = input;
  let state: { rowsWon: number; outcome: SweeperOutcome } = { rowsWon: 0, outcome: 'running' };
  const results = input.turns.map((turn) => {
    if (state.outcome !== 'running') throw new Error(`ticket ${ticketId} has a turn after it ended`);
    const result = resolveSweeperTurn(turn);
    state = nextSweeperState(state.rowsWon, result, turn.clientSeedRaw !== null && turn.rngReveal !== null);
    return result;
  });
  const { rowsWon } = state;
  let { outcome } = state;
  if (closedBy === 'idle') {
    if (outcome !== 'running') throw new Error(`ticket ${ticketId} ended before it could be closed as idle`);
    outcome = idleOutcome(rowsWon);
  }
  if (outcome === 'running') throw new Error(`ticket ${ticketId} has not ended`);
  const payout = sweeperTicketPayout(wager, mode, outcome, rowsWon);
  const status: ReceiptStatus = outcome === 'forfeited' || outcome === 'expired' ? outcome : payout > 0n ? 'won' : 'lost';
  const closed = closedBy ? { closedBy } : {};
  const receiptId = sweeperReceiptId(ticketId);
  const alias = input.player;
  const turns = input.turns.map((turn, i) => Object.assign({}, turn, results[i] as SweeperTurnResult));
  const betLogEntry = {
    v: 1,
    receiptId,
    game: 'sweeper',
    gameId: SWEEPER_GAME_ID,
    player: alias,
    ticketId,
    mode,
    turns: turns.map((t) => ({
      betPayloadHash: t.betPayloadHash,
      ackHash: t.ack.ackHash,
      rngChainHead: t.ack.rngChainHead,
      rngIndex: t.ack.rngIndex,
      commitment: t.betPayload.commitment,
      clientSeedRaw: t.clientSeedRaw,
      kind: t.kind,
      row: t.row,
      choiceColumn: t.choiceColumn,
      mineColumn: t.mineColumn,
    })),
    rowsWon,
    status,
    outcome,
    ...closed,
    wager: wager.toString(),
    payout: payout.toString(),
    settledAt,
  };
  const betLogEntryJcs = betLogEntryJson(betLogEntry);
  const betLogEntryHash = betLogLeafHexOfJson(betLogEntryJcs);
  // As in protocol/dice-receipt.ts: Object.assign, not an object literal that starts with a spread.
  const head = Object.assign(
    receiptHead({ receiptId, game: 'sweeper', gameId: SWEEPER_GAME_ID, player: alias, source: input.source, wager, payout, status }),
    closed,
  );
  const receipt = Object.assign(head, {
    input: {
      ticketId,
      mode,
      wager: microToNumber(wager),
      wagerMicro: wager.toString(),
      turns: turns.map((t) => ({
        kind: t.kind,
        row: t.row,
        choiceColumn: t.choiceColumn,
        commitment: t.betPayload.commitment,
        clientSeedRaw: t.clientSeedRaw,
      })),
    },
    result: {
      outcome,
      rowsWon,
      resultColumns: turns.filter((t) => t.kind === 'choice').map((t) => t.mineColumn),
      multiplierBps: Number(sweeperMultiplierBps(mode, rowsWon)),
      payout: microToNumber(payout),
      payoutMicro: payout.toString(),
    },
    proof: {
      turns: turns.map((t) => ({
        betPayloadHash: t.betPayloadHash,
        ackHash: t.ack.ackHash,
        rngChainHead: t.ack.rngChainHead,
        rngIndex: t.ack.rngIndex,
        rngReveal: t.rngReveal,
      })),
    },
    verifierPayload: {
      version: 1,
      ticketId,
      mode,
      wagerMicro: wager.toString(),
      turns: input.turns.map((t) => ({
        betPayload: t.betPayload,
        betPayloadHash: t.betPayloadHash,
        commitSignature: t.commitSignature,
        ack: t.ack,
        revealSignature: t.revealSignature,
        clientSeedRaw: t.clientSeedRaw,
        rngReveal: t.rngReveal,
      })),
      ...closed,
      betLogEntry,
    },
    anchor: pendingAnchor(betLogEntryHash),
    createdAt: settledAt,
  });
  return { receiptId, status, outcome, rowsWon, wager, payout, closedBy: closedBy ?? null, betLogEntry, betLogEntryJcs, betLogEntryHash, receipt };
}

export type SweeperSettlement = ReturnType<typeof buildSweeperSettlement>;
