// No free options: a committed bet that was not revealed settles at its deadline, with a seed we know
// (recovery store or wallet memo) or as a loss. It is never voided or refunded. And an open Sweeper ticket left
// idle (no turn in flight for TICKET_IDLE_MS) is closed, so its stake and banked payout do not sit in the books for
// ever (design §10); it holds no exposure meanwhile, only a turn in flight does.
import type { Logger } from 'pino';
import { tailAddress, type TailDeps } from '../funding/tail.ts';
import type { BetLifecycle } from './lifecycle.ts';
import type { BetStore } from '../store/bets.ts';
import type { TicketStore } from '../store/tickets.ts';

export interface DeadlineDeps {
  bets: BetStore;
  tickets: TicketStore;
  lifecycle: BetLifecycle;
  /** TICKET_IDLE_MS. */
  ticketIdleMs: number;
  /** Reads a wallet's own transactions, where a `pfws:v1:reveal` memo may wait. */
  tail: TailDeps;
  clock: () => Date;
  logger: Logger;
}

/** @returns how many bets were settled */
export async function settleDueBets(deps: DeadlineDeps, limit = 200): Promise<number> {
  const { bets, lifecycle } = deps;
  const due = await bets.dueBets(deps.clock().getTime(), limit);
  let settled = 0;
  let chainUnreadable = false;
  for (const hash of due) {
    const bet = await bets.bet(hash);
    if (!bet || bet.state === 'settled') {
      await bets.forgetDeadline(hash);
      continue;
    }
    // Before settling without a seed, read the wallet's own transactions: a `pfws:v1:reveal` memo there
    // settles the bet with its seed. A bet whose wallet cannot be read waits for a later pass.
    let seed = await lifecycle.knownSeed(bet);
    if (!seed) {
      try {
        await tailAddress(deps.tail, bet.wallet);
      } catch (err) {
        if (!chainUnreadable) deps.logger.warn({ err, wallet: bet.wallet }, "deadlines: cannot read a wallet's reveal memos; retrying next pass");
        chainUnreadable = true;
        continue;
      }
      const after = await bets.bet(hash);
      if (!after || after.state === 'settled') {
        settled++;
        continue;
      }
      seed = await lifecycle.knownSeed(bet);
    }
    try {
      await lifecycle.settle(bet, seed ? { clientSeedRaw: seed, revealSignature: null, via: 'recovery' } : null);
      settled++;
    } catch (err) {
      deps.logger.error({ err, betPayloadHash: hash }, 'deadline settlement failed');
    }
  }
  return settled;
}

/**
 * Closes every Sweeper ticket idle for TICKET_IDLE_MS: cashed out at the current payout after a won row, expired with
 * its stake back before any; the receipt says `closedBy: 'idle'`.
 * @returns how many tickets were closed
 */
export async function closeIdleTickets(deps: DeadlineDeps, limit = 200): Promise<number> {
  const cutoff = deps.clock().getTime() - deps.ticketIdleMs;
  let closed = 0;
  for (const ticketId of await deps.tickets.idleTickets(cutoff, limit)) {
    try {
      if (await deps.lifecycle.closeIdle('sweeper', ticketId, deps.ticketIdleMs)) closed++;
      else await deps.tickets.forgetIdle(ticketId);
    } catch (err) {
      deps.logger.error({ err, ticketId }, 'idle ticket close failed');
    }
  }
  return closed;
}
