// Block-explorer links built from /config, by the same rule as the service's own commit links (store/anchor-links.ts).
import type { PublishedConfig } from './types.ts';

export interface Explorer {
  transaction(signature: string): string;
  account(address: string): string;
}

/** A localnet is named as a custom cluster at the RPC URL the service publishes. */
export function explorer(config: Pick<PublishedConfig, 'explorerBaseUrl' | 'cluster' | 'rpcUrl'>): Explorer {
  const base = config.explorerBaseUrl.replace(/\/+$/, '');
  const query =
    config.cluster === 'localnet'
      ? `?cluster=custom&customUrl=${encodeURIComponent(config.rpcUrl)}`
      : config.cluster === 'mainnet-beta'
        ? ''
        : `?cluster=${encodeURIComponent(config.cluster)}`;
  return {
    transaction: (signature) => `${base}/tx/${encodeURIComponent(signature)}${query}`,
    account: (address) => `${base}/address/${encodeURIComponent(address)}${query}`,
  };
}
