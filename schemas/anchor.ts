// Bet-log anchoring reads: commits, consistency proofs, log entries, and the player's state proof.
import { Type } from 'typebox';
import { Base58Address, Hex32, PageLimit, QueryInt, Timestamp } from './common.ts';

const Micro = Type.String({ pattern: '^(0|[1-9][0-9]{0,19})$', description: 'micro-USDC, decimal string' });
const Index = (description: string) => Type.Integer({ minimum: 0, description });

export const Commit = Type.Object({
  commitId: Type.String({ description: 'commit-<entryCount>' }),
  entryCount: Type.Integer({ minimum: 1, description: 'bet-log size this commit anchors' }),
  previousEntryCount: Index('size of the commit before (0 for the first)'),
  betLogRoot: { ...Hex32, description: 'RFC 6962 root of the first entryCount entries' },
  stateRoot: { ...Hex32, description: 'Merkle-sum root of the liabilities (epoch = entryCount)' },
  totalLiabilities: { ...Micro, description: 'root sum of the state tree, micro-USDC' },
  rngIndex: Index('highest RNG index disclosed to its player when the commit was built (0: none)'),
  rngReveal: { ...Hex32, description: 's_rngIndex (the chain head when rngIndex is 0)' },
  manifestHash: { ...Hex32, description: 'latest journal manifest then (64 zeros before the first)' },
  memo: Type.String({ description: 'the memo text, signed on-chain by the anchor key alone' }),
  signature: Type.String({ description: 'transaction signature of the memo' }),
  slot: Type.Integer(),
  committedAt: Timestamp,
  transactionUrl: Type.String(),
  explorerUrl: Type.String({ description: "the anchor key's account" }),
});

export const CommitsQuery = Type.Object({
  afterEntryCount: Type.Optional(QueryInt({ minimum: 0, default: 0, description: 'list commits of larger sizes' })),
  limit: PageLimit,
});

export const CommitsResponse = Type.Object({
  commits: Type.Array(Commit),
  committedSize: Index('entryCount of the latest commit'),
  nextAfterEntryCount: Type.Union([Type.Integer(), Type.Null()], { description: 'pass as afterEntryCount for the next page; null at the end' }),
});

export const ConsistencyQuery = Type.Object({
  from: QueryInt({ minimum: 1, description: 'a committed size' }),
  to: QueryInt({ minimum: 1, description: 'a committed size, at least from' }),
});

export const ConsistencyResponse = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  fromRoot: Hex32,
  toRoot: Hex32,
  proof: Type.Array(Hex32, { description: 'RFC 9162 consistency proof, bottom-up' }),
});

export const EntriesQuery = Type.Object({
  from: Type.Optional(QueryInt({ minimum: 0, default: 0, description: 'first entry index' })),
  limit: PageLimit,
});

export const EntriesResponse = Type.Object({
  entries: Type.Array(Type.Object({ index: Index('position in the log'), leafHash: Hex32, receiptId: Type.String() })),
  size: Index('entries settled so far'),
  committedSize: Index('entries anchored on-chain so far'),
});

export const StateProofResponse = Type.Object({
  wallet: Base58Address,
  epoch: Type.Integer({ description: 'state-tree epoch; equals entryCount' }),
  entryCount: Type.Integer(),
  commitId: Type.String(),
  commitSignature: Type.String(),
  stateRoot: Hex32,
  totalLiabilities: Micro,
  salt: { ...Hex32, description: 'HMAC-derived, per wallet and epoch; id = sha256(wallet ‖ salt)' },
  leaf: Type.Object({ id: Hex32, liability: Micro }),
  proof: Type.Object(
    {
      id: Hex32,
      liability: Micro,
      index: Type.Integer({ minimum: 0 }),
      count: Type.Integer({ minimum: 1 }),
      proof: Type.Array(Type.Object({ hash: Hex32, sum: Micro })),
    },
    { description: 'Merkle-sum proof, siblings bottom-up (protocol/state-tree.ts)' },
  ),
});
