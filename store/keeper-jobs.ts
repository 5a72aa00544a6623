// What every keeper job (a withdrawal, an LP mint or payout) stores about its transaction: the signed bytes, their
// signature and lastValidBlockHeight, written before any send by one compare-and-set (scripts/store_keeper_tx.lua).
import type { Scripts } from './scripts.ts';

export interface StoredKeeperTx {
  signature: string;
  wire: string;
  lastValidBlockHeight: bigint;
}

/** `ok` stored; `stale` another signature was stored meanwhile; `done` the job is finished; `not_fixed` an LP job not yet valued. */
export type StoreTxResult = 'ok' | 'stale' | 'done' | 'not_found' | 'not_fixed';

export async function storeKeeperTx(scripts: Scripts, jobKey: string, expectedSignature: string | null, tx: StoredKeeperTx): Promise<StoreTxResult> {
  const reply = (await scripts.storeKeeperTx([jobKey], [expectedSignature ?? '', tx.signature, tx.wire, tx.lastValidBlockHeight.toString()])) as string[];
  return reply[0] === 'ok' ? 'ok' : (reply[1] as StoreTxResult);
}

/** The stored transaction of a job hash, or null when none was stored. */
export function storedTxOf(r: Record<string, string>): StoredKeeperTx | null {
  return r.signature && r.wire && r.lastValidBlockHeight
    ? { signature: r.signature, wire: r.wire, lastValidBlockHeight: BigInt(r.lastValidBlockHeight) }
    : null;
}

/** Every signature a job ever stored, oldest first: the keeper's durable record of what it may have sent. */
export function sentSignaturesOf(r: Record<string, string>): string[] {
  return r.signatures ? r.signatures.split(',').filter((s) => s !== '') : [];
}
