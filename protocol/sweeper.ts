// Sweeper rules (design §4): 8 rows, one mine per row, integer multiplier floor(9900 × cols^k / safe^k).
import { OutcomeStream } from './outcome.ts';

export const SWEEPER_ROWS = 8;
export const SWEEPER_MODES = {
  easy: { columns: 4, mines: 1 },
  medium: { columns: 3, mines: 1 },
  hard: { columns: 2, mines: 1 },
} as const;
export type SweeperMode = keyof typeof SWEEPER_MODES;

export const isSweeperMode = (mode: unknown): mode is SweeperMode => typeof mode === 'string' && Object.hasOwn(SWEEPER_MODES, mode);

/**
 * multiplierBps after k cleared rows.
 * @throws {RangeError} when k is outside [0, 8]
 * @example sweeperMultiplierBps('hard', 1) // 19800n
 */
export function sweeperMultiplierBps(mode: SweeperMode, k: number): bigint {
  if (!Number.isSafeInteger(k) || k < 0 || k > SWEEPER_ROWS) throw new RangeError('rows out of range');
  const { columns, mines } = SWEEPER_MODES[mode];
  const cols = BigInt(columns);
  const safe = BigInt(columns - mines);
  return (9_900n * cols ** BigInt(k)) / safe ** BigInt(k);
}

export const sweeperPayout = (wagerMicro: bigint, mode: SweeperMode, k: number): bigint => (wagerMicro * sweeperMultiplierBps(mode, k)) / 10_000n;

/** The mine column of one choice turn: one draw in [0, columns). */
export function sweeperMineColumn(input: { rngValueHex: string; clientSeedRaw: string; betPayloadHash: string; mode: SweeperMode }): number {
  const stream = new OutcomeStream(input.rngValueHex, input.clientSeedRaw, input.betPayloadHash);
  return stream.drawInt(SWEEPER_MODES[input.mode].columns);
}

/**
 * What an open ticket after `k` cleared rows is owed if it closed now (design §3, §10): its current payout once a row
 * is won (a cashout or an idle close pays it), else its stake (an idle close returns it). A liability, not exposure.
 * @example sweeperOwed(1_000_000n, 'hard', 0) // 1_000_000n; sweeperOwed(1_000_000n, 'hard', 1) // 1_980_000n
 */
export const sweeperOwed = (wagerMicro: bigint, mode: SweeperMode, k: number): bigint => (k >= 1 ? sweeperPayout(wagerMicro, mode, k) : wagerMicro);

/** The part of an open ticket's payout banked above its stake (the stake is counted as a stake in play). */
export const sweeperBanked = (wagerMicro: bigint, mode: SweeperMode, k: number): bigint => sweeperOwed(wagerMicro, mode, k) - wagerMicro;

/**
 * The exposure a choice turn for row `k` reserves while it is in flight: what the ticket would be owed if the row
 * clears, minus what it is owed now. A cashout reserves nothing, and neither does an idle ticket.
 * @throws {RangeError} when `k` is outside [0, 7]
 * @example sweeperTurnExposure(1_000_000n, 'hard', 0) // 980_000n
 */
export function sweeperTurnExposure(wagerMicro: bigint, mode: SweeperMode, k: number): bigint {
  if (!Number.isSafeInteger(k) || k < 0 || k >= SWEEPER_ROWS) throw new RangeError('no row to play');
  return sweeperPayout(wagerMicro, mode, k + 1) - sweeperOwed(wagerMicro, mode, k);
}
