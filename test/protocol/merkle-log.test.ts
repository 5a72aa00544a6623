import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MerkleTree } from 'merkletreejs';
import { MemoryNodeStore, MerkleLog, type MerkleNode, type MerkleNodeStore } from '../../protocol/merkle-log.ts';
import { EMPTY_ROOT, isConsistencyValid, isInclusionValid, leafHash, rootFromLeafHashes, verifyConsistency, verifyInclusion } from '../../protocol/merkle.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';

const sha = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** Naive recursive RFC 6962 definitions over a fixed leaf array, memoised per range. */
function naive(d: Uint8Array[]) {
  const memo = new Map<string, Uint8Array>();
  const split = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);
  const mth = (lo: number, hi: number): Uint8Array => {
    if (hi === lo) return sha();
    if (hi - lo === 1) return d[lo] as Uint8Array;
    const key = `${lo}:${hi}`;
    let h = memo.get(key);
    if (h === undefined) {
      const k = split(hi - lo);
      h = sha(Uint8Array.of(1), mth(lo, lo + k), mth(lo + k, hi));
      memo.set(key, h);
    }
    return h;
  };
  const path = (m: number, lo: number, hi: number): Uint8Array[] => {
    if (hi - lo === 1) return [];
    const k = split(hi - lo);
    return m < k ? [...path(m, lo, lo + k), mth(lo + k, hi)] : [...path(m - k, lo + k, hi), mth(lo, lo + k)];
  };
  const subproof = (m: number, lo: number, hi: number, b: boolean): Uint8Array[] => {
    if (m === hi - lo) return b ? [] : [mth(lo, hi)];
    const k = split(hi - lo);
    return m <= k ? [...subproof(m, lo, lo + k, b), mth(lo + k, hi)] : [...subproof(m - k, lo + k, hi, false), mth(lo, lo + k)];
  };
  return {
    root: (n: number) => mth(0, n),
    inclusion: (i: number, n: number) => path(i, 0, n),
    consistency: (m: number, n: number) => (m === n ? [] : subproof(m, 0, n, true)),
  };
}

const leaves = (n: number, tag = 'bet'): Uint8Array[] => Array.from({ length: n }, (_, i) => leafHash(utf8(`${tag} ${i}`)));
const hexes = (xs: Uint8Array[]): string[] => xs.map((x) => toHex(x));

describe('MerkleLog against the naive recursive definitions', () => {
  const N = 100;
  const d = leaves(N);
  const ref = naive(d);
  const log = new MerkleLog();
  for (const h of d) log.append([h]);

  it('roots of every size 0..100', () => {
    expect(log.size).toBe(N);
    expect(log.root(0)).toEqual(new Uint8Array(EMPTY_ROOT));
    for (let n = 0; n <= N; n++) expect(toHex(log.root(n))).toBe(toHex(ref.root(n)));
    expect(toHex(log.root())).toBe(toHex(rootFromLeafHashes(d)));
  });

  it('inclusion proofs of every index at every size, which verify', () => {
    for (let n = 1; n <= N; n++) {
      const root = log.root(n);
      for (let i = 0; i < n; i++) {
        const proof = log.inclusionProof(i, n);
        expect(hexes(proof)).toEqual(hexes(ref.inclusion(i, n)));
        expect(verifyInclusion(d[i] as Uint8Array, i, n, proof, root)).toEqual({ ok: true });
      }
    }
  });

  it('consistency proofs between every pair of sizes, which verify', () => {
    for (let n = 1; n <= N; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = log.consistencyProof(m, n);
        expect(hexes(proof)).toEqual(hexes(ref.consistency(m, n)));
        expect(verifyConsistency(m, n, proof, log.root(m), log.root(n))).toEqual({ ok: true });
      }
    }
  });

  it('agrees with merkletreejs (used only as a builder, proofs by index)', () => {
    for (const n of [1, 2, 3, 7, 8, 9, 31, 64, 65, 70, 100]) {
      const tree = new MerkleTree(
        d.slice(0, n).map((x) => Buffer.from(x)),
        (data: Buffer) => createHash('sha256').update(data).digest(),
        { concatenator: (parts: Buffer[]) => Buffer.concat([Buffer.of(1), ...parts]) },
      );
      expect(toHex(log.root(n))).toBe(tree.getRoot().toString('hex'));
      for (let i = 0; i < n; i++) {
        const theirs = tree.getProof(Buffer.from(d[i] as Uint8Array), i).map((p) => p.data.toString('hex'));
        expect(hexes(log.inclusionProof(i, n))).toEqual(theirs);
      }
    }
  });

  it('subtreeHash works for any range, aligned or not', () => {
    for (let lo = 0; lo < 40; lo++) {
      for (let hi = lo + 1; hi <= 45; hi++) {
        expect(toHex(log.subtreeHash(lo, hi))).toBe(toHex(rootFromLeafHashes(d.slice(lo, hi))));
      }
    }
  });

  it('leafHash and bounds checks', () => {
    expect(log.leafHash(42)).toEqual(d[42]);
    expect(() => log.leafHash(N)).toThrow(RangeError);
    expect(() => log.root(N + 1)).toThrow(RangeError);
    expect(() => log.root(-1)).toThrow(RangeError);
    expect(() => log.inclusionProof(5, 5)).toThrow(RangeError);
    expect(() => log.inclusionProof(0, N + 1)).toThrow(RangeError);
    expect(() => log.consistencyProof(0, 5)).toThrow(RangeError);
    expect(() => log.consistencyProof(6, 5)).toThrow(RangeError);
    expect(() => log.consistencyProof(1, N + 1)).toThrow(RangeError);
    expect(() => log.subtreeHash(3, 3)).toThrow(RangeError);
    expect(() => log.subtreeHash(0, N + 1)).toThrow(RangeError);
  });
});

describe('MerkleLog append and storage', () => {
  it('reports the created nodes: every leaf and each parent it completes', () => {
    const log = new MerkleLog();
    const d = leaves(4);
    const created = log.append(d);
    expect(created.map(({ level, index }) => [level, index])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [0, 2],
      [0, 3],
      [1, 1],
      [2, 0],
    ]);
    expect(created.at(-1)?.hash).toEqual(log.root());
    expect(log.append([])).toEqual([]);
  });

  it('is atomic on a malformed batch', () => {
    const log = new MerkleLog();
    log.append(leaves(3));
    const before = log.root();
    expect(() => log.append([...leaves(2, 'x'), new Uint8Array(31)])).toThrow(TypeError);
    expect(log.size).toBe(3);
    expect(log.root()).toEqual(before);
  });

  it('keeps exactly floor(n / 2^level) nodes per level', () => {
    const log = new MerkleLog();
    const all: MerkleNode[] = [];
    for (const h of leaves(77)) all.push(...log.append([h]));
    expect([...log.nodes()].length).toBe(all.length);
    for (let level = 0; level < 8; level++) {
      expect(all.filter((n) => n.level === level).length).toBe(Math.floor(77 / 2 ** level));
    }
  });

  it('restores from persisted nodes in any order, and rejects incomplete or inconsistent sets', () => {
    const d = leaves(45);
    const log = new MerkleLog();
    const nodes: MerkleNode[] = [];
    for (let i = 0; i < d.length; i += 4) nodes.push(...log.append(d.slice(i, i + 4)));
    const shuffled = [...nodes].reverse();
    const restored = MerkleLog.fromNodes([...shuffled, nodes[5] as MerkleNode]);
    expect(restored.size).toBe(45);
    expect(restored.root()).toEqual(log.root());
    expect(restored.consistencyProof(13, 45)).toEqual(log.consistencyProof(13, 45));
    restored.append(leaves(3, 'more'));
    log.append(leaves(3, 'more'));
    expect(restored.root()).toEqual(log.root());

    expect(MerkleLog.fromNodes([]).root()).toEqual(new Uint8Array(EMPTY_ROOT));
    const without = (pred: (n: MerkleNode) => boolean) => nodes.filter((n) => !pred(n));
    expect(() => MerkleLog.fromNodes(without((n) => n.level === 2 && n.index === 3))).toThrow(RangeError);
    expect(() => MerkleLog.fromNodes(without((n) => n.level === 5))).toThrow(RangeError);
    expect(() => MerkleLog.fromNodes(without((n) => n.level === 0 && n.index === 43))).toThrow(RangeError);
    // Dropping only the newest leaf leaves exactly the node set of the 44-leaf log.
    expect(MerkleLog.fromNodes(without((n) => n.level === 0 && n.index === 44)).root()).toEqual(log.root(44));
    expect(() => MerkleLog.fromNodes([...nodes, { level: 0, index: 45, hash: d[0] as Uint8Array }])).toThrow(RangeError);
    expect(() => MerkleLog.fromNodes([...nodes, { level: 0, index: 3, hash: d[0] as Uint8Array }])).toThrow(RangeError);
    expect(() => MerkleLog.fromNodes([...nodes, { level: -1, index: 0, hash: d[0] as Uint8Array }])).toThrow(RangeError);
    expect(() => MerkleLog.fromNodes([{ level: 0, index: 0, hash: new Uint8Array(5) }])).toThrow(RangeError);

    const tampered = nodes.map((n) => (n.level === 1 && n.index === 4 ? { ...n, hash: sha(n.hash) } : n));
    expect(() => MerkleLog.fromNodes(tampered)).toThrow(/node \(1, 4\)/);
    expect(MerkleLog.fromNodes(tampered, { verify: false }).size).toBe(45);
  });

  it('runs over a custom store and rejects a store whose levels do not match', () => {
    class MapStore implements MerkleNodeStore {
      readonly map = new Map<string, Uint8Array>();
      readonly counts: number[] = [];
      count = (level: number) => this.counts[level] ?? 0;
      get = (level: number, index: number) => this.map.get(`${level}/${index}`);
      put(level: number, index: number, hash: Uint8Array) {
        this.map.set(`${level}/${index}`, hash.slice());
        this.counts[level] = index + 1;
      }
    }
    const store = new MapStore();
    const d = leaves(23);
    new MerkleLog(store).append(d);
    const reopened = new MerkleLog(store);
    expect(reopened.size).toBe(23);
    expect(toHex(reopened.root(17))).toBe(toHex(rootFromLeafHashes(d.slice(0, 17))));
    const more = leaves(20, 'more');
    reopened.append(more);
    expect(toHex(new MerkleLog(store).root())).toBe(toHex(rootFromLeafHashes([...d, ...more])));
    store.counts[0] = 23;
    store.counts[1] = 11;
    store.counts[2] = 5;
    store.counts[3] = 2;
    store.counts[4] = 1;
    store.counts[5] = 0;
    store.counts[2] = 4;
    expect(() => new MerkleLog(store)).toThrow(RangeError);
    store.counts[2] = 5;
    store.map.delete('2/1');
    expect(() => new MerkleLog(store).inclusionProof(0, 8)).toThrow(/no node \(2, 1\)/);
  });

  it('answers historical roots and proofs in O(log n) node lookups', () => {
    class CountingStore extends MemoryNodeStore {
      gets = 0;
      override get(level: number, index: number) {
        this.gets++;
        return super.get(level, index);
      }
    }
    const store = new CountingStore();
    const log = new MerkleLog(store);
    const n = 5003;
    log.append(leaves(n, 'c'));
    const lg = Math.ceil(Math.log2(n));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: n }), fc.nat(), fc.nat(), (size, a, b) => {
        store.gets = 0;
        log.root(size);
        expect(store.gets).toBeLessThanOrEqual(lg + 1);
        store.gets = 0;
        log.inclusionProof(a % size, size);
        expect(store.gets).toBeLessThanOrEqual(2 * lg);
        store.gets = 0;
        log.consistencyProof((b % size) + 1, size);
        expect(store.gets).toBeLessThanOrEqual(2 * lg + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('memory store refuses out-of-order writes', () => {
    const store = new MemoryNodeStore();
    expect(() => store.put(0, 1, new Uint8Array(32))).toThrow(RangeError);
    store.put(0, 0, new Uint8Array(32));
    expect(store.get(0, 1)).toBeUndefined();
    expect(store.get(0, -1)).toBeUndefined();
    expect(store.get(3, 0)).toBeUndefined();
  });

  it('matches rootFromLeafHashes on a larger log (2^16 + 3 leaves) in batches', () => {
    const d = leaves(2 ** 16 + 3, 'big');
    const log = new MerkleLog();
    for (let i = 0; i < d.length; i += 1000) log.append(d.slice(i, i + 1000));
    expect(toHex(log.root())).toBe(toHex(rootFromLeafHashes(d)));
    expect(toHex(log.root(40_000))).toBe(toHex(rootFromLeafHashes(d.slice(0, 40_000))));
    const p = log.inclusionProof(65_537);
    expect(p.length).toBe(3);
    expect(isInclusionValid(d[65_537] as Uint8Array, 65_537, d.length, p, log.root())).toBe(true);
    expect(isConsistencyValid(40_000, d.length, log.consistencyProof(40_000), log.root(40_000), log.root())).toBe(true);
  });
});

describe('MerkleLog properties (fast-check)', () => {
  it('every leaf is provable at every size, and every pair of sizes is consistent', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 24 }), { minLength: 1, maxLength: 48 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 10 }),
        (entries, batches) => {
          const d = entries.map((e) => leafHash(e));
          const log = new MerkleLog();
          for (let i = 0, b = 0; i < d.length; b++) {
            const step = batches[b % batches.length] as number;
            log.append(d.slice(i, i + step));
            i += step;
          }
          expect(log.size).toBe(d.length);
          const roots = Array.from({ length: d.length + 1 }, (_, n) => log.root(n));
          for (let n = 1; n <= d.length; n++) {
            expect(toHex(roots[n] as Uint8Array)).toBe(toHex(rootFromLeafHashes(d.slice(0, n))));
            for (let i = 0; i < n; i++) {
              expect(isInclusionValid(d[i] as Uint8Array, i, n, log.inclusionProof(i, n), roots[n] as Uint8Array)).toBe(true);
            }
            for (let m = 1; m <= n; m++) {
              const proof = log.consistencyProof(m, n);
              expect(isConsistencyValid(m, n, proof, roots[m] as Uint8Array, roots[n] as Uint8Array)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a proof never verifies against another index or a different leaf', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 300 }), fc.nat(), fc.nat(), (n, a, b) => {
        const d = leaves(n, 'p');
        const log = new MerkleLog();
        log.append(d);
        const i = a % n;
        const j = b % n;
        const proof = log.inclusionProof(i, n);
        expect(isInclusionValid(d[i] as Uint8Array, j, n, proof, log.root())).toBe(i === j);
        expect(isInclusionValid(d[j] as Uint8Array, i, n, proof, log.root())).toBe(i === j);
      }),
      { numRuns: 100 },
    );
  });
});
