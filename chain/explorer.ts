// Block-explorer links for commits: the transaction and the anchor key's account.
import type { Config } from '../config/env.ts';

export interface ExplorerLinks {
  transaction(signature: string): string;
  account(address: string): string;
}

/** Links on `EXPLORER_BASE_URL`; a localnet is named as a custom cluster at its RPC URL. */
export function explorerLinks(config: Pick<Config, 'EXPLORER_BASE_URL' | 'cluster' | 'PUBLIC_RPC_URL'>, rpcUrl: string): ExplorerLinks {
  const base = config.EXPLORER_BASE_URL.replace(/\/+$/, '');
  const query =
    config.cluster === 'localnet'
      ? `?cluster=custom&customUrl=${encodeURIComponent(config.PUBLIC_RPC_URL ?? rpcUrl)}`
      : config.cluster === 'mainnet-beta'
        ? ''
        : `?cluster=${config.cluster}`;
  return {
    transaction: (signature) => `${base}/tx/${signature}${query}`,
    account: (address) => `${base}/address/${address}${query}`,
  };
}
