// The one small interface a game implements: the rules of a turn (its params and the money at risk) and
// of its settlement (outcome, payout, receipt). Everything else is the shared lifecycle (lifecycle.ts).
import type { Ack } from '../protocol/ack.ts';
import type { Address } from '../protocol/address.ts';
import type { BetPayload } from '../protocol/bet-payload.ts';
import type { PlaySource, SeedReveal } from '../protocol/receipt.ts';
import type { BetRecord } from '../store/bets.ts';
import type { TurnWrite } from '../store/bets.ts';
import { playOfSettleEvent } from '../protocol/plays.ts';

export type GameName = BetPayload['game'];

/** A prepare body as sent (the lifecycle checks and brands its key and commitment): the parts every game shares, plus the game's own fields. */
export interface PrepareInput {
  commitment: string;
  sessionPubkey: string;
  [field: string]: unknown;
}

/** What a game decides about a turn before the lifecycle builds and stores its payload. */
export interface TurnPlan {
  params: BetPayload['params'];
  /** The payload's wager. */
  wager: bigint;
  /**
   * `stake` when this turn locks the wager at commit (checked against the balance and the house limits);
   * `play` when the play's stake was locked before (a Sweeper turn: at ticket open).
   */
  locks: 'stake' | 'play';
  maxPayout: bigint;
  /**
   * The exposure the turn reserves while it is in flight, checked against maxExposure and the wallet's share of it: a
   * Dice bet's payout beyond its stake, a Sweeper choice's increment over what the ticket is owed, 0 for a cashout.
   */
  exposure: bigint;
  ticketId?: string;
  turn?: 'choice' | 'cashout';
  /** The game's own part of the prepare reply (`diceParams`, `sweeperParams`). */
  reply: Record<string, unknown>;
}

/** A committed turn being settled, with everything its outcome depends on. */
export interface TurnToSettle {
  bet: BetRecord;
  payload: BetPayload;
  ack: Ack;
  /** The client seed; null settles the turn without one (the deadline passed). */
  reveal: SeedReveal | null;
  /** s_rngIndex, null without a seed. */
  rngReveal: string | null;
  settledAt: string;
  source: PlaySource;
}

/** A settled turn: what the ledger writes, and the reply the client gets. */
export interface TurnOutcome {
  write: TurnWrite;
  reply: Record<string, unknown>;
}

/** A play closed for being idle (design §10): its wallet, and what the ledger writes through the settle script. */
export interface IdleClose {
  wallet: Address;
  outcome: TurnOutcome;
}

export interface Game {
  readonly name: GameName;
  /**
   * Validates a prepare body and plans the turn.
   * @throws {import('../protocol/errors.ts').PfwsError} INVALID_BET_AMOUNT or GAME_INPUT_REJECTED
   */
  planTurn(wallet: Address, input: PrepareInput): Promise<TurnPlan>;
  /** Checks the game's own fields of a commit body against the signed payload. */
  checkCommit(payload: BetPayload, body: Record<string, unknown>): void;
  /** The play spanning turns that this turn belongs to (a Sweeper ticket's id); absent for a game of single turns. */
  playOf?(payload: BetPayload): string | undefined;
  /** The game's own part of the commit reply. */
  commitReply(payload: BetPayload, ack: Ack): Promise<Record<string, unknown>>;
  /** Draws the turn's outcome and, when the play ends, builds its receipt. */
  settleTurn(turn: TurnToSettle): Promise<TurnOutcome>;
  /** The reply of a turn settled before (a replayed reveal), from what the ledger stored. */
  storedReply(bet: BetRecord, stored: string): Promise<Record<string, unknown>>;
  /** Games whose plays stay open between turns (Sweeper tickets) close an idle one; null when it cannot be closed. */
  closeIdle?(playId: string, settledAt: string): Promise<IdleClose | null>;
}

/** Every game, by name. */
export type GameRegistry = Record<GameName, Game>;

/**
 * What the ledger publishes on the plays channel for a play's settle event: its public play of design §8,
 * built as a replay from the journal builds it, or '' when the event settles no play.
 */
export function livePlayJson(event: { type: string; json: string }, settledAt: string): string {
  const play = playOfSettleEvent(event.type, event.json, settledAt);
  return play ? JSON.stringify(play) : '';
}
