// Bet-log anchoring reads: commits, consistency proofs, log entries, and the player's state proof.
import { Type } from 'typebox';
import { Base58Address, Hex32, MicroString as Micro, PageLimit, QueryInt, Timestamp } from './common.ts';
import * as EX from './examples.ts';

const Index = (description: string) => Type.Integer({ minimum: 0, description });

export const Commit = Type.Object(
  {
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
    slot: Type.Integer({ description: 'slot of that transaction' }),
    committedAt: { ...Timestamp, description: 'when it was confirmed' },
    transactionUrl: Type.String({ description: 'the transaction in the block explorer' }),
    explorerUrl: Type.String({ description: "the anchor key's account" }),
  },
  { description: 'one anchored commit' },
);

export const CommitsQuery = Type.Object({
  afterEntryCount: Type.Optional(QueryInt({ minimum: 0, default: 0, description: 'list commits of larger sizes', examples: [0] })),
  limit: PageLimit,
});

export const CommitsResponse = Type.Object(
  {
    commits: Type.Array(Commit, { description: 'commits, oldest first' }),
    committedSize: Index('entryCount of the latest commit'),
    nextAfterEntryCount: Type.Union([Type.Integer(), Type.Null()], { description: 'pass as afterEntryCount for the next page; null at the end' }),
  },
  { description: 'Anchored commits', examples: [EX.commits] },
);

export const ConsistencyQuery = Type.Object({
  from: QueryInt({ minimum: 1, description: 'a committed size', examples: [EX.consistency.from] }),
  to: QueryInt({ minimum: 1, description: 'a committed size, at least from', examples: [EX.consistency.to] }),
});

export const ConsistencyResponse = Type.Object(
  {
    from: Type.Integer({ description: 'the smaller size' }),
    to: Type.Integer({ description: 'the larger size' }),
    fromRoot: { ...Hex32, description: 'the root committed at from' },
    toRoot: { ...Hex32, description: 'the root committed at to' },
    proof: Type.Array(Hex32, { description: 'RFC 9162 consistency proof, bottom-up' }),
  },
  { description: 'The consistency proof', examples: [EX.consistency] },
);

export const EntriesQuery = Type.Object({
  from: Type.Optional(QueryInt({ minimum: 0, default: 0, description: 'first entry index', examples: [0] })),
  limit: PageLimit,
});

export const EntriesResponse = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          index: Index('position in the log'),
          leafHash: { ...Hex32, description: 'sha256(0x00 ‖ JCS(entry))' },
          receiptId: Type.String({ description: 'its receipt' }),
        },
        { description: 'one entry' },
      ),
      { description: 'entries by index' },
    ),
    size: Index('entries settled so far'),
    committedSize: Index('entries anchored on-chain so far'),
  },
  { description: 'Bet-log entries', examples: [EX.entries] },
);

export const StateProofResponse = Type.Object(
  {
    wallet: { ...Base58Address, description: 'the wallet' },
    epoch: Type.Integer({ description: 'state-tree epoch; equals entryCount' }),
    entryCount: Type.Integer({ description: 'the commit the proof is under' }),
    commitId: Type.String({ description: 'commit-<entryCount>' }),
    commitSignature: Type.String({ description: 'the commit transaction' }),
    stateRoot: { ...Hex32, description: 'the committed Merkle-sum root' },
    totalLiabilities: { ...Micro, description: 'its root sum, micro-USDC' },
    salt: { ...Hex32, description: 'HMAC-derived, per wallet and epoch; id = sha256(wallet ‖ salt)' },
    leaf: Type.Object(
      { id: { ...Hex32, description: 'sha256(wallet ‖ salt)' }, liability: { ...Micro, description: 'your liability, micro-USDC' } },
      { description: 'your leaf' },
    ),
    proof: Type.Object(
      {
        id: { ...Hex32, description: 'the leaf id' },
        liability: { ...Micro, description: 'the leaf liability' },
        index: Type.Integer({ minimum: 0, description: 'the leaf position (leaves sorted by id)' }),
        count: Type.Integer({ minimum: 1, description: 'leaves in the tree' }),
        proof: Type.Array(
          Type.Object({ hash: { ...Hex32, description: 'sibling hash' }, sum: { ...Micro, description: 'sibling sum' } }, { description: 'one sibling' }),
          { description: 'siblings, bottom-up' },
        ),
      },
      { description: 'Merkle-sum proof, siblings bottom-up (protocol/state-tree.ts)' },
    ),
  },
  { description: 'Your leaf in the committed liabilities tree', examples: [EX.stateProof] },
);
