// The canonical bet payload a session key signs (design §4); it names the public alias, never the wallet.
import { jcsSha256Hex } from './jcs.ts';
import type { Hex32 } from './hex32.ts';
import type { DiceDirection } from './dice.ts';
import type { SweeperMode } from './sweeper.ts';

export const PROTOCOL_ID = 'pfws/v1';

export interface DiceParams {
  direction: DiceDirection;
  targetBps: number;
}

export type SweeperTurnParams =
  | { ticketId: string; mode: SweeperMode; turn: 'choice'; row: number; choiceColumn: number }
  | { ticketId: string; mode: SweeperMode; turn: 'cashout'; rowsWon: number };

interface BetPayloadBase {
  protocol: typeof PROTOCOL_ID;
  player: string;
  sessionPubkey: string;
  betNonce: number;
  /** micro-USDC as a decimal string */
  wager: string;
  commitment: string;
  expiresAt: string;
}

export type DiceBetPayload = BetPayloadBase & { game: 'dice'; params: DiceParams };
export type SweeperBetPayload = BetPayloadBase & { game: 'sweeper'; params: SweeperTurnParams };
export type BetPayload = DiceBetPayload | SweeperBetPayload;

/** betPayloadHash = sha256(JCS(betPayload)), hex. */
export const betPayloadHashOf = (payload: BetPayload): Hex32 => jcsSha256Hex(payload);
