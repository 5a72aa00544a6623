// Receipts (contract "Receipt") with the anchor object. The game parts are built by protocol/ and pass through as
// built; the document shows them per game.
import { Type } from 'typebox';
import { Base64, documented, Hex32, Nullable, Timestamp } from './common.ts';
import { Ack, DiceBetPayload, Loose, SweeperCashoutPayload, SweeperChoicePayload } from './bets.ts';
import { DiceBetLogEntry, DiceOutcome } from './dice.ts';
import { SweeperBetLogEntry } from './sweeper.ts';
import * as EX from './examples.ts';

export const Anchor = Type.Object(
  {
    status: Type.String({ description: 'pending_commit until the bet log is anchored on-chain, then committed' }),
    commitId: Type.String({ description: 'commit-<entryCount>, or pending' }),
    commitSignature: Nullable(Type.String(), 'the commit transaction'),
    commitTransactionUrl: Nullable(Type.String(), 'the commit transaction in the block explorer'),
    commitAccount: Nullable(Type.String(), 'the anchor key that signed the commit memo'),
    commitExplorerUrl: Nullable(Type.String(), 'the anchor key in the block explorer'),
    betLogEntryHash: { ...Hex32, description: "the leaf hash of the play's bet-log entry" },
    betLogRoot: Nullable(Hex32, 'the RFC 6962 root committed on-chain'),
    betLogIndex: Nullable(Type.Integer(), "the entry's index in the log"),
    betLogProof: Type.Array(Hex32, { description: 'RFC 9162 inclusion proof of betLogIndex in the tree of entryCount leaves, bottom-up' }),
    entryCount: Nullable(Type.Integer(), 'the tree size at that commit'),
    stateRoot: Nullable(Hex32, 'the liabilities Merkle-sum root at that commit'),
  },
  { description: 'how the play is anchored on-chain' },
);

const DiceInput = Type.Object(
  {
    direction: Type.String({ description: 'under or over' }),
    target: Type.Number({ description: 'the target' }),
    targetBps: Type.Integer({ description: 'target × 100' }),
    wager: Type.Number({ description: 'the stake, USDC' }),
    wagerMicro: Type.String({ description: 'the stake, micro-USDC' }),
    commitment: { ...Hex32, description: 'the client-seed commitment' },
    clientSeedRaw: Nullable(Type.String(), 'the client seed; null when forfeited'),
    sessionPubkey: Type.String({ description: 'the session key that signed' }),
    betNonce: Type.Integer({ description: 'the bet nonce' }),
  },
  { description: 'Dice: what the player chose' },
);

const SweeperInput = Type.Object(
  {
    ticketId: Type.String({ description: 'the ticket' }),
    mode: Type.String({ description: 'easy, medium or hard' }),
    wager: Type.Number({ description: 'the stake, USDC' }),
    wagerMicro: Type.String({ description: 'the stake, micro-USDC' }),
    turns: Type.Array(
      Type.Object(
        {
          kind: Type.String({ description: 'choice or cashout' }),
          row: Nullable(Type.Integer(), 'choice: the row'),
          choiceColumn: Nullable(Type.Integer(), 'choice: the column chosen'),
          commitment: { ...Hex32, description: 'the client-seed commitment' },
          clientSeedRaw: Nullable(Type.String(), 'the client seed; null when forfeited'),
        },
        { description: 'one turn' },
      ),
      { description: 'every turn, in order' },
    ),
  },
  { description: 'Sweeper: what the player chose' },
);

const SweeperResult = Type.Object(
  {
    outcome: Type.String({ description: 'busted, cashed_out, cleared, forfeited or expired' }),
    rowsWon: Type.Integer({ description: 'rows cleared' }),
    resultColumns: Type.Array(Nullable(Type.Integer(), 'a mine column'), { description: 'the mine column of each played row' }),
    multiplierBps: Type.Integer({ description: 'the multiplier paid, basis points' }),
    payout: Type.Number({ description: 'USDC' }),
    payoutMicro: Type.String({ description: 'micro-USDC' }),
  },
  { description: 'Sweeper: the outcome' },
);

const DiceProof = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the bet' },
    ackHash: { ...Hex32, description: 'the ack' },
    rngChainHead: { ...Hex32, description: 'the RNG chain' },
    rngIndex: Type.Integer({ description: 'the RNG index' }),
    rngReveal: Nullable(Hex32, 's_rngIndex; null when forfeited'),
    revealedVia: Type.String({ description: 'reveal, recovery, wallet-memo or deadline' }),
  },
  { description: 'Dice: hashes, RNG index and reveal' },
);

const TurnProof = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the turn' },
    ackHash: { ...Hex32, description: 'its ack' },
    rngChainHead: { ...Hex32, description: 'its RNG chain' },
    rngIndex: Type.Integer({ description: 'its RNG index' }),
    rngReveal: Nullable(Hex32, 's_rngIndex; null when forfeited'),
  },
  { description: 'one turn' },
);

const SweeperProof = Type.Object(
  { turns: Type.Array(TurnProof, { description: 'every turn, in order' }) },
  { description: 'Sweeper: hashes, RNG indices and reveals' },
);

const DiceVerifierPayload = Type.Object(
  {
    version: Type.Literal(1, { description: 'format version' }),
    betPayload: DiceBetPayload,
    betPayloadHash: { ...Hex32, description: 'sha256(JCS(betPayload))' },
    commitSignature: { ...Base64, description: 'the session signature over betPayloadHash' },
    ack: Ack,
    revealSignature: Nullable(Base64, 'the session signature over ack.revealMessage; null without a reveal'),
    clientSeedRaw: Nullable(Type.String(), 'the client seed'),
    rngReveal: Nullable(Hex32, 's_rngIndex'),
    betLogEntry: DiceBetLogEntry,
  },
  { description: 'Dice: everything a verifier needs besides on-chain data' },
);

const SweeperVerifierPayload = Type.Object(
  {
    version: Type.Literal(1, { description: 'format version' }),
    ticketId: Type.String({ description: 'the ticket' }),
    mode: Type.String({ description: 'easy, medium or hard' }),
    wagerMicro: Type.String({ description: 'the stake, micro-USDC' }),
    turns: Type.Array(
      Type.Object(
        {
          betPayload: Type.Union([SweeperChoicePayload, SweeperCashoutPayload], { description: 'the signed turn payload' }),
          betPayloadHash: { ...Hex32, description: 'sha256(JCS(betPayload))' },
          commitSignature: { ...Base64, description: 'the session signature over betPayloadHash' },
          ack: Ack,
          revealSignature: Nullable(Base64, 'the session signature over ack.revealMessage'),
          clientSeedRaw: Nullable(Type.String(), 'the client seed'),
          rngReveal: Nullable(Hex32, 's_rngIndex'),
        },
        { description: 'one turn' },
      ),
      { description: 'every turn, in order' },
    ),
    closedBy: Type.Optional(Type.Literal('idle', { description: 'the ticket was closed as idle by the deadline worker, not by a turn' })),
    betLogEntry: SweeperBetLogEntry,
  },
  { description: 'Sweeper: everything a verifier needs besides on-chain data' },
);

const perGame = (description: string, dice: Parameters<typeof Type.Union>[0][number], sweeper: Parameters<typeof Type.Union>[0][number]) =>
  documented(Loose(description), Type.Union([dice, sweeper], { description: `${description} (Dice or Sweeper)` }));

export const Receipt = Type.Object(
  {
    id: Type.String({ description: 'the receipt id: dice_<first 32 hex of betPayloadHash> or sweeper_<ticketId>' }),
    receiptId: Type.String({ description: 'same as id' }),
    game: Type.String({ description: 'dice or sweeper' }),
    gameId: Type.String({ description: '<game>:protocol-v1' }),
    player: Type.String({ description: 'public alias' }),
    actorAlias: Type.String({ description: 'same as player' }),
    source: Type.String({ description: 'api or mcp' }),
    betAmount: Type.Number({ description: 'the stake, USDC' }),
    payout: Type.Number({ description: 'the payout, USDC' }),
    profit: Type.Number({ description: 'payout − betAmount, USDC' }),
    status: Type.String({ description: 'won, lost, forfeited, or expired (an idle Sweeper ticket closed before any row: stake returned)' }),
    closedBy: Type.Optional(Type.Literal('idle', { description: 'a Sweeper ticket closed by the deadline worker after TICKET_IDLE_MS' })),
    input: perGame("the play's inputs", DiceInput, SweeperInput),
    result: perGame('the outcome', DiceOutcome, SweeperResult),
    proof: perGame('hashes, RNG index and reveal', DiceProof, SweeperProof),
    verifierPayload: perGame('everything a verifier needs besides on-chain data', DiceVerifierPayload, SweeperVerifierPayload),
    anchor: Anchor,
    createdAt: { ...Timestamp, description: 'when the play settled' },
  },
  { description: 'a settled play' },
);

export const ReceiptParams = Type.Object({ id: Type.String({ description: 'the receipt id', examples: [EX.diceReceipt.receipt.id] }) });

export const ReceiptResponse = Type.Object({ receipt: Receipt }, { description: 'The receipt', examples: [EX.diceReceipt, EX.sweeperReceipt, EX.idleReceipt] });
