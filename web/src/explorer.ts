// Block-explorer links built from /config, by the service's own rule (protocol/explorer.ts).
import { explorerLinks, type ExplorerLinks } from '../../protocol/explorer.ts';
import type { PublishedConfig } from './types.ts';

export type Explorer = ExplorerLinks;

export const explorer = (config: Pick<PublishedConfig, 'explorerBaseUrl' | 'cluster' | 'rpcUrl'>): Explorer =>
  explorerLinks({ baseUrl: config.explorerBaseUrl, cluster: config.cluster, rpcUrl: config.rpcUrl });
