// Conservation, from three independent sources: the vault on-chain, every player's ledger, the house's game results.
import { address, createSolanaRpc } from '@solana/kit';
import type { TestService } from './service.ts';
import type { Player } from './player.ts';

export interface Books {
  /** The vault token account's balance, read through the RPC. */
  vault: bigint;
  /** Σ (balance + stake in play) over the given players. */
  liabilities: bigint;
  exposure: bigint;
  /** House capital + game net − open exposure: NAV computed without the vault. */
  nav: bigint;
  unattributed: bigint;
}

export async function books(svc: TestService, players: readonly Player[]): Promise<Books> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  const vault = BigInt((await rpc.getTokenAccountBalance(address(svc.wiring.setup.vaultTokenAccount)).send()).value.amount);
  const house = await svc.wiring.stores.ledger.house();
  let liabilities = 0n;
  for (const p of players) {
    const s = await svc.wiring.stores.ledger.player(p.address);
    liabilities += s.balance + s.staked;
  }
  return { vault, liabilities, exposure: house.exposure, nav: house.capital + house.gameNet - house.exposure, unattributed: house.unattributed };
}
