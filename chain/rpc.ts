// Chain access through JSON-RPC only, so production points at any cluster.
import { createDefaultRpcTransport, createSolanaRpcFromTransport, type Rpc, type RpcTransport, type SolanaRpcApi } from '@solana/kit';

export type SolanaRpc = Rpc<SolanaRpcApi>;

/** The RPC did not answer (unreachable, too slow, or an HTTP error): a request that needed it gets 503. */
export class ChainUnavailableError extends Error {
  override readonly name = 'ChainUnavailableError';
}

export const isChainUnavailable = (err: unknown): err is ChainUnavailableError => err instanceof ChainUnavailableError;

/**
 * A JSON-RPC client; with `timeoutMs`, each call waits at most that long. A failure to get an answer at all
 * becomes a {@link ChainUnavailableError}; an answer that is a JSON-RPC error stays what it is.
 */
export function createRpc(url: string, timeoutMs?: number): SolanaRpc {
  const base = createDefaultRpcTransport({ url });
  const transport = (async (config: Parameters<RpcTransport>[0]) => {
    const signals = [config.signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
    try {
      return await base({ ...config, ...(signals.length ? { signal: AbortSignal.any(signals) } : {}) });
    } catch (err) {
      // The caller's own abort is not an outage.
      if (config.signal?.aborted) throw err;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message;
      throw new ChainUnavailableError(`the chain RPC did not answer: ${reason}`, { cause: err });
    }
  }) as RpcTransport;
  return createSolanaRpcFromTransport(transport);
}
