// Bet-log benchmark: 1,000,000 appends into MerkleLog, then 1,000 inclusion proofs produced and verified.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { cryptoBackend, setCryptoBackend } from '../protocol/crypto.ts';
import { nodeBackend } from '../protocol/crypto-node.ts';
import { MerkleLog } from '../protocol/merkle-log.ts';
import { isInclusionValid, leafHash, proofToHex } from '../protocol/merkle.ts';
import { toHex } from '../protocol/encoding.ts';
import { committedAnchorJson, proofsAt, type CommitAnchorFields } from '../anchor-worker/anchor.ts';
import type { ReceiptAnchor } from '../protocol/receipt.ts';

const LEAVES = 1_000_000;
const BATCH = 10_000;
const PROOFS = 1_000;
// The anchor fill: the newest receipts of a commit whose size is no power of two (so the tree has a right edge),
// in the worker's batches.
const FILLED = 20_000;
const FILL_BATCH = 500;

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
    const fill = fillUsPerReceipt(log, LEAVES - 7);

    return {
      'log.append1mSec': Math.round(Number(appendNs) / 1e6) / 1e3,
      'log.proof1kMs': Math.round(Number(proofNs) / 1e4) / 100,
      'log.heapMb': mb(heap),
      'anchor.fillUsPerReceipt': fill.worker,
      'anchor.fillUsPerReceipt.naive': fill.naive,
    };
  } finally {
    setCryptoBackend(previous);
  }
}

/**
 * CPU of one receipt's anchor text as the worker's fill makes it (each proof range hashed once per batch, the commit's
 * fields written once), and as one JSON.stringify of a proof the log gives per receipt would.
 */
function fillUsPerReceipt(log: MerkleLog, size: number): { worker: number; naive: number } {
  const fixed: CommitAnchorFields = {
    status: 'committed',
    commitId: `c_${size}`,
    commitSignature: '5'.repeat(88),
    commitTransactionUrl: `https://explorer.solana.com/tx/${'5'.repeat(88)}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899`,
    commitAccount: 'A'.repeat(44),
    commitExplorerUrl: `https://explorer.solana.com/address/${'A'.repeat(44)}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899`,
    betLogRoot: toHex(log.root(size)),
    entryCount: size,
    stateRoot: 'ab'.repeat(32),
  };
  const leafHexes = Array.from({ length: FILLED }, (_, i) => toHex(log.leafHash(size - FILLED + i)));
  const time = (batch: (from: number, to: number) => number): number => {
    let chars = 0;
    const t = process.hrtime.bigint();
    for (let from = size - FILLED; from < size; from += FILL_BATCH) chars += batch(from, Math.min(size, from + FILL_BATCH));
    if (chars === 0) throw new Error('no anchor text');
    return Math.round(Number(process.hrtime.bigint() - t) / FILLED / 10) / 100;
  };
  const worker = (from: number, to: number) => {
    const proofOf = proofsAt(log, size);
    const anchorJson = committedAnchorJson(fixed);
    let chars = 0;
    for (let i = from; i < to; i++) chars += anchorJson(leafHexes[i - size + FILLED]!, i, proofOf(i)).length;
    return chars;
  };
  const naive = (from: number, to: number) => {
    let chars = 0;
    for (let i = from; i < to; i++) {
      const anchor: ReceiptAnchor = {
        status: fixed.status,
        commitId: fixed.commitId,
        commitSignature: fixed.commitSignature,
        commitTransactionUrl: fixed.commitTransactionUrl,
        commitAccount: fixed.commitAccount,
        commitExplorerUrl: fixed.commitExplorerUrl,
        betLogEntryHash: leafHexes[i - size + FILLED]!,
        betLogRoot: fixed.betLogRoot,
        betLogIndex: i,
        betLogProof: proofToHex(log.inclusionProof(i, size)),
        entryCount: fixed.entryCount,
        stateRoot: fixed.stateRoot,
      };
      chars += JSON.stringify(anchor).length;
    }
    return chars;
  };
  // Warm both up, then take the second reading of each.
  time(worker);
  time(naive);
  return { worker: time(worker), naive: time(naive) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchMerkle();
  for (const [name, value] of Object.entries(figures)) console.log(`${name.padEnd(30)} ${value}`);
}
