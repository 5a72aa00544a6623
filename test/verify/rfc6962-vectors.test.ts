// The transparency-dev/merkle RFC 6962 vectors, positive and negative, through the verifier's hex entry points.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NodeMemo, verifyConsistencyHex, verifyInclusionHex } from '../../protocol/verify/proofs.ts';

const VECTORS = fileURLToPath(new URL('../../../shared/vectors/rfc6962/', import.meta.url));
const hex = (b64: unknown): unknown => (typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('hex') : b64);

// Sizes reach 2^64 − 1, beyond JSON numbers: read them as bigints.
function read(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8').replace(/("(?:leafIdx|treeSize|size1|size2)"\s*:\s*)(\d+)/g, '$1"$2"');
  const v = JSON.parse(text) as Record<string, unknown>;
  for (const k of ['leafIdx', 'treeSize', 'size1', 'size2']) if (typeof v[k] === 'string') v[k] = BigInt(v[k] as string);
  return v;
}

const files = (kind: string): string[] =>
  (readdirSync(join(VECTORS, kind), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(VECTORS, kind, f));

const proofHex = (v: Record<string, unknown>): unknown => ((v.proof as string[] | null) ?? []).map(hex);

describe('RFC 6962 vectors through the verifier', () => {
  const inclusion = files('inclusion');
  const consistency = files('consistency');

  it('has both kinds, with negative cases', () => {
    expect(inclusion.length).toBeGreaterThan(80);
    expect(consistency.length).toBeGreaterThan(80);
    expect([...inclusion, ...consistency].map((f) => read(f).wantErr)).toContain(true);
  });

  it.each(inclusion.map((f) => [f.slice(VECTORS.length), f]))('inclusion %s', (_name, file) => {
    const v = read(file);
    const result = verifyInclusionHex(hex(v.leafHash), v.leafIdx as bigint, v.treeSize as bigint, proofHex(v), hex(v.root));
    expect(result.ok, `${String(v.desc)}: ${JSON.stringify(result)}`).toBe(v.wantErr !== true);
  });

  // A bulk audit memoizes interior nodes across proofs: one memo shared by every vector, good and bad.
  const memo = new NodeMemo();
  it.each(inclusion.map((f) => [f.slice(VECTORS.length), f]))('inclusion %s, through a shared node memo', (_name, file) => {
    const v = read(file);
    const args = [hex(v.leafHash), v.leafIdx as bigint, v.treeSize as bigint, proofHex(v), hex(v.root)] as const;
    expect(verifyInclusionHex(...args, memo)).toEqual(verifyInclusionHex(...args));
  });

  it.each(consistency.map((f) => [f.slice(VECTORS.length), f]))('consistency %s', (_name, file) => {
    const v = read(file);
    const result = verifyConsistencyHex(v.size1 as bigint, v.size2 as bigint, proofHex(v), hex(v.root1), hex(v.root2));
    expect(result.ok, `${String(v.desc)}: ${JSON.stringify(result)}`).toBe(v.wantErr !== true);
  });
});
