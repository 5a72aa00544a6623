// Sweeper on Protocol V1.
import { Type } from 'typebox';
import { AmountInput, documented, Hex32, Nullable, Timestamp } from './common.ts';
import { Ack, BetPayload, CommitResponse, Loose, Mode, PlayerView, SweeperCashoutPayload, SweeperChoicePayload } from './bets.ts';
import * as EX from './examples.ts';

export const Ticket = Type.Object(
  {
    id: Type.String({ description: 'ticket id' }),
    status: Type.String({ description: 'running while open, then settled' }),
    outcome: Nullable(Type.String(), 'busted, cashed_out, cleared, forfeited or expired once settled; null while running'),
    closedBy: Type.Optional(Type.Literal('idle', { description: 'closed by the deadline worker after TICKET_IDLE_MS with no turn in flight' })),
    mode: Type.String({ description: 'easy (4 columns), medium (3) or hard (2); one mine per row' }),
    betAmount: Type.Number({ description: 'the stake, USDC' }),
    clientSeed: Type.String({ description: "the latest revealed turn's client seed (empty before the first reveal)" }),
    nonce: Type.Integer({ description: 'the bet nonce when the ticket opened' }),
    rowsWon: Type.Integer({ minimum: 0, maximum: 8, description: 'rows cleared so far' }),
    payout: Type.Number({ description: 'cashout value now while running; the final payout once settled' }),
    multiplierBps: Type.Integer({ description: 'the multiplier at rowsWon, basis points' }),
    fullBoardPayout: Type.Number({ description: 'the payout if all 8 rows are cleared, USDC' }),
    columns: Type.Integer({ description: 'columns per row' }),
    rows: Type.Integer({ description: 'rows on the board (8)' }),
    choices: Type.Array(
      Type.Object(
        {
          row: Nullable(Type.Integer(), 'the row'),
          column: Nullable(Type.Integer(), 'the chosen column'),
          safe: Nullable(Type.Boolean(), 'true when the mine was elsewhere; null before the reveal'),
        },
        { description: 'one choice' },
      ),
      { description: 'the choices made, in row order' },
    ),
    resultColumns: Type.Optional(
      Type.Array(Nullable(Type.Integer(), 'the mine column of the row (null: not drawn)'), {
        description: 'the mine column of each played row; absent until a row is revealed, always there once ended',
      }),
    ),
    serverSeedHash: Type.String({ description: 'the operator RNG chain head' }),
    createdAt: { ...Timestamp, description: 'when it opened' },
    endedAt: Type.Optional({ ...Timestamp, description: 'when it settled' }),
    pendingTurn: Type.Union(
      [
        Type.Object(
          {
            status: Type.Literal('awaiting_reveal', { description: 'committed, not yet revealed' }),
            betPayloadHash: { ...Hex32, description: 'the committed turn' },
            ack: Type.Union([Ack, Type.Null()], { description: 'its ack' }),
          },
          { description: 'the turn awaiting its reveal' },
        ),
        Type.Null(),
      ],
      { description: 'the committed turn awaiting its reveal, or null' },
    ),
  },
  { description: 'a Sweeper ticket' },
);

const MODE = 'easy, medium or hard';
const ROW = '0-based; must equal rowsWon';
const COLUMN = 'integer in [0, columns)';

export const OpenTicketBody = Type.Object(
  {
    mode: Type.Optional(documented(Type.Unknown({ description: MODE }), { ...Mode, description: MODE })),
    sessionPubkey: Type.String({ description: 'authorized Ed25519 session key (base58)' }),
    wager: Type.Optional(AmountInput),
  },
  { examples: [EX.ticketBody] },
);

export const OpenTicketResponse = Type.Object(
  { ticket: Ticket, player: PlayerView },
  { description: 'The ticket is open; its stake is locked', examples: [EX.ticketOpen] },
);

export const ChoicePrepareBody = Type.Object(
  {
    ticketId: Type.String({ maxLength: 64, description: 'the running ticket' }),
    commitment: { ...Hex32, description: 'sha256 of the 32 raw client-seed bytes of this turn' },
    sessionPubkey: Type.String({ description: 'authorized Ed25519 session key (base58)' }),
    row: Type.Optional(documented(Type.Unknown({ description: ROW }), Type.Integer({ minimum: 0, maximum: 7, description: ROW }))),
    choiceColumn: Type.Optional(documented(Type.Unknown({ description: COLUMN }), Type.Integer({ minimum: 0, maximum: 3, description: COLUMN }))),
  },
  { examples: [EX.choicePrepareBody] },
);

export const CashoutPrepareBody = Type.Object(
  {
    ticketId: Type.String({ maxLength: 64, description: 'the running ticket' }),
    commitment: { ...Hex32, description: 'sha256 of the 32 raw client-seed bytes of this turn' },
    sessionPubkey: Type.String({ description: 'authorized Ed25519 session key (base58)' }),
  },
  { examples: [EX.cashoutPrepareBody] },
);

const SweeperParams = Type.Object(
  {
    ticketId: Type.String({ description: 'the ticket' }),
    mode: Mode,
    turn: Type.Union([Type.Literal('choice'), Type.Literal('cashout')], { description: 'the kind of turn' }),
    row: Type.Optional(Type.Integer({ description: 'choice: the row' })),
    choiceColumn: Type.Optional(Type.Integer({ description: 'choice: the column chosen' })),
    columns: Type.Integer({ description: 'columns per row' }),
    rowsWon: Type.Integer({ description: 'rows cleared so far' }),
    currentPayout: Type.Number({ description: 'the cashout value now, USDC' }),
    payoutIfSafe: Nullable(Type.Number(), 'choice: the cashout value if this row is safe; null for a cashout'),
  },
  { description: 'the turn parameters and what is at stake' },
);

export const SweeperPrepareResponse = Type.Object(
  {
    betPayload: BetPayload,
    betPayloadHash: { ...Hex32, description: 'sha256(JCS(betPayload)); sign these 32 bytes with the session key' },
    sweeperParams: documented(Loose('the turn parameters and what is at stake'), SweeperParams),
  },
  { description: 'The turn to sign', examples: [EX.choicePrepare, EX.cashoutPrepare] },
);

export const SweeperCommitBody = Type.Object(
  {
    betPayload: documented(BetPayload, Type.Union([SweeperChoicePayload, SweeperCashoutPayload], { description: 'the betPayload from prepare, unchanged' })),
    betPayloadHash: { ...Hex32, description: 'the betPayloadHash from prepare' },
    sweeperParams: Type.Optional(
      documented(Type.Unknown({ description: 'ignored' }), {
        ...SweeperParams,
        description: "prepare's sweeperParams; ignored (a client may send prepare's reply back as it is)",
      }),
    ),
    sessionSignature: Type.String({ description: 'session key Ed25519 over the 32 raw bytes of betPayloadHash (base64)' }),
  },
  { examples: [EX.sweeperCommitBody] },
);

export const SweeperCommitResponse = Type.Object(
  { ...CommitResponse.properties, ticket: Nullable(Ticket, 'the ticket, with this turn pending') },
  { description: 'The turn is committed', examples: [EX.sweeperCommit] },
);

/** The bet-log entry of a finished ticket (protocol/sweeper-receipt.ts). */
export const SweeperBetLogEntry = Type.Object(
  {
    v: Type.Literal(1, { description: 'entry format version' }),
    receiptId: Type.String({ description: 'sweeper_<ticketId>' }),
    game: Type.Literal('sweeper', { description: 'the game' }),
    gameId: Type.Literal('sweeper:protocol-v1', { description: 'the game and protocol' }),
    player: Type.String({ description: 'public alias' }),
    ticketId: Type.String({ description: 'the ticket' }),
    mode: Type.String({ description: 'easy, medium or hard' }),
    turns: Type.Array(
      Type.Object(
        {
          betPayloadHash: { ...Hex32, description: 'the turn' },
          ackHash: { ...Hex32, description: 'its ack' },
          rngChainHead: { ...Hex32, description: 'its RNG chain' },
          rngIndex: Type.Integer({ description: 'its RNG index' }),
          commitment: { ...Hex32, description: 'its client-seed commitment' },
          clientSeedRaw: Nullable(Type.String(), 'its client seed; null when forfeited'),
          kind: Type.String({ description: 'choice or cashout' }),
          row: Nullable(Type.Integer(), 'choice: the row'),
          choiceColumn: Nullable(Type.Integer(), 'choice: the column chosen'),
          mineColumn: Nullable(Type.Integer(), 'choice: the mine column drawn'),
        },
        { description: 'one turn' },
      ),
      { description: 'every turn, in order' },
    ),
    rowsWon: Type.Integer({ description: 'rows cleared' }),
    status: Type.String({ description: 'won, lost, forfeited or expired' }),
    outcome: Type.String({ description: 'busted, cashed_out, cleared, forfeited or expired' }),
    closedBy: Type.Optional(Type.Literal('idle', { description: 'closed as idle by the deadline worker (design §10); absent otherwise' })),
    wager: Type.String({ description: 'micro-USDC, decimal string' }),
    payout: Type.String({ description: 'micro-USDC, decimal string' }),
    settledAt: { ...Timestamp, description: 'when the ticket ended' },
  },
  { description: "the ticket's bet-log entry; its leaf is sha256(0x00 ‖ JCS(entry))" },
);

export const SweeperRevealResponse = Type.Object(
  {
    betPayloadHash: { ...Hex32, description: 'the turn' },
    ticketId: Type.String({ description: 'the ticket' }),
    turn: Type.Object(
      {
        kind: Type.String({ description: 'choice or cashout' }),
        row: Nullable(Type.Integer(), 'choice: the row'),
        choiceColumn: Nullable(Type.Integer(), 'choice: the column chosen'),
        mineColumn: Nullable(Type.Integer(), 'choice: the mine column drawn'),
        safe: Nullable(Type.Boolean(), 'choice: true when the chosen column was safe'),
        rngIndex: Type.Integer({ description: 'the RNG index of the turn' }),
        rngReveal: Nullable(Hex32, 's_rngIndex of the operator chain'),
      },
      { description: 'what the turn drew' },
    ),
    ack: Ack,
    ticket: Ticket,
    receiptId: Nullable(Type.String(), 'the receipt once the ticket ended, else null'),
    betLogEntry: Type.Union([documented(Loose("the ticket's bet-log entry"), SweeperBetLogEntry), Type.Null()], {
      description: "the ticket's bet-log entry, once it ended",
    }),
    betLogEntryHash: Nullable(Hex32, 'its leaf hash, once it ended'),
    player: PlayerView,
  },
  { description: 'The turn settled', examples: [EX.sweeperReveal, EX.sweeperRevealEnd] },
);

const RecentTicket = Type.Object(
  {
    ticketId: Type.String({ description: 'the ticket' }),
    receiptId: Type.String({ description: 'its receipt' }),
    mode: Type.String({ description: 'easy, medium or hard' }),
    outcome: Type.String({ description: 'busted, cashed_out, cleared, forfeited or expired' }),
    rowsWon: Type.Integer({ description: 'rows cleared' }),
    wager: Type.Number({ description: 'the stake, USDC' }),
    payout: Type.Number({ description: 'the payout, USDC' }),
    endedAt: { ...Timestamp, description: 'when it ended' },
    source: Type.Union([Type.Literal('api'), Type.Literal('mcp')], { description: 'api, or mcp for an agent play' }),
    closedBy: Type.Optional(Type.Literal('idle', { description: 'closed as idle by the deadline worker' })),
  },
  { description: 'a settled ticket' },
);

export const SweeperSession = Type.Object(
  {
    balance: Type.Number({ description: 'free arcade balance, USDC' }),
    nonce: Type.Integer({ description: 'the bet nonce the next prepared bet carries' }),
    serverSeedHash: Nullable(Hex32, 'the operator RNG chain head'),
    activeTicket: Nullable(Ticket, 'the running ticket, or null'),
    recentTickets: Type.Array(documented(Loose('a settled ticket'), RecentTicket), { description: 'the latest settled tickets, newest first' }),
  },
  { description: 'The Sweeper session', examples: [EX.sweeperSession] },
);

export const TicketParams = Type.Object({ ticketId: Type.String({ maxLength: 64, description: 'the ticket', examples: [EX.ticket.ticket.id] }) });

export const TicketResponse = Type.Object({ ticket: Ticket }, { description: 'The ticket', examples: [EX.ticket, EX.idleTicket] });
