// What the anchor worker writes into each committed receipt: the text JSON.stringify gives its ReceiptAnchor, and the
// RFC 9162 inclusion proof the log gives, whichever receipts a batch covers and in whatever order they are asked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { committedAnchorJson, proofsAt, type CommitAnchorFields } from '../../anchor-worker/anchor.ts';
import { MerkleLog } from '../../protocol/merkle-log.ts';
import { leafHash, proofToHex } from '../../protocol/merkle.ts';
import { utf8 } from '../../protocol/encoding.ts';
import type { ReceiptAnchor } from '../../protocol/receipt.ts';

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const text = fc.string({ unit: 'binary' });

describe('committedAnchorJson', () => {
  it("gives JSON.stringify's text of the whole anchor, for any fields", () => {
    const fixed = fc.record({
      status: fc.constantFrom('committed' as const, 'pending_commit' as const),
      commitId: text,
      commitSignature: fc.option(text),
      commitTransactionUrl: fc.option(text),
      commitAccount: fc.option(text),
      commitExplorerUrl: fc.option(text),
      betLogRoot: fc.option(hex),
      entryCount: fc.option(fc.nat()),
      stateRoot: fc.option(hex),
    });
    fc.assert(
      fc.property(fixed, text, fc.nat(), fc.array(hex, { maxLength: 40 }), (f: CommitAnchorFields, leaf, index, proof) => {
        const anchor: ReceiptAnchor = {
          status: f.status,
          commitId: f.commitId,
          commitSignature: f.commitSignature,
          commitTransactionUrl: f.commitTransactionUrl,
          commitAccount: f.commitAccount,
          commitExplorerUrl: f.commitExplorerUrl,
          betLogEntryHash: leaf,
          betLogRoot: f.betLogRoot,
          betLogIndex: index,
          betLogProof: proof,
          entryCount: f.entryCount,
          stateRoot: f.stateRoot,
        };
        expect(committedAnchorJson(f)(leaf, index, proof)).toBe(JSON.stringify(anchor));
      }),
    );
  });

  it('refuses a proof hash JSON would have to escape, and an index that is no safe integer', () => {
    const write = committedAnchorJson({
      status: 'committed',
      commitId: 'c',
      commitSignature: null,
      commitTransactionUrl: null,
      commitAccount: null,
      commitExplorerUrl: null,
      betLogRoot: null,
      entryCount: 1,
      stateRoot: null,
    });
    expect(() => write('00', 0, ['ab"cd'])).toThrow(RangeError);
    expect(() => write('00', 0.5, [])).toThrow(RangeError);
  });
});

describe('proofsAt', () => {
  it("gives the log's own proof of every index, at every size, asked in any order", () => {
    const log = new MerkleLog();
    log.append(Array.from({ length: 130 }, (_, i) => leafHash(utf8(`entry ${i}`))));
    for (let size = 1; size <= 130; size++) {
      const proofOf = proofsAt(log, size);
      const order = Array.from({ length: size }, (_, i) => (i * 37) % size);
      for (const index of [...order, ...order]) expect(proofOf(index)).toEqual(proofToHex(log.inclusionProof(index, size)));
    }
  });
});
