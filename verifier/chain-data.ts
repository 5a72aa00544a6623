// What the verifier reads from the chain: the anchor key's memos and transactions, and the vault balance.
import { commitMemosOf, memosSignedBy, type RpcTransaction, type SignedMemo } from '../protocol/verify/chain.ts';
import type { RpcClient } from './http.ts';

const PAGE = 1000;
const PARALLEL = 8;

interface SignatureInfo {
  signature: string;
  err: unknown;
}

export class ChainData {
  readonly #txs = new Map<string, RpcTransaction | null>();

  constructor(
    readonly rpc: RpcClient,
    readonly anchorKey: string,
  ) {}

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

  /** A transaction already fetched (the core's lookups are synchronous). */
  cached(signature: string): RpcTransaction | null | undefined {
    return this.#txs.get(signature);
  }

  /**
   * The anchor key's memos, newest first, walking its history back from `before` (the newest when
   * absent) until `stop` returns true for a memo or the history ends.
   */
  async scan(options: { before?: string; stop?: (memo: SignedMemo) => boolean; onProgress?: (seen: number) => void } = {}): Promise<SignedMemo[]> {
    const memos: SignedMemo[] = [];
    let before = options.before;
    let seen = 0;
    for (;;) {
      const page = await this.rpc.call<SignatureInfo[]>('getSignaturesForAddress', [
        this.anchorKey,
        { limit: PAGE, commitment: 'confirmed', ...(before ? { before } : {}) },
      ]);
      const wanted = page.filter((p) => p.err === null);
      for (let i = 0; i < wanted.length; i += PARALLEL) {
        const batch = wanted.slice(i, i + PARALLEL);
        const txs = await Promise.all(batch.map((p) => this.transaction(p.signature)));
        for (const tx of txs) {
          const found = memosSignedBy(tx, this.anchorKey);
          memos.push(...found);
          if (options.stop && found.some(options.stop)) return memos;
        }
        seen += batch.length;
        options.onProgress?.(seen);
      }
      if (page.length < PAGE) return memos;
      before = page[page.length - 1]!.signature;
    }
  }

  /** The commit memos of one transaction, by the anchor key alone. */
  async commitMemos(signature: string) {
    return commitMemosOf(await this.transaction(signature), this.anchorKey);
  }

  /** The token balance of an account in base units. */
  async tokenBalance(account: string): Promise<bigint> {
    const r = await this.rpc.call<{ value: { amount: string } }>('getTokenAccountBalance', [account, { commitment: 'confirmed' }]);
    return BigInt(r.value.amount);
  }
}
