// A player's withdrawals: the request (one atomic move from the balance to pending withdrawals, idempotent on the
// client's Idempotency-Key) and the view the API shows. The keeper (funding/keeper.ts) pays them out on-chain.
import { randomBytes } from 'node:crypto';
import { base32nopad } from '@scure/base';
import { gameRejected, PfwsError, rejectionError } from '../protocol/errors.ts';
import type { ExplorerLinks } from '../protocol/explorer.ts';
import { AmountError, microToNumber, parseAmount } from '../protocol/money.ts';
import type { WithdrawalRecord, WithdrawalStore } from '../store/withdrawals.ts';

export interface WithdrawalDeps {
  withdrawals: WithdrawalStore;
  aliasOf: (wallet: string) => string;
  links: ExplorerLinks;
  clock: () => Date;
}

/** Printable ASCII, as HTTP header values are; the store keys it by its sha256. */
const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** `wd_` and 26 base32 characters (130 random bits); fits the memo's `[A-Za-z0-9_-]{1,64}`. */
export const newWithdrawalId = (): string => `wd_${base32nopad.encode(randomBytes(17)).slice(0, 26).toLowerCase()}`;

/** The design §3 shape, plus the explorer link of the payout once there is one. */
export function withdrawalView(w: WithdrawalRecord, links: ExplorerLinks) {
  return {
    id: w.id,
    amount: microToNumber(w.amount),
    status: w.status,
    createdAt: w.createdAt,
    ...(w.signature ? { signature: w.signature, explorerUrl: links.transaction(w.signature) } : {}),
    ...(w.finalizedAt ? { finalizedAt: w.finalizedAt } : {}),
  };
}

/**
 * `POST /api/protocol/v1/player/withdraw { amount }`: moves `amount` from the free balance to pending withdrawals.
 * The same Idempotency-Key returns the same withdrawal; without one, every request is a new withdrawal.
 * @throws {PfwsError} INVALID_BET_AMOUNT, INVALID_REQUEST (a malformed Idempotency-Key), GAME_INPUT_REJECTED
 *   `insufficient_balance`
 */
export async function requestWithdrawal(deps: WithdrawalDeps, wallet: string, amountInput: unknown, idempotencyKey: string | undefined) {
  let amount: bigint;
  try {
    amount = parseAmount(amountInput);
  } catch (err) {
    if (err instanceof AmountError) throw new PfwsError('INVALID_BET_AMOUNT', `amount: ${err.message}`);
    throw err;
  }
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_RE.test(idempotencyKey)) {
    throw new PfwsError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  const id = newWithdrawalId();
  const now = deps.clock();
  const result = await deps.withdrawals.request(wallet, {
    id,
    amount,
    at: now.toISOString(),
    atMs: now.getTime(),
    alias: deps.aliasOf(wallet),
    idempotencyKey: idempotencyKey ?? id,
  });
  if (result.kind === 'err' && result.reason === 'late') throw rejectionError('late');
  if (result.kind === 'err') {
    const balance = microToNumber(result.balance);
    throw gameRejected(`The amount exceeds the free balance (${balance})`, 'insufficient_balance', { balance });
  }
  const record = await deps.withdrawals.get(result.id);
  if (!record) throw new Error(`withdrawal ${result.id} vanished`);
  return { withdrawal: withdrawalView(record, deps.links) };
}

/** A wallet's withdrawals for `player/status`, newest first: pending, sent and finalized, with signatures and links. */
export async function withdrawalsOf(deps: Pick<WithdrawalDeps, 'withdrawals' | 'links'>, wallet: string, limit = 50) {
  return (await deps.withdrawals.ofWallet(wallet, limit)).map((w) => withdrawalView(w, deps.links));
}
