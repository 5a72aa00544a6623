// Dice on Protocol V1.
import { Type } from 'typebox';
import { AmountInput, documented, Hex32, Nullable, Timestamp } from './common.ts';
import { Ack, BetPayload, DiceBetPayload, Loose, PlayerView } from './bets.ts';
import * as EX from './examples.ts';

const DIRECTION = '"under" (win when roll < target) or "over" (win when roll > target)';
const TARGET = 'number with at most 2 decimals; the winning chance must be 1%–98%';

export const DicePrepareBody = Type.Object(
  {
    commitment: { ...Hex32, description: 'sha256 of the 32 raw client-seed bytes' },
    sessionPubkey: Type.String({ description: 'authorized Ed25519 session key (base58)' }),
    // Checked by the game rules, so a bad one is GAME_INPUT_REJECTED with its reason.
    direction: Type.Optional(
      documented(Type.Unknown({ description: DIRECTION }), Type.Union([Type.Literal('under'), Type.Literal('over')], { description: DIRECTION })),
    ),
    target: Type.Optional(documented(Type.Unknown({ description: TARGET }), Type.Number({ minimum: 0, maximum: 99.99, description: TARGET }))),
    wager: Type.Optional(AmountInput),
  },
  { examples: [EX.dicePrepareBody] },
);

export const DiceParams = Type.Object(
  {
    direction: Type.String({ description: 'under or over' }),
    target: Type.Number({ description: 'the target, 0.00–99.99' }),
    targetBps: Type.Integer({ description: 'target × 100' }),
    winningCount: Type.Integer({ description: 'rolls in [0, 10000) that win' }),
    winChance: Type.Number({ description: 'percent' }),
    multiplierBps: Type.Integer({ description: 'floor(99_000_000 / winningCount)' }),
    multiplier: Type.Number({ description: 'multiplierBps / 10000' }),
    potentialPayout: Type.Number({ description: 'the payout on a win, USDC' }),
  },
  { description: 'what the bet pays and its odds' },
);

export const DicePrepareResponse = Type.Object(
  {
    betPayload: BetPayload,
    betPayloadHash: { ...Hex32, description: 'sha256(JCS(betPayload)); sign these 32 bytes with the session key' },
    diceParams: DiceParams,
  },
  { description: 'The bet to sign', examples: [EX.dicePrepare] },
);

export const DiceCommitBody = Type.Object(
  {
    betPayload: documented(BetPayload, { ...DiceBetPayload, description: 'the betPayload from prepare, unchanged' }),
    betPayloadHash: { ...Hex32, description: 'the betPayloadHash from prepare' },
    diceParams: Type.Optional(
      documented(Type.Unknown({ description: 'ignored' }), {
        ...DiceParams,
        description: "prepare's diceParams; ignored (a client may send prepare's reply back as it is)",
      }),
    ),
    sessionSignature: Type.String({ description: 'session key Ed25519 over the 32 raw bytes of betPayloadHash (base64)' }),
  },
  { examples: [EX.diceCommitBody] },
);

export const DiceOutcome = Type.Object(
  {
    roll: Nullable(Type.Integer({ minimum: 0, maximum: 9999 }), 'r in [0, 10000); null when forfeited (no seed by the deadline)'),
    rollDisplay: Nullable(Type.Number(), 'r / 100'),
    direction: Type.String({ description: 'under or over' }),
    target: Type.Number({ description: 'the target' }),
    targetBps: Type.Integer({ description: 'target × 100' }),
    won: Type.Boolean({ description: 'true on a win' }),
    status: Type.String({ description: 'won, lost or forfeited' }),
    multiplierBps: Type.Integer({ description: 'the multiplier of a win, basis points' }),
    payout: Type.Number({ description: 'paid to the balance, USDC (0 on a loss)' }),
    payoutMicro: Type.String({ description: 'payout in micro-USDC, decimal string' }),
    profit: Type.Number({ description: 'payout − wager, USDC' }),
  },
  { description: 'the settled outcome' },
);

/** The bet-log entry of a Dice play (protocol/dice-receipt.ts); its leaf is sha256(0x00 ‖ JCS(entry)). */
export const DiceBetLogEntry = Type.Object(
  {
    v: Type.Literal(1, { description: 'entry format version' }),
    receiptId: Type.String({ description: 'dice_<first 32 hex of betPayloadHash>' }),
    game: Type.Literal('dice', { description: 'the game' }),
    gameId: Type.Literal('dice:protocol-v1', { description: 'the game and protocol' }),
    player: Type.String({ description: 'public alias' }),
    betPayloadHash: { ...Hex32, description: 'the bet' },
    ackHash: { ...Hex32, description: 'the ack' },
    rngChainHead: { ...Hex32, description: 'the RNG chain of the bet' },
    rngIndex: Type.Integer({ minimum: 1, description: 'the RNG index of the bet' }),
    commitment: { ...Hex32, description: 'the client-seed commitment' },
    clientSeedRaw: Nullable(Type.String(), 'the revealed client seed (hex); null when forfeited'),
    roll: Nullable(Type.Integer(), 'the roll; null when forfeited'),
    status: Type.String({ description: 'won, lost or forfeited' }),
    wager: Type.String({ description: 'micro-USDC, decimal string' }),
    payout: Type.String({ description: 'micro-USDC, decimal string' }),
    settledAt: { ...Timestamp, description: 'when it settled' },
  },
  { description: 'the Dice bet-log entry; its leaf is sha256(0x00 ‖ JCS(entry))' },
);

export const DiceRevealResponse = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the bet' },
    receiptId: Type.String({ description: 'the receipt (GET /api/receipts/:id)' }),
    outcome: DiceOutcome,
    rngReveal: Nullable(Hex32, 's_rngIndex of the operator chain; null when forfeited'),
    ack: Ack,
    betLogEntry: documented(Loose('the bet-log entry; leaf = sha256(0x00 ‖ JCS(entry))'), DiceBetLogEntry),
    betLogEntryHash: { ...Hex32, description: 'the leaf hash of betLogEntry' },
    player: PlayerView,
  },
  { description: 'The bet settled', examples: [EX.diceReveal] },
);

export const PendingDiceBet = Type.Object(
  {
    status: Type.Literal('awaiting_reveal', { description: 'committed, not yet revealed' }),
    betPayloadHash: { ...Hex32, description: 'the bet' },
    betNonce: Type.Integer({ description: 'its bet nonce' }),
    rngIndex: Type.Integer({ description: 'its RNG index' }),
    wager: Type.Number({ description: 'the stake, USDC' }),
    direction: Type.String({ description: 'under or over' }),
    target: Type.Number({ description: 'the target' }),
    commitment: { ...Hex32, description: 'the client-seed commitment' },
    committedAt: { ...Timestamp, description: 'when committed' },
    revealDeadline: { ...Timestamp, description: 'settles by then' },
    ack: Ack,
  },
  { description: 'a committed bet awaiting its reveal' },
);

const RecentRoll = Type.Object(
  {
    receiptId: Type.String({ description: 'the receipt' }),
    roll: Nullable(Type.Integer(), 'the roll; null when forfeited'),
    rollDisplay: Nullable(Type.Number(), 'roll / 100'),
    direction: Type.String({ description: 'under or over' }),
    target: Type.Number({ description: 'the target' }),
    won: Type.Boolean({ description: 'true on a win' }),
    status: Type.String({ description: 'won, lost or forfeited' }),
    wager: Type.Number({ description: 'the stake, USDC' }),
    payout: Type.Number({ description: 'the payout, USDC' }),
    settledAt: { ...Timestamp, description: 'when it settled' },
    source: Type.Union([Type.Literal('api'), Type.Literal('mcp')], { description: 'api, or mcp for an agent play' }),
  },
  { description: 'a settled roll' },
);

export const DiceSession = Type.Object(
  {
    balance: Type.Number({ description: 'free arcade balance, USDC' }),
    nonce: Type.Integer({ description: 'the bet nonce the next prepared bet carries' }),
    serverSeedHash: Nullable(Hex32, 'the operator RNG chain head'),
    recentRolls: Type.Array(documented(Loose('a settled roll'), RecentRoll), { description: 'the latest settled rolls, newest first' }),
    pendingBet: Type.Union([PendingDiceBet, Type.Null()], { description: 'the oldest bet awaiting its reveal, or null' }),
    pendingBets: Type.Array(PendingDiceBet, { description: 'every bet awaiting its reveal' }),
  },
  { description: 'The Dice session', examples: [EX.diceSession] },
);
