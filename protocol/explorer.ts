// Block-explorer links for transactions and accounts, by one rule for the service's receipts and the pages.

export interface ExplorerLinks {
  transaction(signature: string): string;
  account(address: string): string;
}

/**
 * Links on the explorer at `baseUrl`; a localnet is named as a custom cluster at the RPC URL clients use.
 * @example explorerLinks({ baseUrl: 'https://explorer.solana.com', cluster: 'devnet', rpcUrl: '' }).account('Abc')
 */
export function explorerLinks(o: { baseUrl: string; cluster: string; rpcUrl: string }): ExplorerLinks {
  const base = o.baseUrl.replace(/\/+$/, '');
  const query =
    o.cluster === 'localnet'
      ? `?cluster=custom&customUrl=${encodeURIComponent(o.rpcUrl)}`
      : o.cluster === 'mainnet-beta'
        ? ''
        : `?cluster=${encodeURIComponent(o.cluster)}`;
  return {
    transaction: (signature) => `${base}/tx/${encodeURIComponent(signature)}${query}`,
    account: (address) => `${base}/address/${encodeURIComponent(address)}${query}`,
  };
}
