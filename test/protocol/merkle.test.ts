import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MerkleTree } from 'merkletreejs';
import {
  EMPTY_ROOT,
  consistencyProof,
  inclusionProof,
  isConsistencyValid,
  isInclusionValid,
  leafHash,
  nodeHash,
  proofFromHex,
  proofToHex,
  rootFromInclusionProof,
  rootFromLeafHashes,
  subtreeFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
} from '../../protocol/merkle.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';

const VECTORS = fileURLToPath(new URL('../../../shared/vectors/rfc6962/', import.meta.url));

const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

/** JSON.parse loses u64 precision (a vector uses 2^64 − 1), so sizes and indices are read as bigints. */
function readVector(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8').replace(/("(?:leafIdx|treeSize|size1|size2)"\s*:\s*)(\d+)/g, '$1"$2"');
  const raw = JSON.parse(text) as Record<string, unknown>;
  for (const k of ['leafIdx', 'treeSize', 'size1', 'size2']) {
    if (typeof raw[k] === 'string') raw[k] = BigInt(raw[k] as string);
  }
  return raw;
}

function vectorFiles(kind: 'inclusion' | 'consistency'): string[] {
  const dir = join(VECTORS, kind);
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

const proofOf = (v: Record<string, unknown>): Uint8Array[] => ((v.proof as string[] | null) ?? []).map(b64);

describe('RFC 6962 vectors (transparency-dev/merkle)', () => {
  const inclusion = vectorFiles('inclusion');
  const consistency = vectorFiles('consistency');

  it('finds the vector files, positive and negative', () => {
    expect(inclusion.length).toBeGreaterThan(80);
    expect(consistency.length).toBeGreaterThan(80);
    const wants = [...inclusion, ...consistency].map((f) => readVector(f).wantErr);
    expect(wants).toContain(true);
    expect(wants).toContain(false);
  });

  it.each(inclusion.map((f) => [f.slice(VECTORS.length), f]))('inclusion %s', (_name, file) => {
    const v = readVector(file);
    const result = verifyInclusion(b64(v.leafHash as string), v.leafIdx as bigint, v.treeSize as bigint, proofOf(v), b64(v.root as string));
    expect(result.ok, JSON.stringify({ desc: v.desc, result })).toBe(v.wantErr !== true);
  });

  it.each(consistency.map((f) => [f.slice(VECTORS.length), f]))('consistency %s', (_name, file) => {
    const v = readVector(file);
    const result = verifyConsistency(v.size1 as bigint, v.size2 as bigint, proofOf(v), b64(v.root1 as string), b64(v.root2 as string));
    expect(result.ok, JSON.stringify({ desc: v.desc, result })).toBe(v.wantErr !== true);
  });
});

// Reference definitions straight from RFC 9162 §2.1.1, §2.1.3.1 and §2.1.4.1, recursive on arrays.
const k = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Uint8Array[]): Uint8Array {
  if (d.length === 0) return createHash('sha256').update(new Uint8Array(0)).digest();
  if (d.length === 1) return d[0] as Uint8Array;
  const s = k(d.length);
  return createHash('sha256')
    .update(Uint8Array.of(1))
    .update(mth(d.slice(0, s)))
    .update(mth(d.slice(s)))
    .digest();
}
function refPath(m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length === 1) return [];
  const s = k(d.length);
  return m < s ? [...refPath(m, d.slice(0, s)), mth(d.slice(s))] : [...refPath(m - s, d.slice(s)), mth(d.slice(0, s))];
}
function refSubproof(m: number, d: Uint8Array[], b: boolean): Uint8Array[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s ? [...refSubproof(m, d.slice(0, s), b), mth(d.slice(s))] : [...refSubproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}

const leaves = (n: number): Uint8Array[] => Array.from({ length: n }, (_, i) => leafHash(utf8(`entry ${i}`)));
const flipBit = (bytes: Uint8Array, at: number): Uint8Array => {
  const out = bytes.slice();
  out[at] = (out[at] as number) ^ 0x10;
  return out;
};
const hexes = (xs: Uint8Array[]): string[] => xs.map((x) => toHex(x));

/** merkletreejs used only as a builder: pre-hashed 0x00 leaves, 0x01 concatenator, no sorting or padding. */
function merkletreejs(d: Uint8Array[]): MerkleTree {
  return new MerkleTree(
    d.map((x) => Buffer.from(x)),
    (data: Buffer) => createHash('sha256').update(data).digest(),
    { concatenator: (parts: Buffer[]) => Buffer.concat([Buffer.of(1), ...parts]) },
  );
}

describe('hashing', () => {
  it('pins the RFC 6962 prefixes and the empty root', () => {
    expect(toHex(EMPTY_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // RFC 6962 test-tree leaf 0 (the empty string) and leaf 1 (0x00).
    expect(toHex(leafHash(new Uint8Array(0)))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(toHex(leafHash(Uint8Array.of(0)))).toBe('96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7');
    // The input buffer is reused: a short entry after a long one hashes only its own bytes.
    for (const n of [700, 3, 70_000, 0, 64]) {
      const data = new Uint8Array(n).fill(n % 251);
      expect(toHex(leafHash(data))).toBe(toHex(nobleSha256(Uint8Array.of(0, ...data))));
    }
    const a = leafHash(utf8('a'));
    const b = leafHash(utf8('b'));
    expect(nodeHash(a, b)).toEqual(
      new Uint8Array(
        createHash('sha256')
          .update(Buffer.concat([Buffer.of(1), a, b]))
          .digest(),
      ),
    );
    expect(() => nodeHash(a, b.subarray(1))).toThrow(TypeError);
  });

  it('rootFromLeafHashes equals the recursive MTH and merkletreejs for sizes 0..130', () => {
    const all = leaves(130);
    for (let n = 0; n <= 130; n++) {
      const d = all.slice(0, n);
      const root = rootFromLeafHashes(d);
      expect(toHex(root)).toBe(toHex(mth(d)));
      if (n > 0) expect(toHex(root)).toBe(merkletreejs(d).getRoot().toString('hex'));
    }
    expect(() => rootFromLeafHashes([new Uint8Array(31)])).toThrow(TypeError);
  });
});

describe('proof generation', () => {
  const all = leaves(70);

  it('inclusion proofs match RFC PATH and merkletreejs (by index) for every leaf of sizes 1..70, and verify', () => {
    for (let n = 1; n <= 70; n++) {
      const d = all.slice(0, n);
      const subtree = subtreeFromLeafHashes(d);
      const root = mth(d);
      const tree = merkletreejs(d);
      for (let i = 0; i < n; i++) {
        const proof = inclusionProof(i, n, subtree);
        expect(hexes(proof)).toEqual(hexes(refPath(i, d)));
        expect(proofToHex(proof)).toEqual(tree.getProof(Buffer.from(d[i] as Uint8Array), i).map((p) => p.data.toString('hex')));
        expect(verifyInclusion(d[i] as Uint8Array, i, n, proof, root)).toEqual({ ok: true });
        expect(rootFromInclusionProof(d[i] as Uint8Array, BigInt(i), BigInt(n), proof)).toEqual(new Uint8Array(root));
      }
    }
  });

  it('consistency proofs match RFC SUBPROOF for every pair of sizes 1..70, and verify', () => {
    for (let n = 1; n <= 70; n++) {
      const d = all.slice(0, n);
      const subtree = subtreeFromLeafHashes(d);
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, subtree);
        expect(hexes(proof)).toEqual(hexes(m === n ? [] : refSubproof(m, d, true)));
        expect(verifyConsistency(m, n, proof, mth(all.slice(0, m)), mth(d))).toEqual({ ok: true });
      }
    }
  });

  it('rejects impossible requests', () => {
    const subtree = subtreeFromLeafHashes(all.slice(0, 5));
    expect(() => inclusionProof(5, 5, subtree)).toThrow(RangeError);
    expect(() => inclusionProof(-1, 5, subtree)).toThrow(RangeError);
    expect(() => inclusionProof(0.5, 5, subtree)).toThrow(RangeError);
    expect(() => consistencyProof(0, 5, subtree)).toThrow(RangeError);
    expect(() => consistencyProof(6, 5, subtree)).toThrow(RangeError);
    expect(() => subtree(3, 3)).toThrow(RangeError);
    expect(() => subtree(0, 6)).toThrow(RangeError);
  });
});

describe('verification rejects tampering', () => {
  const all = leaves(33);

  it('inclusion: flipped bits, wrong index, wrong leaf, truncated or extended proofs', () => {
    for (let n = 1; n <= 33; n++) {
      const d = all.slice(0, n);
      const root = mth(d);
      const subtree = subtreeFromLeafHashes(d);
      for (let i = 0; i < n; i++) {
        const leaf = d[i] as Uint8Array;
        const proof = inclusionProof(i, n, subtree);
        for (let j = 0; j < proof.length; j++) {
          const bad = proof.map((p, at) => (at === j ? flipBit(p, 7) : p));
          expect(isInclusionValid(leaf, i, n, bad, root)).toBe(false);
        }
        for (let j = 0; j < n; j++) if (j !== i) expect(isInclusionValid(leaf, j, n, proof, root)).toBe(false);
        if (n > 1) expect(isInclusionValid(d[(i + 1) % n] as Uint8Array, i, n, proof, root)).toBe(false);
        expect(isInclusionValid(leaf, i, n, [...proof, root], root)).toBe(false);
        if (proof.length > 0) expect(isInclusionValid(leaf, i, n, proof.slice(1), root)).toBe(false);
        expect(isInclusionValid(leaf, i, n, proof, leaf.subarray(1))).toBe(false);
      }
    }
  });

  it('inclusion: malformed inputs give a reason instead of throwing', () => {
    const d = all.slice(0, 4);
    const proof = inclusionProof(1, 4, subtreeFromLeafHashes(d));
    const root = mth(d);
    const leaf = d[1] as Uint8Array;
    const cases: [unknown, unknown, unknown, unknown, unknown][] = [
      [leaf, -1, 4, proof, root],
      [leaf, 1.5, 4, proof, root],
      [leaf, 1, Number.NaN, proof, root],
      [leaf, 1n << 64n, 1n << 64n, proof, root],
      [leaf, 1, 4, null, root],
      [leaf, 1, 4, [...proof.slice(0, 1), 'x'], root],
      [leaf, 1, 4, Array.from({ length: 1000 }, () => leaf), root],
      [leaf.subarray(0, 31), 1, 4, proof, root],
      ['leaf', 1, 4, proof, root],
      [leaf, 1, 4, proof, null],
    ];
    for (const [l, i, n, p, r] of cases) {
      const result = verifyInclusion(l as Uint8Array, i as number, n as number, p as Uint8Array[], r as Uint8Array);
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.reason).not.toBe('');
    }
    expect(() => rootFromInclusionProof(leaf, 4, 4, proof)).toThrow(RangeError);
  });

  it('consistency: flipped bits, wrong sizes, swapped roots, truncated or extended proofs', () => {
    for (let n = 2; n <= 33; n++) {
      const d = all.slice(0, n);
      const subtree = subtreeFromLeafHashes(d);
      const root2 = mth(d);
      for (let m = 1; m < n; m++) {
        const root1 = mth(all.slice(0, m));
        const proof = consistencyProof(m, n, subtree);
        for (let j = 0; j < proof.length; j++) {
          const bad = proof.map((p, at) => (at === j ? flipBit(p, 0) : p));
          expect(isConsistencyValid(m, n, bad, root1, root2)).toBe(false);
        }
        expect(isConsistencyValid(m, n, proof, root2, root1)).toBe(false);
        expect(isConsistencyValid(m, n, [...proof, root2], root1, root2)).toBe(false);
        expect(isConsistencyValid(m, n, proof.slice(0, -1), root1, root2)).toBe(false);
        expect(isConsistencyValid(m, n, [], root1, root2)).toBe(false);
        expect(isConsistencyValid(n, m, proof, root1, root2)).toBe(false);
        expect(isConsistencyValid(0, n, proof, EMPTY_ROOT, root2)).toBe(false);
        for (let m2 = 1; m2 < n; m2++) if (m2 !== m) expect(isConsistencyValid(m2, n, proof, root1, root2)).toBe(false);
      }
    }
  });

  it('consistency: equal sizes need an empty proof and equal roots', () => {
    const r = mth(all.slice(0, 3));
    expect(verifyConsistency(3, 3, [], r, r)).toEqual({ ok: true });
    expect(isConsistencyValid(3, 3, [r], r, r)).toBe(false);
    expect(isConsistencyValid(3, 3, [], r, EMPTY_ROOT)).toBe(false);
    expect(verifyConsistency(0, 0, [], EMPTY_ROOT, EMPTY_ROOT)).toEqual({ ok: true });
    expect(isConsistencyValid(0, 0, [], r, r)).toBe(false);
    expect(isConsistencyValid(-1, 0, [], r, r)).toBe(false);
  });
});

describe('hex proofs', () => {
  it('round-trips and rejects malformed input', () => {
    const proof = leaves(3);
    expect(proofFromHex(proofToHex(proof))).toEqual(proof);
    expect(() => proofFromHex('00')).toThrow(TypeError);
    expect(() => proofFromHex([toHex(new Uint8Array(31))])).toThrow(TypeError);
    expect(() => proofFromHex([toHex(proof[0] as Uint8Array).toUpperCase()])).toThrow(TypeError);
    expect(() => proofFromHex([1])).toThrow(TypeError);
    expect(() => proofFromHex(proofToHex(leaves(67)))).toThrow(TypeError);
    expect(proofFromHex(proofToHex(leaves(67)), 100)).toHaveLength(67);
  });
});
