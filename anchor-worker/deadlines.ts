// No free options: a committed bet that was not revealed settles at its deadline, with a seed we know
// (recovery store or wallet memo) or as a loss. It is never voided or refunded.
import type { Services } from '../services.ts';
import { settleDiceBet } from '../games/dice.ts';
import { settleSweeperTurn } from '../games/sweeper.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import type { BetRecord } from '../store/bets.ts';

export type DeadlineSettler = (services: Services, bet: BetRecord, clientSeedRaw: string | null) => Promise<void>;

const settlers: Record<string, DeadlineSettler> = {
  dice: async (services, bet, clientSeedRaw) => {
    await settleDiceBet(services, bet, clientSeedRaw ? { clientSeedRaw, revealSignature: null, via: 'recovery' } : null);
  },
  sweeper: async (services, bet, clientSeedRaw) => {
    await settleSweeperTurn(services, bet, clientSeedRaw ? { clientSeedRaw, revealSignature: null, via: 'recovery' } : null);
  },
};

/** @returns how many bets were settled */
export async function settleDueBets(services: Services, limit = 200): Promise<number> {
  const due = await services.bets.dueBets(services.now().getTime(), limit);
  let settled = 0;
  for (const hash of due) {
    const bet = await services.bets.bet(hash);
    if (!bet || bet.state === 'settled') {
      await services.redis.zrem(services.keys.deadlines(), hash);
      continue;
    }
    const stored = await services.bets.recoverySeed(hash);
    const seed = stored && verifyCommitment(stored, bet.commitment) ? stored : null;
    const settle = settlers[bet.game];
    if (!settle) continue;
    try {
      await settle(services, bet, seed);
      settled++;
    } catch (err) {
      services.logger.error({ err, betPayloadHash: hash }, 'deadline settlement failed');
    }
  }
  return settled;
}
