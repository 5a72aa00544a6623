// Everything a verification run shares: the API and RPC clients, the published config, RNG anchors, progress.
import { RngAnchors } from '../protocol/verify/rng.ts';
import { ApiClient, RpcClient } from './http.ts';
import { ChainData } from './chain-data.ts';
import type { Progress } from './progress.ts';

/** `GET /api/protocol/v1/config`, the fields the verifier reads. */
export interface PublishedConfig {
  cluster: string;
  rpcUrl: string;
  operatorPublicKey: string;
  ackPublicKey: string;
  vaultTokenAccount: string;
  usdcMint: string;
}

export interface VerifierContext {
  api: ApiClient;
  config: PublishedConfig;
  chain: ChainData;
  rng: RngAnchors;
  progress: Progress;
}

/** Reads the published config and connects to the RPC it names (or `rpcOverride`). */
export async function openContext(apiUrl: string, progress: Progress, rpcOverride?: string): Promise<VerifierContext> {
  const api = new ApiClient(apiUrl);
  const config = await api.get<PublishedConfig>('/protocol/v1/config');
  const rpc = new RpcClient(rpcOverride ?? config.rpcUrl);
  return { api, config, chain: new ChainData(rpc, config.operatorPublicKey), rng: new RngAnchors(), progress };
}
