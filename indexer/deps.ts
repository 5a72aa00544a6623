// The indexer's dependencies, built from the shared services (also used by player/sync).
import type { Services } from '../services.ts';
import type { TailDeps } from './tail.ts';

export function tailDeps(services: Services, onReveal?: TailDeps['onReveal']): TailDeps {
  return {
    rpc: services.rpc,
    redis: services.redis,
    keys: services.keys,
    ledger: services.ledger,
    ctx: { usdcMint: services.setup.usdcMint, vaultTokenAccount: services.setup.vaultTokenAccount },
    commitment: services.config.INDEXER_COMMITMENT,
    now: services.now,
    ...(onReveal ? { onReveal } : {}),
  };
}
