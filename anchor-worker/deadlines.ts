// No free options: a committed bet that was not revealed settles at its deadline, with a seed we know
// (recovery store or wallet memo) or as a loss. It is never voided or refunded.
import type { Services } from '../services.ts';
import { settleDiceBet } from '../games/dice.ts';
import { settleSweeperTurn } from '../games/sweeper.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import type { BetRecord } from '../store/bets.ts';
import { tailAddress } from '../indexer/tail.ts';
import { tailDeps } from '../indexer/deps.ts';

export type DeadlineSettler = (services: Services, bet: BetRecord, clientSeedRaw: string | null) => Promise<void>;

const settlers: Record<string, DeadlineSettler> = {
  dice: async (services, bet, clientSeedRaw) => {
    await settleDiceBet(services, bet, clientSeedRaw ? { clientSeedRaw, revealSignature: null, via: 'recovery' } : null);
  },
  sweeper: async (services, bet, clientSeedRaw) => {
    await settleSweeperTurn(services, bet, clientSeedRaw ? { clientSeedRaw, revealSignature: null, via: 'recovery' } : null);
  },
};

async function knownSeed(services: Services, bet: BetRecord): Promise<string | null> {
  const stored = await services.bets.recoverySeed(bet.hash);
  return stored && verifyCommitment(stored, bet.commitment) ? stored : null;
}

/** @returns how many bets were settled */
export async function settleDueBets(services: Services, limit = 200): Promise<number> {
  const due = await services.bets.dueBets(services.now().getTime(), limit);
  let settled = 0;
  let chainUnreadable = false;
  const chain = tailDeps(services);
  for (const hash of due) {
    const bet = await services.bets.bet(hash);
    if (!bet || bet.state === 'settled') {
      await services.redis.zrem(services.keys.deadlines(), hash);
      continue;
    }
    const settle = settlers[bet.game];
    if (!settle) continue;
    // Before settling without a seed, read the wallet's own transactions: a `pfws:v1:reveal` memo there
    // settles the bet with its seed. A bet whose wallet cannot be read waits for a later pass.
    let seed = await knownSeed(services, bet);
    if (!seed) {
      try {
        await tailAddress(chain, bet.wallet);
      } catch (err) {
        if (!chainUnreadable) services.logger.warn({ err, wallet: bet.wallet }, 'deadlines: cannot read a wallet\'s reveal memos; retrying next pass');
        chainUnreadable = true;
        continue;
      }
      const after = await services.bets.bet(hash);
      if (!after || after.state === 'settled') {
        settled++;
        continue;
      }
      seed = await knownSeed(services, bet);
    }
    try {
      await settle(services, bet, seed);
      settled++;
    } catch (err) {
      services.logger.error({ err, betPayloadHash: hash }, 'deadline settlement failed');
    }
  }
  return settled;
}
