// A player's withdrawals: the request (one atomic move from the balance to pending withdrawals, idempotent on the
// client's Idempotency-Key) and the view the API shows. The keeper (funding/keeper.ts) pays them out on-chain.
import { randomBytes } from 'node:crypto';
import { address } from '@solana/kit';
import { base32nopad } from '@scure/base';
import type { ChainSetup } from '../chain/genesis.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import { usdcAccountState } from '../chain/wallet-balance.ts';
import { gameRejected, PfwsError, rejectionError } from '../protocol/errors.ts';
import type { ExplorerLinks } from '../protocol/explorer.ts';
import { AmountError, microToNumber, parseAmount } from '../protocol/money.ts';
import type { WithdrawalRecord, WithdrawalStore } from '../store/withdrawals.ts';
import type { Address } from '../protocol/address.ts';

export interface WithdrawalDeps {
  withdrawals: WithdrawalStore;
  aliasOf: (wallet: string) => string;
  links: ExplorerLinks;
  clock: () => Date;
  /** Reads the wallet's USDC account: the keeper pays only into it and never creates it. */
  rpc: SolanaRpc;
  setup: Pick<ChainSetup, 'usdcMint'>;
  /** The smallest withdrawal (micro-USDC), and how many of one wallet may wait unpaid. */
  limits: { minimum: bigint; maxPending: number };
  /** Why the keeper holds payouts because the ledger is behind the journal archive (payout-gate.ts), else null. */
  payoutsHalted: () => Promise<string | null>;
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
    ...(w.returnedAt ? { returnedAt: w.returnedAt, returnReason: w.returnReason ?? 'no_token_account' } : {}),
  };
}

const NO_ACCOUNT_MESSAGE = {
  no_token_account:
    'The wallet has no USDC token account (its associated token account for the USDC mint) to receive the withdrawal, and the keeper never pays to create one: create it from the wallet (for example with a createAssociatedTokenIdempotent instruction it pays for), then withdraw',
  token_account_frozen: "The wallet's USDC token account is frozen and cannot receive the withdrawal",
} as const;

/**
 * `POST /api/protocol/v1/player/withdraw { amount }`: moves `amount` from the free balance to pending withdrawals.
 * The same Idempotency-Key with the same amount returns the same withdrawal; with another amount it is refused and
 * nothing moves; without a key, every request is a new withdrawal. The wallet must have its own USDC account: the
 * keeper pays only into it and never pays its rent.
 * @throws {PfwsError} INVALID_BET_AMOUNT (malformed, or below the minimum: `details.minimum`), INVALID_REQUEST (a
 *   malformed Idempotency-Key, or one reused with another amount: `details.reason: "idempotency_key_reused"`),
 *   GAME_INPUT_REJECTED `insufficient_balance`, `pending_withdrawal_limit`, `no_token_account` or `token_account_frozen`,
 *   SERVICE_UNAVAILABLE while the ledger is proven behind the journal archive (its balances may be from before debits
 *   whose payouts landed; a replay of an accepted key still answers)
 */
export async function requestWithdrawal(deps: WithdrawalDeps, wallet: Address, amountInput: unknown, idempotencyKey: string | undefined) {
  let amount: bigint;
  try {
    amount = parseAmount(amountInput);
  } catch (err) {
    if (err instanceof AmountError) throw new PfwsError('INVALID_BET_AMOUNT', `amount: ${err.message}`);
    throw err;
  }
  if (amount < deps.limits.minimum) {
    const minimum = microToNumber(deps.limits.minimum);
    throw new PfwsError('INVALID_BET_AMOUNT', `amount: the smallest withdrawal is ${minimum} USDC`, { minimum });
  }
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_RE.test(idempotencyKey)) {
    throw new PfwsError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  const id = newWithdrawalId();
  const key = idempotencyKey ?? id;
  // Read first, so that a replay answers without the chain and a request doomed anyway costs no RPC call; the script
  // checks all of it again, atomically.
  const { existing, balance, open } = await deps.withdrawals.preview(wallet, key);
  if (existing) {
    if (existing.amount !== null && existing.amount !== amount) throw keyReused(existing.amount, amount);
    return viewOf(deps, existing.id);
  }
  // The balance read may be stale (a restored ledger before recovery): nothing new is taken until it is rebuilt.
  if (await deps.payoutsHalted()) throw new PfwsError('SERVICE_UNAVAILABLE', HALTED_MESSAGE);
  if (amount > balance) throw insufficient(balance);
  if (open >= deps.limits.maxPending) throw pendingLimit(deps.limits.maxPending);
  const account = await usdcAccountState(deps.rpc, deps.setup, address(wallet));
  if (account !== 'payable') throw gameRejected(NO_ACCOUNT_MESSAGE[account], account);
  const now = deps.clock();
  const result = await deps.withdrawals.request(wallet, {
    id,
    amount,
    at: now.toISOString(),
    atMs: now.getTime(),
    alias: deps.aliasOf(wallet),
    idempotencyKey: key,
    maxPending: deps.limits.maxPending,
  });
  if (result.kind !== 'err') return viewOf(deps, result.id);
  switch (result.reason) {
    case 'late':
      throw rejectionError('late');
    case 'idempotency_key_reused':
      throw keyReused(result.amount, amount);
    case 'pending_withdrawal_limit':
      throw pendingLimit(deps.limits.maxPending);
    case 'insufficient_balance':
      throw insufficient(result.balance);
  }
}

const HALTED_MESSAGE = 'Withdrawals are paused while the operator rebuilds the ledger from its archive; retry later';

const insufficient = (balanceMicro: bigint) => {
  const balance = microToNumber(balanceMicro);
  return gameRejected(`The amount exceeds the free balance (${balance})`, 'insufficient_balance', { balance });
};

const pendingLimit = (maxPending: number) =>
  gameRejected(`This wallet already has ${maxPending} withdrawals waiting to be paid; wait for them first`, 'pending_withdrawal_limit', {
    maxPending,
  });

const keyReused = (firstMicro: bigint, thisMicro: bigint) =>
  new PfwsError('INVALID_REQUEST', 'This Idempotency-Key was used for a withdrawal of another amount; use a new key for a new withdrawal', {
    reason: 'idempotency_key_reused',
    amount: microToNumber(thisMicro),
    originalAmount: microToNumber(firstMicro),
  });

async function viewOf(deps: Pick<WithdrawalDeps, 'withdrawals' | 'links'>, id: string) {
  const record = await deps.withdrawals.get(id);
  if (!record) throw new Error(`withdrawal ${id} vanished`);
  return { withdrawal: withdrawalView(record, deps.links) };
}

/** A wallet's withdrawals for `player/status`, newest first: pending, sent and finalized, with signatures and links. */
export async function withdrawalsOf(deps: Pick<WithdrawalDeps, 'withdrawals' | 'links'>, wallet: Address, limit = 50) {
  return (await deps.withdrawals.ofWallet(wallet, limit)).map((w) => withdrawalView(w, deps.links));
}
