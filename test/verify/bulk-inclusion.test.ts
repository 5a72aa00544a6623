// A bulk audit checks a tile's inclusion proofs through one NodeMemo: the memoized walk must give exactly
// the verdict (and reason) of the plain one, for honest proofs and for every kind of tampering.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inclusionProof, leafHash, proofToHex, rootFromLeafHashes, subtreeFromLeafHashes } from '../../protocol/merkle.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';
import { NodeMemo, verifyInclusionHex } from '../../protocol/verify/proofs.ts';

function tree(size: number) {
  const leaves = Array.from({ length: size }, (_, i) => leafHash(utf8(`entry ${i}`)));
  const subtree = subtreeFromLeafHashes(leaves);
  return { leaves, root: toHex(rootFromLeafHashes(leaves)), proof: (i: number) => proofToHex(inclusionProof(i, size, subtree)) };
}

const flip = (hex: string, at: number): string => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);

describe('inclusion proofs through a node memo', () => {
  it('verifies every leaf of trees of many sizes, hashing shared nodes once', () => {
    for (const size of [1, 2, 3, 7, 8, 255, 256, 257, 1000]) {
      const t = tree(size);
      const memo = new NodeMemo();
      for (let i = 0; i < size; i++) expect(verifyInclusionHex(toHex(t.leaves[i]!), i, size, t.proof(i), t.root, memo)).toEqual({ ok: true });
    }
  });

  it('agrees with the plain walk on tampered proofs, leaves, indices, sizes and roots', () => {
    const t = tree(300);
    const memo = new NodeMemo(64);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 299 }),
        fc.constantFrom('none', 'leaf', 'proof', 'drop', 'extra', 'index', 'size', 'root', 'upper', 'short-root', 'not-array'),
        fc.nat(),
        (i, tamper, n) => {
          let leaf = toHex(t.leaves[i]!);
          let proof: unknown[] = t.proof(i);
          let index = i;
          let size = 300;
          let root = t.root;
          if (tamper === 'leaf') leaf = flip(leaf, n % 64);
          if (tamper === 'proof' && proof.length) proof[n % proof.length] = flip(proof[n % proof.length] as string, n % 64);
          if (tamper === 'drop') proof = proof.slice(1);
          if (tamper === 'extra') proof = [...proof, t.root];
          if (tamper === 'index') index = (i + 1 + (n % 299)) % 300;
          if (tamper === 'size') size = 300 + 1 + (n % 5);
          if (tamper === 'root') root = flip(root, n % 64);
          if (tamper === 'upper' && proof.length) proof[0] = (proof[0] as string).toUpperCase();
          if (tamper === 'short-root') root = root.slice(2);
          if (tamper === 'not-array') proof = { 0: proof[0] } as unknown as unknown[];
          const plain = verifyInclusionHex(leaf, index, size, proof, root);
          expect(verifyInclusionHex(leaf, index, size, proof, root, memo)).toEqual(plain);
          // A proof may also fit a slightly different index or size (RFC 9162 binds the path, not the size).
          if (tamper !== 'index' && tamper !== 'size') expect(plain.ok).toBe(tamper === 'none');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('in log order, as an audit walks them: a proof that differs from its neighbour at any one step fails there', () => {
    // Neighbours hash the same children from the step where their paths meet; each node a step gave is kept for
    // the next proof's same step, so every step of a tampered proof must still be told apart from its neighbour's.
    const t = tree(300);
    const memo = new NodeMemo();
    for (let i = 0; i < 300; i++) {
      const leaf = toHex(t.leaves[i]!);
      const proof = t.proof(i);
      expect(verifyInclusionHex(leaf, i, 300, proof, t.root, memo)).toEqual({ ok: true });
      for (let step = 0; step < proof.length; step++) {
        const tampered = proof.map((p, k) => (k === step ? flip(p, (i + step) % 64) : p));
        expect(verifyInclusionHex(leaf, i, 300, tampered, t.root, memo).ok).toBe(false);
      }
      expect(verifyInclusionHex(leaf, i, 300, proof, t.root, memo)).toEqual({ ok: true });
    }
  });

  it('stays bounded: a full memo starts over rather than growing', () => {
    const t = tree(64);
    const memo = new NodeMemo(8);
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 64; i++) expect(verifyInclusionHex(toHex(t.leaves[i]!), i, 64, t.proof(i), t.root, memo).ok).toBe(true);
  });
});
