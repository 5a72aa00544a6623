// Shapes shared by the Dice and Sweeper flows: the bet payload, the operator ack, commit and reveal bodies, recovery seeds.
import { Type } from 'typebox';
import { Base58Address, Base64, documented, Hex32, MicroString, Timestamp } from './common.ts';
import * as EX from './examples.ts';

const Loose = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

const Mode = Type.Union([Type.Literal('easy'), Type.Literal('medium'), Type.Literal('hard')], {
  description: 'easy (4 columns), medium (3) or hard (2); one mine per row',
});

const payloadBase = {
  protocol: Type.Literal('pfws/v1', { description: 'protocol id' }),
  player: Type.String({ description: "the wallet's public alias (never the wallet address)" }),
  sessionPubkey: { ...Base58Address, description: 'the session key that signs this bet (base58)' },
  betNonce: Type.Integer({ minimum: 0, description: "the wallet's bet nonce this payload is bound to (player status nonces.bet)" }),
  wager: { ...MicroString, description: 'the stake in micro-USDC, decimal string (for a Sweeper turn: the ticket stake)' },
  commitment: { ...Hex32, description: 'sha256 of the 32 raw client-seed bytes' },
  expiresAt: { ...Timestamp, description: 'the payload can be committed until then' },
};

export const DiceBetPayload = Type.Object(
  {
    ...payloadBase,
    game: Type.Literal('dice', { description: 'the game' }),
    params: Type.Object(
      {
        direction: Type.Union([Type.Literal('under'), Type.Literal('over')], { description: 'under wins when roll < targetBps, over when roll > targetBps' }),
        targetBps: Type.Integer({ minimum: 0, maximum: 9999, description: 'target × 100' }),
      },
      { description: 'the Dice parameters' },
    ),
  },
  { description: 'a Dice bet payload' },
);

export const SweeperChoicePayload = Type.Object(
  {
    ...payloadBase,
    game: Type.Literal('sweeper', { description: 'the game' }),
    params: Type.Object(
      {
        ticketId: Type.String({ description: 'the ticket' }),
        mode: Mode,
        turn: Type.Literal('choice', { description: 'a choice turn' }),
        row: Type.Integer({ minimum: 0, maximum: 7, description: '0-based row; equals the rows won so far' }),
        choiceColumn: Type.Integer({ minimum: 0, maximum: 3, description: 'the column chosen in that row' }),
      },
      { description: 'the turn parameters' },
    ),
  },
  { description: 'a Sweeper choice turn payload' },
);

export const SweeperCashoutPayload = Type.Object(
  {
    ...payloadBase,
    game: Type.Literal('sweeper', { description: 'the game' }),
    params: Type.Object(
      {
        ticketId: Type.String({ description: 'the ticket' }),
        mode: Mode,
        turn: Type.Literal('cashout', { description: 'a cashout turn' }),
        rowsWon: Type.Integer({ minimum: 1, maximum: 8, description: 'rows cleared; the payout is at this many rows' }),
      },
      { description: 'the turn parameters' },
    ),
  },
  { description: 'a Sweeper cashout turn payload' },
);

const BET_PAYLOAD = 'canonical bet payload (design §4); betPayloadHash = sha256(JCS(betPayload)); send it back in commit exactly as received';

/** Passed through as built (requests: the handler checks it and answers GAME_INPUT_REJECTED; responses: the exact bytes hashed). */
export const BetPayload = documented(
  Loose(BET_PAYLOAD),
  Type.Union([DiceBetPayload, SweeperChoicePayload, SweeperCashoutPayload], { description: BET_PAYLOAD }),
);

export const Ack = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the committed bet' },
    betNonce: Type.Integer({ minimum: 0, description: 'the bet nonce of the payload' }),
    rngIndex: Type.Integer({ minimum: 1, description: "assigned at commit; the bet's randomness is s_rngIndex of the chain" }),
    rngChainHead: { ...Hex32, description: 'the head s_0 of the operator RNG chain, committed on-chain' },
    committedAt: { ...Timestamp, description: 'when the commit was accepted' },
    revealDeadline: { ...Timestamp, description: 'the bet settles by then: with the seed if one is known, else as a loss' },
    ackHash: { ...Hex32, description: 'sha256 of the JCS of the six fields above' },
    operatorSignature: { ...Base64, description: 'ack key Ed25519 over UTF-8 "pfws:v1:ack:<ackHash>"' },
    revealMessage: Type.String({ description: 'pfws:v1:reveal:<betPayloadHash>:<ackHash>; the reveal signs these UTF-8 bytes' }),
  },
  { description: "the operator's signed acknowledgement of a commit" },
);

export const CommitResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('awaiting_reveal'), Type.Literal('settled')], {
      description: 'awaiting_reveal after a commit; a commit re-sent after the bet settled answers settled',
    }),
    betPayloadHash: { ...Hex32, description: 'the committed bet' },
    rngIndex: Type.Integer({ minimum: 1, description: 'the RNG index assigned to the bet (as in ack)' }),
    ack: Ack,
    revealMessage: Type.String({ description: 'ack.revealMessage: sign its UTF-8 bytes with the session key to reveal' }),
    revealDeadline: { ...Timestamp, description: 'ack.revealDeadline' },
  },
  { description: 'The bet is committed: the stake is locked and the RNG index fixed', examples: [EX.diceCommit] },
);

export const RevealBody = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the committed bet' },
    clientSeedRaw: Type.String({
      description: '32 bytes as hex (either case); sha256 of these bytes is the commitment',
      examples: [EX.diceRevealBody.clientSeedRaw],
    }),
    sessionSignature: { ...Base64, description: 'session key Ed25519 over the UTF-8 bytes of ack.revealMessage' },
  },
  { examples: [EX.diceRevealBody] },
);

export const PlayerView = Type.Object(
  {
    balance: Type.Number({ description: 'free arcade balance, USDC' }),
    exposure: Type.Number({ description: "the player's open bets' possible payout beyond their stakes, USDC" }),
    stakedInPlay: Type.Number({ description: 'stakes locked in committed bets and open tickets, USDC' }),
    nonce: Type.Integer({ minimum: 0, description: 'the bet nonce the next prepared bet carries' }),
  },
  { description: "the player's balances after this step" },
);

export const RecoverySeedBody = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'a committed bet of this wallet' },
    clientSeedRaw: Type.String({ description: '32 bytes as lowercase hex; must open the bet commitment' }),
  },
  { examples: [EX.recoverySeedBody] },
);

export const RecoverySeedStored = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the bet' },
    stored: Type.Boolean({ description: 'true: the seed is kept for recovery' }),
    state: Type.String({ description: 'the bet: committed or settled' }),
  },
  { description: 'The seed is stored', examples: [EX.recoverySeedStored] },
);

export const RecoverySeedQuery = Type.Object({
  betPayloadHash: Type.String({ description: 'a committed bet of this wallet (64 lowercase hex)', examples: [EX.recoverySeedBody.betPayloadHash] }),
});

export const RecoverySeed = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the bet' },
    clientSeedRaw: Type.String({ description: 'the stored seed, 32 bytes as lowercase hex' }),
    state: Type.String({ description: 'committed or settled' }),
    ack: Ack,
  },
  { description: 'The stored seed, with the ack to reveal with', examples: [EX.recoverySeed] },
);

export { Loose, Mode };
