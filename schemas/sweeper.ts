// Sweeper on Protocol V1.
import { Type } from 'typebox';
import { AmountInput, Hex32, Timestamp } from './common.ts';
import { Ack, BetPayload, CommitResponse, Loose, PlayerView } from './bets.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const Ticket = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'running while open, then settled' }),
  outcome: Nullable(Type.String({ description: 'busted, cashed_out, cleared, forfeited or expired once settled' })),
  closedBy: Type.Optional(Type.Literal('idle', { description: 'closed by the deadline worker after TICKET_IDLE_MS with no turn in flight' })),
  mode: Type.String({ description: 'easy (4 columns), medium (3) or hard (2); one mine per row' }),
  betAmount: Type.Number(),
  clientSeed: Type.String({ description: "the latest revealed turn's client seed" }),
  nonce: Type.Integer({ description: 'the bet nonce when the ticket opened' }),
  rowsWon: Type.Integer(),
  payout: Type.Number({ description: 'cashout value now while running; the final payout once settled' }),
  multiplierBps: Type.Integer(),
  fullBoardPayout: Type.Number(),
  columns: Type.Integer(),
  rows: Type.Integer(),
  choices: Type.Array(Type.Object({ row: Nullable(Type.Integer()), column: Nullable(Type.Integer()), safe: Nullable(Type.Boolean()) })),
  resultColumns: Type.Optional(
    Type.Array(Nullable(Type.Integer()), { description: 'the mine column of each played row; absent until a row is revealed, always there once ended' }),
  ),
  serverSeedHash: Type.String(),
  createdAt: Timestamp,
  endedAt: Type.Optional(Timestamp),
  pendingTurn: Nullable(Type.Object({ status: Type.Literal('awaiting_reveal'), betPayloadHash: Hex32, ack: Nullable(Ack) })),
});

export const OpenTicketBody = Type.Object({
  mode: Type.Optional(Type.Unknown({ description: 'easy, medium or hard' })),
  sessionPubkey: Type.String(),
  wager: Type.Optional(AmountInput),
});

export const OpenTicketResponse = Type.Object({ ticket: Ticket, player: PlayerView });

export const ChoicePrepareBody = Type.Object({
  ticketId: Type.String({ maxLength: 64 }),
  commitment: Hex32,
  sessionPubkey: Type.String(),
  row: Type.Optional(Type.Unknown({ description: '0-based; must equal rowsWon' })),
  choiceColumn: Type.Optional(Type.Unknown({ description: 'integer in [0, columns)' })),
});

export const CashoutPrepareBody = Type.Object({
  ticketId: Type.String({ maxLength: 64 }),
  commitment: Hex32,
  sessionPubkey: Type.String(),
});

export const SweeperPrepareResponse = Type.Object({
  betPayload: BetPayload,
  betPayloadHash: Hex32,
  sweeperParams: Loose('the turn parameters and what is at stake'),
});

export const SweeperCommitBody = Type.Object({
  betPayload: BetPayload,
  betPayloadHash: Hex32,
  sweeperParams: Type.Optional(Type.Unknown()),
  sessionSignature: Type.String(),
});

export const SweeperCommitResponse = Type.Object({ ...CommitResponse.properties, ticket: Nullable(Ticket) });

export const SweeperRevealResponse = Type.Object({
  betPayloadHash: Hex32,
  ticketId: Type.String(),
  turn: Type.Object({
    kind: Type.String(),
    row: Nullable(Type.Integer()),
    choiceColumn: Nullable(Type.Integer()),
    mineColumn: Nullable(Type.Integer()),
    safe: Nullable(Type.Boolean()),
    rngIndex: Type.Integer(),
    rngReveal: Nullable(Hex32),
  }),
  ack: Ack,
  ticket: Ticket,
  receiptId: Nullable(Type.String()),
  betLogEntry: Nullable(Loose("the ticket's bet-log entry, once it ended")),
  betLogEntryHash: Nullable(Hex32),
  player: PlayerView,
});

export const SweeperSession = Type.Object({
  balance: Type.Number(),
  nonce: Type.Integer(),
  serverSeedHash: Nullable(Hex32),
  activeTicket: Nullable(Ticket),
  recentTickets: Type.Array(Loose('a settled ticket')),
});

export const TicketResponse = Type.Object({ ticket: Ticket });
