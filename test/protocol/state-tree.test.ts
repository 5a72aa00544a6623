import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildStateTree,
  decodeStateProof,
  encodeStateProof,
  isStateProofValid,
  stateLeafHash,
  stateLeafId,
  stateNodeHash,
  verifyStateProof,
  type StateLeaf,
  type StateNode,
  type StateProof,
} from '../../protocol/state-tree.ts';
import { toHex } from '../../protocol/encoding.ts';

const U64_MAX = (1n << 64n) - 1n;

/** Independent sha256 over hex-spelled byte strings, so the pinned format is spelled out in the test. */
const sha = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const u64 = (n: bigint): string => n.toString(16).padStart(16, '0');
const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));

const idOf = (i: number): Uint8Array => bytes(sha(i.toString(16).padStart(8, '0')));

/** Reference: recursive RFC 6962 split over leaves sorted by id, returning [hashHex, sum]. */
function refTree(leaves: StateLeaf[]): [string, bigint] {
  const sorted = [...leaves].sort((a, b) => Buffer.compare(a.id, b.id));
  const go = (ls: StateLeaf[]): [string, bigint] => {
    if (ls.length === 1) {
      const l = ls[0] as StateLeaf;
      return [sha(`00${toHex(l.id)}${u64(l.liability)}`), l.liability];
    }
    const k = 2 ** Math.ceil(Math.log2(ls.length) - 1);
    const [hl, sl] = go(ls.slice(0, k));
    const [hr, sr] = go(ls.slice(k));
    return [sha(`01${u64(sl)}${u64(sr)}${hl}${hr}`), sl + sr];
  };
  return sorted.length === 0 ? [sha(''), 0n] : go(sorted);
}

const check = (tree: ReturnType<typeof buildStateTree>, p: StateProof) => verifyStateProof({ ...p, root: tree.root, total: tree.total });

describe('state tree byte format (hand-computed)', () => {
  const a = bytes('11'.repeat(32));
  const b = bytes('22'.repeat(32));
  const c = bytes('33'.repeat(32));

  it('id = sha256(wallet ‖ salt)', () => {
    const wallet = bytes('ab'.repeat(32));
    const salt = bytes('cd'.repeat(32));
    expect(toHex(stateLeafId(wallet, salt))).toBe(sha('ab'.repeat(32) + 'cd'.repeat(32)));
    expect(() => stateLeafId(wallet.subarray(1), salt)).toThrow(TypeError);
    expect(() => stateLeafId(wallet, new Uint8Array(16))).toThrow(TypeError);
  });

  it('empty tree: sha256("") and total 0', () => {
    const tree = buildStateTree([]);
    expect(toHex(tree.root)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(tree.total).toBe(0n);
    expect(() => tree.proof(a)).toThrow(RangeError);
  });

  it('one leaf: root = sha256(0x00 ‖ id ‖ u64be(liability))', () => {
    const tree = buildStateTree([{ id: a, liability: 1_000_000n }]);
    expect(toHex(tree.root)).toBe(sha(`00${'11'.repeat(32)}00000000000f4240`));
    expect(tree.total).toBe(1_000_000n);
    const p = tree.proof(a);
    expect(p).toMatchObject({ index: 0, count: 1, proof: [] });
    expect(check(tree, p)).toEqual({ ok: true });
  });

  it('three leaves given out of order: sorted by id, left subtree of two', () => {
    const tree = buildStateTree([
      { id: c, liability: 7n },
      { id: a, liability: 5n },
      { id: b, liability: 0n },
    ]);
    const la = sha(`00${'11'.repeat(32)}0000000000000005`);
    const lb = sha(`00${'22'.repeat(32)}0000000000000000`);
    const lc = sha(`00${'33'.repeat(32)}0000000000000007`);
    const ab = sha(`0100000000000000050000000000000000${la}${lb}`);
    const root = sha(`0100000000000000050000000000000007${ab}${lc}`);
    expect(toHex(tree.root)).toBe(root);
    expect(tree.total).toBe(12n);
    expect(tree.leaves.map((l) => toHex(l.id).slice(0, 2))).toEqual(['11', '22', '33']);

    const pb = tree.proof(b);
    expect(pb.index).toBe(1);
    expect(pb.proof.map((s) => [toHex(s.hash), s.sum])).toEqual([
      [la, 5n],
      [lc, 7n],
    ]);
    const pc = tree.proof(c);
    expect(pc.index).toBe(2);
    expect(pc.proof.map((s) => [toHex(s.hash), s.sum])).toEqual([[ab, 5n]]);
    for (const id of [a, b, c]) expect(check(tree, tree.proof(id))).toEqual({ ok: true });
  });

  it('stateNodeHash carries the sum and refuses overflow', () => {
    const l: StateNode = { hash: bytes('aa'.repeat(32)), sum: U64_MAX - 1n };
    const r: StateNode = { hash: bytes('bb'.repeat(32)), sum: 1n };
    expect(stateNodeHash(l, r).sum).toBe(U64_MAX);
    expect(toHex(stateNodeHash(l, r).hash)).toBe(sha(`01${u64(U64_MAX - 1n)}${u64(1n)}${'aa'.repeat(32)}${'bb'.repeat(32)}`));
    expect(() => stateNodeHash(l, { ...r, sum: 2n })).toThrow(RangeError);
    expect(() => stateNodeHash(l, { ...r, sum: -1n })).toThrow(RangeError);
    expect(() => stateLeafHash(a, -1n)).toThrow(RangeError);
    expect(() => stateLeafHash(a, 1n << 64n)).toThrow(RangeError);
  });
});

describe('building rejects bad input', () => {
  it('negative or oversized liabilities, overflowing totals, duplicate or malformed ids', () => {
    expect(() => buildStateTree([{ id: idOf(1), liability: -1n }])).toThrow(RangeError);
    expect(() => buildStateTree([{ id: idOf(1), liability: 1n << 64n }])).toThrow(RangeError);
    expect(() => buildStateTree([{ id: idOf(1), liability: 1 as unknown as bigint }])).toThrow(RangeError);
    expect(() =>
      buildStateTree([
        { id: idOf(1), liability: U64_MAX },
        { id: idOf(2), liability: 1n },
      ]),
    ).toThrow(RangeError);
    expect(() =>
      buildStateTree([
        { id: idOf(1), liability: 1n },
        { id: idOf(1), liability: 2n },
      ]),
    ).toThrow(/duplicate/);
    expect(() => buildStateTree([{ id: new Uint8Array(31), liability: 1n }])).toThrow(TypeError);
  });

  it('does not depend on input order and does not alias caller arrays', () => {
    const ls = Array.from({ length: 9 }, (_, i) => ({ id: idOf(i), liability: BigInt(i * 10) }));
    const t1 = buildStateTree(ls);
    const t2 = buildStateTree([...ls].reverse());
    expect(t1.root).toEqual(t2.root);
    (ls[0] as StateLeaf).id.fill(0);
    expect(t1.root).toEqual(t2.root);
    expect(check(t1, t1.proof(idOf(0)))).toEqual({ ok: true });
  });
});

describe('verification rejects tampering', () => {
  const leaves = Array.from({ length: 11 }, (_, i) => ({ id: idOf(i), liability: BigInt(1000 + i) }));
  const tree = buildStateTree(leaves);

  it('every leaf verifies; each single change is rejected', () => {
    for (const leaf of tree.leaves) {
      const p = tree.proof(leaf.id);
      expect(check(tree, p)).toEqual({ ok: true });
      const base = { ...p, root: tree.root, total: tree.total };
      for (let j = 0; j < p.proof.length; j++) {
        const sib = p.proof[j] as StateNode;
        const withSibling = (s: StateNode) => p.proof.map((x, at) => (at === j ? s : x));
        expect(isStateProofValid({ ...base, proof: withSibling({ ...sib, sum: sib.sum + 1n }) })).toBe(false);
        if (sib.sum > 0n) expect(isStateProofValid({ ...base, proof: withSibling({ ...sib, sum: sib.sum - 1n }) })).toBe(false);
        expect(verifyStateProof({ ...base, proof: withSibling({ ...sib, sum: -1n }) })).toMatchObject({ ok: false, reason: expect.stringMatching(/sum/) });
        const flipped = sib.hash.slice();
        flipped[3] = (flipped[3] as number) ^ 1;
        expect(isStateProofValid({ ...base, proof: withSibling({ ...sib, hash: flipped }) })).toBe(false);
      }
      for (let j = 0; j < tree.leaves.length; j++) if (j !== p.index) expect(isStateProofValid({ ...base, index: j })).toBe(false);
      for (const count of [p.index, p.count * 2, 0]) expect(isStateProofValid({ ...base, count })).toBe(false);
      expect(isStateProofValid({ ...base, total: tree.total + 1n })).toBe(false);
      expect(isStateProofValid({ ...base, total: tree.total - 1n })).toBe(false);
      expect(isStateProofValid({ ...base, liability: p.liability + 1n })).toBe(false);
      expect(isStateProofValid({ ...base, liability: -p.liability })).toBe(false);
      expect(isStateProofValid({ ...base, id: idOf(99) })).toBe(false);
      expect(isStateProofValid({ ...base, proof: p.proof.slice(1) })).toBe(false);
      expect(isStateProofValid({ ...base, proof: [...p.proof, { hash: tree.root, sum: 0n }] })).toBe(false);
    }
  });

  it('like an RFC 9162 tree size, count is bound only through the path shape it implies', () => {
    // Leaves 0..7 of an 11-leaf tree have the same path for any count in 9..16; the root and total
    // still pin every liability, so only the reported count differs.
    const p = tree.proof((tree.leaves[0] as StateLeaf).id);
    const base = { ...p, root: tree.root, total: tree.total };
    expect(isStateProofValid({ ...base, count: 12 })).toBe(true);
    expect(isStateProofValid({ ...base, count: 8 })).toBe(false);
    expect(isStateProofValid({ ...base, count: 17 })).toBe(false);
  });

  it('malformed inputs give a reason instead of throwing', () => {
    const p = tree.proof(idOf(3));
    const base = { ...p, root: tree.root, total: tree.total };
    const bad: Record<string, unknown>[] = [
      { index: -1 },
      { index: 1.5 },
      { index: p.count },
      { count: Number.NaN },
      { total: -1n },
      { total: 1n << 64n },
      { root: tree.root.subarray(1) },
      { id: 'x' },
      { proof: null },
      { proof: [null] },
      { proof: [{ hash: new Uint8Array(32) }] },
      { proof: Array.from({ length: 100 }, () => ({ hash: new Uint8Array(32), sum: 0n })) },
    ];
    for (const patch of bad) {
      const r = verifyStateProof({ ...base, ...patch } as typeof base);
      expect(r.ok, JSON.stringify(Object.keys(patch))).toBe(false);
    }
  });

  it('an overflowing path is rejected, not thrown', () => {
    const small = buildStateTree([
      { id: idOf(1), liability: 5n },
      { id: idOf(2), liability: 6n },
    ]);
    const p = small.proof(idOf(1));
    const forged = { ...p, proof: [{ hash: (p.proof[0] as StateNode).hash, sum: U64_MAX }], root: small.root, total: small.total };
    expect(verifyStateProof(forged)).toMatchObject({ ok: false, reason: 'sum overflows u64' });
  });
});

describe('JSON encoding', () => {
  const tree = buildStateTree(Array.from({ length: 6 }, (_, i) => ({ id: idOf(i), liability: BigInt(i) * 123_456_789n })));
  const p = tree.proof(idOf(4));

  it('round-trips through JSON text', () => {
    const json = JSON.parse(JSON.stringify(encodeStateProof(p))) as unknown;
    expect(json).toEqual({
      id: toHex(p.id),
      liability: '493827156',
      index: p.index,
      count: 6,
      proof: p.proof.map((s) => ({ hash: toHex(s.hash), sum: s.sum.toString() })),
    });
    const back = decodeStateProof(json);
    expect(back).toEqual(p);
    expect(check(tree, back)).toEqual({ ok: true });
    const max = encodeStateProof({ ...p, liability: U64_MAX });
    expect(decodeStateProof(max).liability).toBe(U64_MAX);
  });

  it('rejects malformed JSON proofs', () => {
    const good = encodeStateProof(p);
    const sib = good.proof[0] as { hash: string; sum: string };
    const variants: unknown[] = [
      null,
      'x',
      { ...good, id: good.id.toUpperCase() },
      { ...good, id: good.id.slice(2) },
      { ...good, liability: 5 },
      { ...good, liability: '-5' },
      { ...good, liability: '05' },
      { ...good, liability: '1e3' },
      { ...good, liability: ' 5' },
      { ...good, liability: (1n << 64n).toString() },
      { ...good, liability: '9'.repeat(400) },
      { ...good, index: -1 },
      { ...good, index: '1' },
      { ...good, index: 2 ** 53 },
      { ...good, count: 0 },
      { ...good, proof: 'x' },
      { ...good, proof: [null] },
      { ...good, proof: [{ ...sib, sum: 3 }] },
      { ...good, proof: [{ ...sib, sum: '-1' }] },
      { ...good, proof: [{ ...sib, hash: 'zz'.repeat(32) }] },
      { ...good, proof: Array.from({ length: 67 }, () => sib) },
    ];
    for (const v of variants) expect(() => decodeStateProof(v), JSON.stringify(v)?.slice(0, 80)).toThrow(TypeError);
  });
});

describe('state tree properties (fast-check)', () => {
  const leafArb = fc.record({
    id: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    liability: fc.bigInt({ min: 0n, max: 2n ** 56n }),
  });

  it('matches the recursive reference, and every leaf proves against root and total', () => {
    fc.assert(
      fc.property(fc.uniqueArray(leafArb, { maxLength: 70, selector: (l) => toHex(l.id) }), (leaves) => {
        const tree = buildStateTree(leaves);
        const [root, total] = refTree(leaves);
        expect(toHex(tree.root)).toBe(root);
        expect(tree.total).toBe(total);
        expect(tree.total).toBe(leaves.reduce((s, l) => s + l.liability, 0n));
        for (const leaf of leaves) {
          const p = tree.proof(leaf.id);
          expect(p.liability).toBe(leaf.liability);
          expect(check(tree, decodeStateProof(JSON.parse(JSON.stringify(encodeStateProof(p)))))).toEqual({ ok: true });
        }
      }),
      { numRuns: 80 },
    );
  });

  it('a leaf cannot claim a smaller liability or another position', () => {
    fc.assert(
      fc.property(fc.uniqueArray(leafArb, { minLength: 2, maxLength: 40, selector: (l) => toHex(l.id) }), fc.nat(), fc.nat(), (leaves, a, b) => {
        const tree = buildStateTree(leaves);
        const leaf = tree.leaves[a % leaves.length] as StateLeaf;
        const p = tree.proof(leaf.id);
        const j = b % leaves.length;
        expect(isStateProofValid({ ...p, index: j, root: tree.root, total: tree.total })).toBe(j === p.index);
        if (leaf.liability > 0n) {
          const cheaper = { ...p, liability: leaf.liability - 1n, root: tree.root, total: tree.total - 1n };
          expect(isStateProofValid(cheaper)).toBe(false);
        }
      }),
      { numRuns: 100 },
    );
  });
});
