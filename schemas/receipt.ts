// Receipts (contract "Receipt") with the anchor object.
import { Type } from 'typebox';
import { Hex32, Timestamp } from './common.ts';
import { Loose } from './bets.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const Anchor = Type.Object({
  status: Type.String({ description: 'pending_commit until the bet log is anchored on-chain, then committed' }),
  commitId: Type.String(),
  commitSignature: Nullable(Type.String()),
  commitTransactionUrl: Nullable(Type.String()),
  commitAccount: Nullable(Type.String()),
  commitExplorerUrl: Nullable(Type.String()),
  betLogEntryHash: Hex32,
  betLogRoot: Nullable(Hex32),
  betLogIndex: Nullable(Type.Integer()),
  betLogProof: Type.Array(Hex32),
  entryCount: Nullable(Type.Integer()),
  stateRoot: Nullable(Hex32),
});

export const Receipt = Type.Object({
  id: Type.String(),
  receiptId: Type.String(),
  game: Type.String(),
  gameId: Type.String(),
  player: Type.String(),
  actorAlias: Type.String(),
  source: Type.String(),
  betAmount: Type.Number(),
  payout: Type.Number(),
  profit: Type.Number(),
  status: Type.String({ description: 'won, lost, forfeited, or expired (an idle Sweeper ticket closed before any row: stake returned)' }),
  closedBy: Type.Optional(Type.Literal('idle', { description: 'a Sweeper ticket closed by the deadline worker after TICKET_IDLE_MS' })),
  input: Loose("the play's inputs"),
  result: Loose('the outcome'),
  proof: Loose('hashes, RNG index and reveal'),
  verifierPayload: Loose('everything a verifier needs besides on-chain data'),
  anchor: Anchor,
  createdAt: Timestamp,
});

export const ReceiptResponse = Type.Object({ receipt: Receipt });
