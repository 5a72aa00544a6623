// What the verify page reads from the chain: JSON-RPC over fetch, the commit transaction, and the anchor key's RNG heads.
import { memosSignedBy, type RpcTransaction } from '../../../protocol/verify/chain.ts';

export type RpcCall = <T>(method: string, params: unknown[]) => Promise<T>;

export class RpcError extends Error {
  override readonly name = 'RpcError';
}

/** A JSON-RPC 2.0 client on `fetch`. */
export function rpcClient(url: string, fetchFn: typeof fetch = fetch): RpcCall {
  let id = 0;
  return async <T>(method: string, params: unknown[]): Promise<T> => {
    let res: Response;
    try {
      res = await fetchFn(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      });
    } catch (err) {
      throw new RpcError(`cannot reach the RPC at ${url} (${(err as Error).message})`);
    }
    const body = (await res.json().catch(() => null)) as { result?: T; error?: { message?: string } } | null;
    if (!body) throw new RpcError(`the RPC at ${url} answered ${res.status} without JSON`);
    if (body.error) throw new RpcError(`${method}: ${body.error.message ?? 'RPC error'}`);
    return body.result as T;
  };
}

// Bounds against a hostile or huge history (design §11): at most this many signatures are walked.
const PAGE = 1000;
const MAX_PAGES = 20;
const PARALLEL = 8;

/** Transactions fetched once; the verifier core looks them up synchronously. */
export class ChainReader {
  readonly #txs = new Map<string, RpcTransaction | null>();

  constructor(
    readonly rpc: RpcCall,
    readonly anchorKey: string,
  ) {}

  async transaction(signature: string): Promise<RpcTransaction | null> {
    if (!this.#txs.has(signature)) {
      const tx = await this.rpc<RpcTransaction | null>('getTransaction', [
        signature,
        { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
      ]);
      this.#txs.set(signature, tx && typeof tx === 'object' ? tx : null);
    }
    return this.#txs.get(signature) ?? null;
  }

  cached(signature: string): RpcTransaction | null | undefined {
    return this.#txs.get(signature);
  }

  /**
   * Walks the anchor key's history, newest first, until every wanted RNG chain head has been seen in an
   * `rng-head` memo signed by that key alone.
   * @returns the heads found, each with the signature of its transaction
   */
  async findRngHeads(wanted: ReadonlySet<string>): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    let before: string | undefined;
    for (let page = 0; page < MAX_PAGES && found.size < wanted.size; page++) {
      const list = await this.rpc<{ signature: string; err: unknown }[]>('getSignaturesForAddress', [
        this.anchorKey,
        { limit: PAGE, commitment: 'confirmed', ...(before ? { before } : {}) },
      ]);
      if (!Array.isArray(list)) throw new RpcError('getSignaturesForAddress did not return a list');
      const ok = list.filter((s) => s && typeof s.signature === 'string' && s.err === null);
      for (let i = 0; i < ok.length && found.size < wanted.size; i += PARALLEL) {
        const batch = ok.slice(i, i + PARALLEL);
        const txs = await Promise.all(batch.map((s) => this.transaction(s.signature)));
        for (const tx of txs) {
          for (const m of memosSignedBy(tx, this.anchorKey)) {
            if (m.memo.kind === 'rng-head' && wanted.has(m.memo.headHex) && !found.has(m.memo.headHex)) found.set(m.memo.headHex, m.signature);
          }
        }
      }
      if (list.length < PAGE) break;
      before = list[list.length - 1]!.signature;
    }
    return found;
  }
}
