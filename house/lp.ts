// The wallet's side of the LP flows (design §3): unsigned transactions that send USDC to the vault with
// `pfws:v1:lp-deposit:<wallet>`, or LP tokens to the keeper with `pfws:v1:lp-redeem:<wallet>`. The indexer reads them
// off the chain and the keeper mints or pays (funding/keeper.ts); nothing here moves money.
import { address } from '@solana/kit';
import { buildLpDepositTransaction, buildLpRedeemTransaction } from '../chain/lp-transactions.ts';
import { gameRejected, PfwsError } from '../protocol/errors.ts';
import { lpDepositMemo, lpRedeemMemo } from '../protocol/memo.ts';
import { AmountError, microToNumber, parseAmount } from '../protocol/money.ts';
import { houseState, lpSharesOf, type HouseDeps } from './view.ts';
import type { Address } from '../protocol/address.ts';

function parsePositive(value: unknown, field: string, code: 'INVALID_BET_AMOUNT' | 'INVALID_REQUEST'): bigint {
  try {
    return parseAmount(value);
  } catch (err) {
    if (err instanceof AmountError) throw new PfwsError(code, `${field}: ${err.message}`);
    throw err;
  }
}

async function assertFlowsOpen(deps: HouseDeps): Promise<void> {
  const { nav } = await houseState(deps);
  if (nav <= 0n) throw gameRejected('LP flows are stopped while the house NAV is not positive', 'lp_flows_stopped');
}

const wire = (built: { transaction: string; lastValidBlockHeight: bigint }, memo: string) => ({
  transaction: built.transaction,
  lastValidBlockHeight: built.lastValidBlockHeight.toString(),
  memo,
});

/**
 * `POST /api/protocol/v1/house/lp-deposit-transaction { amount }`: the unsigned deposit (the wallet pays the fee).
 * @throws {PfwsError} INVALID_BET_AMOUNT, GAME_INPUT_REJECTED `lp_flows_stopped`
 */
export async function lpDepositTransaction(deps: HouseDeps, wallet: Address, amountInput: unknown) {
  const amount = parsePositive(amountInput, 'amount', 'INVALID_BET_AMOUNT');
  await assertFlowsOpen(deps);
  const owner = address(wallet);
  return wire(await buildLpDepositTransaction(deps.rpc, deps.setup, owner, amount), lpDepositMemo(owner));
}

/**
 * `POST /api/protocol/v1/house/lp-redeem-transaction { shares }`: the unsigned redemption request. Shares have 6
 * decimals, like USDC.
 * @throws {PfwsError} INVALID_REQUEST (bad shares), GAME_INPUT_REJECTED `insufficient_shares` or `lp_flows_stopped`
 */
export async function lpRedeemTransaction(deps: HouseDeps, wallet: Address, sharesInput: unknown) {
  const shares = parsePositive(sharesInput, 'shares', 'INVALID_REQUEST');
  const held = await lpSharesOf(deps, wallet);
  if (shares > held) throw gameRejected(`The wallet holds ${microToNumber(held)} LP shares`, 'insufficient_shares', { shares: microToNumber(held) });
  await assertFlowsOpen(deps);
  const owner = address(wallet);
  return wire(await buildLpRedeemTransaction(deps.rpc, deps.setup, owner, shares), lpRedeemMemo(owner));
}
