// What the verifier reads from the chain, through the RPC the user chose: the anchor keys' memos, any
// transaction, a wallet's session-key memos, and the vault account.
import { memosSignedBy, type RpcTransaction, type SignedMemo } from '../protocol/verify/chain.ts';
import { keyEventsOf, type KeyEvent } from '../protocol/verify/session-key.ts';
import { MAX_WALLET_HISTORY } from '../protocol/verify/bounds.ts';
import type { RpcClient } from './http.ts';

const PAGE = 1000;
const PARALLEL = 8;

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime?: number | null;
}

/** A memo scan's result: the memos oldest first, and the newest signature seen (to resume from). */
export interface ScanResult {
  memos: SignedMemo[];
  newest: string | null;
}

export class ChainData {
  readonly #txs = new Map<string, RpcTransaction | null>();

  constructor(readonly rpc: RpcClient) {}

  async transaction(signature: string): Promise<RpcTransaction | null> {
    if (!this.#txs.has(signature)) {
      const tx = await this.rpc.call<RpcTransaction | null>('getTransaction', [
        signature,
        { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
      ]);
      this.#txs.set(signature, tx);
    }
    return this.#txs.get(signature) ?? null;
  }

  /** A transaction already fetched: null when the chain has none, undefined when never fetched. */
  cached(signature: string): RpcTransaction | null | undefined {
    return this.#txs.get(signature);
  }

  /** Signatures of `address`, newest first, down to (excluding) `until`, at most `limit`. */
  async signatures(address: string, options: { until?: string; limit?: number; onPage?: (seen: number) => void } = {}): Promise<SignatureInfo[]> {
    const out: SignatureInfo[] = [];
    let before: string | undefined;
    const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
    for (;;) {
      const page = await this.rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
        address,
        { limit: PAGE, commitment: 'confirmed', ...(before ? { before } : {}), ...(options.until ? { until: options.until } : {}) },
      ]);
      out.push(...page);
      options.onPage?.(out.length);
      if (page.length < PAGE || out.length >= limit) return out.slice(0, limit);
      before = page[page.length - 1]!.signature;
    }
  }

  async #fetchAll(signatures: readonly string[], onProgress?: (done: number) => void): Promise<(RpcTransaction | null)[]> {
    const out: (RpcTransaction | null)[] = [];
    for (let i = 0; i < signatures.length; i += PARALLEL) {
      out.push(...(await Promise.all(signatures.slice(i, i + PARALLEL).map((s) => this.transaction(s)))));
      onProgress?.(out.length);
    }
    return out;
  }

  /**
   * The memos `key` alone signed, oldest first, newer than `until` (all when absent); `stop` ends a
   * backwards scan early once a memo satisfies it.
   */
  async scan(
    key: string,
    options: { until?: string; stop?: (memo: SignedMemo) => boolean; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<ScanResult> {
    const infos = (await this.signatures(key, options.until ? { until: options.until } : {})).filter((s) => s.err === null);
    const newest = infos[0]?.signature ?? null;
    const memos: SignedMemo[] = [];
    for (let i = 0; i < infos.length; i += PARALLEL * 4) {
      const txs = await this.#fetchAll(infos.slice(i, i + PARALLEL * 4).map((s) => s.signature));
      for (const tx of txs) memos.push(...memosSignedBy(tx, key));
      options.onProgress?.(Math.min(infos.length, i + PARALLEL * 4), infos.length);
      if (options.stop && memos.some(options.stop)) break;
    }
    return { memos: memos.reverse(), newest };
  }

  /**
   * A wallet's setup and revoke memos for `sessionPubkey`, newer than `until`, oldest first.
   * @throws when the wallet's history is longer than the verifier reads (a hostile or unusual wallet)
   */
  async keyEvents(wallet: string, sessionPubkey: string | undefined, until?: string): Promise<{ events: KeyEvent[]; newest: string | null }> {
    const infos = (await this.signatures(wallet, { ...(until ? { until } : {}), limit: MAX_WALLET_HISTORY + 1 })).filter((s) => s.err === null);
    if (infos.length > MAX_WALLET_HISTORY) throw new Error(`the history of ${wallet} is longer than ${MAX_WALLET_HISTORY} transactions`);
    const txs = await this.#fetchAll(infos.map((s) => s.signature));
    return { events: txs.flatMap((tx) => keyEventsOf(tx, sessionPubkey)).reverse(), newest: infos[0]?.signature ?? null };
  }

  async genesisHash(): Promise<string> {
    return this.rpc.call<string>('getGenesisHash', []);
  }

  /** Raw account data (base64-decoded) and owner program; null when there is no account. */
  async account(address: string): Promise<{ owner: string; data: Uint8Array } | null> {
    const r = await this.rpc.call<{ value: { owner: string; data: [string, string] } | null }>('getAccountInfo', [
      address,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    if (!r.value) return null;
    return { owner: r.value.owner, data: new Uint8Array(Buffer.from(r.value.data[0], 'base64')) };
  }
}
