/**
 * Operator memos as a verifier reads them from a `json`-encoded `getTransaction` result.
 *
 * A memo counts only when the transaction succeeded and the signer accounts of its Memo v2
 * instruction are exactly the one expected key, which signed the transaction (design §3). Memos by
 * anyone else, or co-signed by anyone else, are ignored.
 * @module
 */
import { fromBase58 } from '../encoding.ts';
import { MEMO_PROGRAM_ID, parseMemo, type ParsedMemo } from '../memo.ts';

/** The subset of a `json`-encoded getTransaction result the verifier reads. */
export interface RpcTransaction {
  slot: number | bigint;
  blockTime?: number | bigint | null;
  transaction: {
    signatures: readonly string[];
    message: {
      accountKeys: readonly string[];
      header: { numRequiredSignatures: number };
      instructions: readonly { programIdIndex: number; accounts: readonly number[]; data: string }[];
    };
  };
  meta: {
    err: unknown;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
  } | null;
}

/** A memo of ours and the one account that signed it. */
export interface SoleSignerMemo extends SignedMemo {
  signer: string;
}

/** A memo of ours, signed by the expected key alone. */
export interface SignedMemo {
  signature: string;
  slot: number;
  /** Unix seconds, when the RPC reports it. */
  blockTime: number | null;
  instructionIndex: number;
  text: string;
  memo: ParsedMemo;
}

function decodeUtf8(data: string): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(fromBase58(data));
  } catch {
    return null;
  }
}

/**
 * The `pfws:v1:` memos in `tx` whose sole signer account is `signer`; none when the transaction failed.
 * Malformed input yields no memos rather than an exception.
 * @example memosSignedBy(tx, config.operatorPublicKey).filter((m) => m.memo.kind === 'commit')
 */
export function memosSignedBy(tx: RpcTransaction | null | undefined, signer: string): SignedMemo[] {
  return soleSignerMemos(tx)
    .filter((m) => m.signer === signer)
    .map((m) => ({ ...m }));
}

// Many receipts share one commit transaction; base58-decoding its memos once is enough.
const parsed = new WeakMap<object, SoleSignerMemo[]>();

/**
 * Every `pfws:v1:` memo of a successful `tx` whose Memo instruction has exactly one signer account,
 * with that signer. The indexer credits wallets and the verifier reads operator memos through this one rule.
 */
export function soleSignerMemos(tx: RpcTransaction | null | undefined): SoleSignerMemo[] {
  if (!tx || typeof tx !== 'object') return [];
  let memos = parsed.get(tx);
  if (!memos) {
    memos = parseMemos(tx);
    parsed.set(tx, memos);
  }
  return memos;
}

function parseMemos(tx: RpcTransaction): SoleSignerMemo[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const message = tx.transaction?.message;
  if (!message || !Array.isArray(message.accountKeys) || !Array.isArray(message.instructions)) return [];
  const keys = [...message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
  const required = message.header?.numRequiredSignatures ?? 0;
  const signature = tx.transaction.signatures?.[0] ?? '';
  const out: SoleSignerMemo[] = [];
  message.instructions.forEach((ix, instructionIndex) => {
    if (keys[ix.programIdIndex] !== MEMO_PROGRAM_ID) return;
    if (!Array.isArray(ix.accounts) || ix.accounts.length !== 1) return;
    const account = ix.accounts[0] as number;
    const signer = keys[account];
    if (account >= required || signer === undefined) return;
    const text = decodeUtf8(ix.data);
    const memo = text === null ? null : parseMemo(text);
    if (text !== null && memo) {
      out.push({
        signature,
        slot: Number(tx.slot),
        blockTime: tx.blockTime === undefined || tx.blockTime === null ? null : Number(tx.blockTime),
        instructionIndex,
        text,
        memo,
        signer,
      });
    }
  });
  return out;
}

/** The commit memos of `tx` by `signer`, parsed. */
export function commitMemosOf(tx: RpcTransaction | null | undefined, signer: string) {
  return memosSignedBy(tx, signer).flatMap((m) => (m.memo.kind === 'commit' ? [Object.assign({}, m, { memo: m.memo })] : []));
}
