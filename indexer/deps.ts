// The indexer's dependencies, built from the shared services; player/sync uses the very same ones.
import type { Services } from '../services.ts';
import type { TailDeps } from './tail.ts';
import { applyWalletReveal } from '../games/wallet-reveal.ts';

export function tailDeps(services: Services): TailDeps {
  return {
    rpc: services.rpc,
    redis: services.redis,
    keys: services.keys,
    ledger: services.ledger,
    ctx: { usdcMint: services.setup.usdcMint, vaultTokenAccount: services.setup.vaultTokenAccount },
    commitment: services.config.INDEXER_COMMITMENT,
    now: services.now,
    onReveal: (reveal) => applyWalletReveal(services, reveal),
    waitingWallets: (committedBeforeMs) => services.bets.waitingWallets(committedBeforeMs, services.config.REVEAL_DEADLINE_MS, 100),
  };
}
