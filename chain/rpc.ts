// Chain access through JSON-RPC only, so production points at any cluster.
import { createSolanaRpc, type Rpc, type SolanaRpcApi } from '@solana/kit';

export type SolanaRpc = Rpc<SolanaRpcApi>;

export const createRpc = (url: string): SolanaRpc => createSolanaRpc(url);
