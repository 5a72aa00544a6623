// Holding exposure as an attacker does: unrevealed 99x Dice bets, each as large as the house and the wallet's share
// allow, until the service refuses one; and idle hard tickets at the largest stake whose full board fits maxPayout.
import { sweeperMultiplierBps } from '../../protocol/sweeper.ts';
import { type Attacker, isRefusal, type OpenBet, type Refusal } from './attacker.ts';
import { micro, type Target } from './target.ts';

/** A 99x bet of w pays 99w and holds 98w of exposure. */
const PAYOUT_X = 99n;
const EXPOSURE_X = 98n;

/**
 * Commits unrevealed 99x bets until the service refuses one it cannot shrink to fit (the wallet's share, the house's
 * maxExposure, the unrevealed-bet cap or the balance). A refusal that names the room left is followed by a bet that
 * fits it, as an attacker reading the error would.
 */
export async function fillWithDice(target: Target, w: Attacker, maxBets = 64): Promise<{ bets: OpenBet[]; stoppedBy: Refusal }> {
  const bets: OpenBet[] = [];
  const house = await target.house();
  let wager = house.maxPayout / PAYOUT_X < house.maxBet ? house.maxPayout / PAYOUT_X : house.maxBet;
  for (let i = 0; i < maxBets; i++) {
    const balance = micro((await w.status()).balance);
    if (wager > balance) wager = balance;
    if (wager <= 0n) return { bets, stoppedBy: { status: 0, reason: 'balance spent' } };
    const out = await w.commit99x(wager);
    if (!isRefusal(out)) {
      bets.push(out);
      continue;
    }
    const d = out.details ?? {};
    let next = 0n;
    if (out.reason === 'wallet_exposure' && typeof d.maxWalletExposure === 'number' && typeof d.walletExposure === 'number') {
      next = (micro(d.maxWalletExposure) - micro(d.walletExposure)) / EXPOSURE_X;
    } else if (out.reason === 'max_exposure') {
      const now = await target.house();
      next = (now.maxExposure - now.openExposure) / EXPOSURE_X;
    }
    if (next > 0n && next < wager) {
      wager = next;
      continue;
    }
    return { bets, stoppedBy: out };
  }
  return { bets, stoppedBy: { status: 0, reason: `stopped after ${maxBets} bets` } };
}

/** The largest hard-ticket stake whose full-board payout fits maxPayout. */
export async function hardTicketStake(target: Target): Promise<bigint> {
  const { maxPayout } = await target.house();
  return (maxPayout * 10_000n) / sweeperMultiplierBps('hard', 8);
}

/** Sums the stakes of open bets. */
export const staked = (bets: readonly OpenBet[]): bigint => bets.reduce((n, b) => n + b.wager, 0n);

/** The reveal deadline an ack signed, in seconds from the commit. */
export const deadlineSeconds = (b: Pick<OpenBet, 'committedAt' | 'revealDeadline'>): number =>
  (Date.parse(b.revealDeadline) - Date.parse(b.committedAt)) / 1000;
