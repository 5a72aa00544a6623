// Unsigned LP transactions for a wallet (design §3): the wallet is the fee payer and the memo's only signer.
import { createNoopSigner, type Address } from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { ataOf, type ChainSetup } from './genesis.ts';
import { memoInstruction } from './memo.ts';
import { unsignedWire } from './player-transactions.ts';
import type { SolanaRpc } from './rpc.ts';
import { lpDepositMemo, lpRedeemMemo } from '../protocol/memo.ts';
import { USDC_DECIMALS } from '../protocol/money.ts';

/**
 * `POST /api/protocol/v1/house/lp-deposit-transaction { amount }`: `amount` USDC from the wallet's ATA into the vault,
 * with `pfws:v1:lp-deposit:<wallet>`. The indexer credits it as an LP deposit; the keeper then mints shares at NAV.
 */
export async function buildLpDepositTransaction(
  rpc: SolanaRpc,
  setup: Pick<ChainSetup, 'usdcMint' | 'vaultTokenAccount'>,
  wallet: Address,
  amountMicro: bigint,
) {
  if (amountMicro <= 0n) throw new RangeError('an LP deposit must be positive');
  const payer = createNoopSigner(wallet);
  return unsignedWire(rpc, wallet, [
    getTransferCheckedInstruction({
      source: await ataOf(wallet, setup.usdcMint),
      mint: setup.usdcMint,
      destination: setup.vaultTokenAccount,
      authority: payer,
      amount: amountMicro,
      decimals: USDC_DECIMALS,
    }),
    memoInstruction(lpDepositMemo(wallet), [payer]),
  ]);
}

/**
 * `POST /api/protocol/v1/house/lp-redeem-transaction { shares }`: `shares` LP tokens from the wallet's LP ATA to the
 * keeper's LP ATA, with `pfws:v1:lp-redeem:<wallet>`. The keeper burns them and pays USDC at NAV per share.
 */
export async function buildLpRedeemTransaction(rpc: SolanaRpc, setup: Pick<ChainSetup, 'lpMint' | 'vaultAuthority'>, wallet: Address, shares: bigint) {
  if (shares <= 0n) throw new RangeError('an LP redemption must be positive');
  const payer = createNoopSigner(wallet);
  return unsignedWire(rpc, wallet, [
    getTransferCheckedInstruction({
      source: await ataOf(wallet, setup.lpMint),
      mint: setup.lpMint,
      destination: await ataOf(setup.vaultAuthority, setup.lpMint),
      authority: payer,
      amount: shares,
      decimals: USDC_DECIMALS,
    }),
    memoInstruction(lpRedeemMemo(wallet), [payer]),
  ]);
}
