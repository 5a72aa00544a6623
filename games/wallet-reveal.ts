// A wallet's on-chain `pfws:v1:reveal:<betPayloadHash>:<clientSeedRaw>` memo settles its own committed bet.
import type { Services } from '../services.ts';
import type { WalletReveal } from '../indexer/crediting.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import { settleDiceBet } from './dice.ts';
import { settleSweeperTurn } from './sweeper.ts';

export async function applyWalletReveal(services: Services, reveal: WalletReveal): Promise<void> {
  const bet = await services.bets.bet(reveal.betPayloadHash);
  if (!bet || bet.wallet !== reveal.wallet || bet.state !== 'committed') return;
  if (!verifyCommitment(reveal.clientSeedRaw, bet.commitment)) return;
  await services.bets.saveRecoverySeed(bet.hash, reveal.clientSeedRaw);
  const via = { clientSeedRaw: reveal.clientSeedRaw, revealSignature: null, via: 'wallet-memo' as const };
  if (bet.game === 'dice') await settleDiceBet(services, bet, via);
  else await settleSweeperTurn(services, bet, via);
}
