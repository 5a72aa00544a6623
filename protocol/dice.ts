// Dice rules (design §4): one draw in [0, 10000), integer multiplier and payout.
import { OutcomeStream } from './outcome.ts';

export type DiceDirection = 'under' | 'over';
export const DICE_RANGE = 10_000;
export const MIN_WINNING_COUNT = 100;
export const MAX_WINNING_COUNT = 9_800;
const TARGET_RE = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

export class DiceRuleError extends Error {
  override readonly name = 'DiceRuleError';
}

/**
 * targetBps = target × 100 exactly, from the shortest decimal string.
 * @throws {DiceRuleError} when the target is not a number with at most 2 decimals in [0, 100]
 * @example targetToBps(49.5) // 4950
 */
export function targetToBps(target: unknown): number {
  if (typeof target !== 'number' || !Number.isFinite(target)) throw new DiceRuleError('target must be a finite number');
  const match = TARGET_RE.exec(String(target));
  if (!match) throw new DiceRuleError('target must be between 0 and 100 with at most 2 decimals');
  const bps = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (bps > DICE_RANGE) throw new DiceRuleError('target must be between 0 and 100');
  return bps;
}

/** @throws {DiceRuleError} when the direction is unknown or the winning count is outside [100, 9800] */
export function winningCount(direction: unknown, targetBps: number): number {
  if (direction !== 'under' && direction !== 'over') throw new DiceRuleError('direction must be "under" or "over"');
  const count = direction === 'under' ? targetBps : DICE_RANGE - 1 - targetBps;
  if (count < MIN_WINNING_COUNT || count > MAX_WINNING_COUNT) {
    throw new DiceRuleError(`target out of range: the winning chance must be between 1% and 98% (winning count ${count})`);
  }
  return count;
}

/** floor(99_000_000 / c): a 1% edge. */
export const diceMultiplierBps = (count: number): bigint => 99_000_000n / BigInt(count);

export const dicePayout = (wagerMicro: bigint, multiplierBps: bigint): bigint => (wagerMicro * multiplierBps) / 10_000n;

export function diceWins(direction: DiceDirection, targetBps: number, roll: number): boolean {
  return direction === 'under' ? roll < targetBps : roll > targetBps;
}

export interface DiceOutcome {
  roll: number;
  won: boolean;
  multiplierBps: bigint;
  payout: bigint;
}

/** Recomputes a dice bet from its inputs; used identically by the service and the verifier. */
export function settleDice(input: {
  rngValueHex: string;
  clientSeedRaw: string;
  betPayloadHash: string;
  direction: DiceDirection;
  targetBps: number;
  wagerMicro: bigint;
}): DiceOutcome {
  const roll = new OutcomeStream(input.rngValueHex, input.clientSeedRaw, input.betPayloadHash).drawInt(DICE_RANGE);
  const multiplierBps = diceMultiplierBps(winningCount(input.direction, input.targetBps));
  const won = diceWins(input.direction, input.targetBps, roll);
  return { roll, won, multiplierBps, payout: won ? dicePayout(input.wagerMicro, multiplierBps) : 0n };
}
