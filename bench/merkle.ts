// Bet-log benchmark: 1,000,000 appends into MerkleLog, then 1,000 inclusion proofs produced and verified.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { cryptoBackend, setCryptoBackend } from '../protocol/crypto.ts';
import { nodeBackend } from '../protocol/crypto-node.ts';
import { MerkleLog } from '../protocol/merkle-log.ts';
import { isInclusionValid, leafHash } from '../protocol/merkle.ts';

const LEAVES = 1_000_000;
const BATCH = 10_000;
const PROOFS = 1_000;

const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;

// A full GC before each reading, so the figure is live data (the log's node buffers), not garbage.
function collectGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) {
    exposed();
    return;
  }
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

function memoryBytes(): number {
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export async function benchMerkle(): Promise<Record<string, number>> {
  const previous = cryptoBackend();
  setCryptoBackend(nodeBackend);
  try {
    const before = memoryBytes();
    const log = new MerkleLog();
    const entry = new Uint8Array(8);
    const view = new DataView(entry.buffer);
    let appendNs = 0n;
    for (let start = 0; start < LEAVES; start += BATCH) {
      const batch: Uint8Array[] = [];
      for (let i = start; i < start + BATCH; i++) {
        view.setBigUint64(0, BigInt(i));
        batch.push(leafHash(entry));
      }
      const t = process.hrtime.bigint();
      log.append(batch);
      appendNs += process.hrtime.bigint() - t;
    }
    const t = process.hrtime.bigint();
    const root = log.root();
    appendNs += process.hrtime.bigint() - t;
    const heap = memoryBytes() - before;

    // Deterministic spread of indices (a fixed LCG), so runs compare.
    let seed = 0x9e3779b9;
    const indices = Array.from({ length: PROOFS }, () => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return seed % LEAVES;
    });
    const leaves = indices.map((i) => log.leafHash(i));
    const p0 = process.hrtime.bigint();
    for (let k = 0; k < PROOFS; k++) {
      const index = indices[k] as number;
      const proof = log.inclusionProof(index, LEAVES);
      if (!isInclusionValid(leaves[k] as Uint8Array, index, LEAVES, proof, root)) {
        throw new Error(`inclusion proof of ${index} failed to verify`);
      }
    }
    const proofNs = process.hrtime.bigint() - p0;

    return {
      'log.append1mSec': Math.round(Number(appendNs) / 1e6) / 1e3,
      'log.proof1kMs': Math.round(Number(proofNs) / 1e4) / 100,
      'log.heapMb': mb(heap),
    };
  } finally {
    setCryptoBackend(previous);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchMerkle();
  for (const [name, value] of Object.entries(figures)) console.log(`${name.padEnd(20)} ${value}`);
}
