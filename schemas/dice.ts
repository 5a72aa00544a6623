// Dice on Protocol V1.
import { Type } from 'typebox';
import { AmountInput, Hex32, Timestamp } from './common.ts';
import { Ack, BetPayload, Loose, PlayerView } from './bets.ts';

export const DicePrepareBody = Type.Object({
  commitment: { ...Hex32, description: 'sha256 of the 32 raw client-seed bytes' },
  sessionPubkey: Type.String({ description: 'authorized Ed25519 session key (base58)' }),
  direction: Type.Optional(Type.Unknown({ description: '"under" (win when roll < target) or "over" (win when roll > target)' })),
  target: Type.Optional(Type.Unknown({ description: 'number with at most 2 decimals; the winning chance must be 1%–98%' })),
  wager: Type.Optional(AmountInput),
});

export const DiceParams = Type.Object({
  direction: Type.String(),
  target: Type.Number(),
  targetBps: Type.Integer(),
  winningCount: Type.Integer(),
  winChance: Type.Number({ description: 'percent' }),
  multiplierBps: Type.Integer({ description: 'floor(99_000_000 / winningCount)' }),
  multiplier: Type.Number(),
  potentialPayout: Type.Number(),
});

export const DicePrepareResponse = Type.Object({ betPayload: BetPayload, betPayloadHash: Hex32, diceParams: DiceParams });

export const DiceCommitBody = Type.Object({
  betPayload: BetPayload,
  betPayloadHash: Hex32,
  diceParams: Type.Optional(Type.Unknown()),
  sessionSignature: Type.String({ description: 'session key Ed25519 over the 32 raw bytes of betPayloadHash (base64)' }),
});

export const DiceOutcome = Type.Object({
  roll: Type.Union([Type.Integer(), Type.Null()], { description: 'r in [0, 10000)' }),
  rollDisplay: Type.Union([Type.Number(), Type.Null()], { description: 'r / 100' }),
  direction: Type.String(),
  target: Type.Number(),
  targetBps: Type.Integer(),
  won: Type.Boolean(),
  status: Type.String({ description: 'won, lost or forfeited' }),
  multiplierBps: Type.Integer(),
  payout: Type.Number(),
  payoutMicro: Type.String(),
  profit: Type.Number(),
});

export const DiceRevealResponse = Type.Object({
  betPayloadHash: Hex32,
  receiptId: Type.String(),
  outcome: DiceOutcome,
  rngReveal: Type.Union([Hex32, Type.Null()]),
  ack: Ack,
  betLogEntry: Loose('the bet-log entry; leaf = sha256(0x00 ‖ JCS(entry))'),
  betLogEntryHash: Hex32,
  player: PlayerView,
});

export const PendingDiceBet = Type.Object({
  status: Type.Literal('awaiting_reveal'),
  betPayloadHash: Hex32,
  betNonce: Type.Integer(),
  rngIndex: Type.Integer(),
  wager: Type.Number(),
  direction: Type.String(),
  target: Type.Number(),
  commitment: Hex32,
  committedAt: Timestamp,
  revealDeadline: Timestamp,
  ack: Ack,
});

export const DiceSession = Type.Object({
  balance: Type.Number(),
  nonce: Type.Integer(),
  serverSeedHash: Type.Union([Hex32, Type.Null()], { description: 'the operator RNG chain head' }),
  recentRolls: Type.Array(Loose('a settled roll')),
  pendingBet: Type.Union([PendingDiceBet, Type.Null()]),
  pendingBets: Type.Array(PendingDiceBet),
});
