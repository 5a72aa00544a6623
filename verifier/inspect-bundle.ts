// The CPU-heavy half of a bulk audit, for one tile: the entry bundle's leaves, and each receipt inspected
// (signatures, rebuild, inclusion). It runs in a worker thread, or inline; input and output are plain data.
import { decodeEntryBundle } from '../protocol/tlog-tiles.ts';
import { leafHash } from '../protocol/merkle.ts';
import { toHex } from '../protocol/encoding.ts';
import { keyAt, type TrustRootKey } from '../protocol/trust-root.ts';
import { inspectReceipt, type ReceiptInspection } from '../protocol/verify/receipt.ts';

export interface BundleTask {
  /** First entry index of the tile. */
  start: number;
  width: number;
  /** The entry bundle, or why it could not be read. */
  entries: Uint8Array | { error: string; withheld: boolean };
  /** The receipt bundle's JSON text, or why it could not be read. */
  receipts: string | { error: string; withheld: boolean };
  ackKeys: TrustRootKey[];
}

export interface BundleResult {
  start: number;
  /** Leaf hash of each entry in the bundle; null when the bundle could not be read. */
  leaves: string[] | null;
  /** One inspection per entry; null when the receipts could not be read. */
  inspections: (ReceiptInspection | null)[] | null;
  problem: { reason: string; withheld: boolean } | null;
}

export function inspectBundle(task: BundleTask): BundleResult {
  const out: BundleResult = { start: task.start, leaves: null, inspections: null, problem: null };
  if (task.entries instanceof Uint8Array) {
    try {
      out.leaves = decodeEntryBundle(task.entries, task.width).map((e) => toHex(leafHash(e)));
    } catch (err) {
      out.problem = { reason: `the entry bundle is malformed: ${(err as Error).message}`, withheld: true };
      return out;
    }
  } else {
    out.problem = { reason: task.entries.error, withheld: task.entries.withheld };
    return out;
  }
  if (typeof task.receipts !== 'string') {
    out.problem = { reason: task.receipts.error, withheld: task.receipts.withheld };
    out.inspections = Array.from({ length: task.width }, () => null);
    return out;
  }
  let receipts: unknown;
  try {
    receipts = (JSON.parse(task.receipts) as { receipts?: unknown }).receipts;
  } catch {
    receipts = null;
  }
  const list = Array.isArray(receipts) && receipts.length === task.width ? receipts : null;
  // Ack keys come from the pinned trust root: a receipt can never choose the key its ack is checked with.
  const ackRoot = { keys: { ack: task.ackKeys, anchor: [], keeper: [] } } as unknown as Parameters<typeof keyAt>[0];
  const ctx = { ackPublicKey: (at: string) => keyAt(ackRoot, 'ack', at) };
  out.inspections = Array.from({ length: task.width }, (_, i) => (list ? inspectReceipt(list[i], ctx, { bulk: true }) : null));
  if (!list) out.problem = { reason: `the receipt bundle does not hold ${task.width} receipts`, withheld: true };
  return out;
}
