// A player's funding side: status (balance, stakes, keys, withdrawals), the unsigned setup and revoke
// transactions, and `sync`, which applies the wallet's confirmed transactions through the indexer's own path.
import { address, type Address } from '@solana/kit';
import { buildRevokeTransaction, buildSetupTransaction } from '../chain/player-transactions.ts';
import { walletUsdcBalance } from '../chain/wallet-balance.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { ChainSetup } from '../chain/genesis.ts';
import { isStrictEd25519PublicKey } from '../protocol/crypto.ts';
import { fromBase58 } from '../protocol/encoding.ts';
import { gameRejected, PfwsError } from '../protocol/errors.ts';
import { revokeMemo, setupMemo } from '../protocol/memo.ts';
import { AmountError, microToNumber, parseNonNegativeAmount } from '../protocol/money.ts';
import type { ExplorerLinks } from '../protocol/explorer.ts';
import type { LedgerStore } from '../store/ledger.ts';
import type { WithdrawalStore } from '../store/withdrawals.ts';
import { tailAddress, watchWallet, type TailDeps } from './tail.ts';
import { withdrawalsOf } from './withdrawals.ts';

export interface PlayerDeps {
  ledger: LedgerStore;
  withdrawals: WithdrawalStore;
  links: ExplorerLinks;
  rpc: SolanaRpc;
  setup: ChainSetup;
  tail: TailDeps;
  aliasOf: (wallet: string) => string;
}

/** A session key must be a valid, non-small-order Ed25519 point. */
export function assertSessionPubkey(value: string): void {
  let ok = false;
  try {
    ok = isStrictEd25519PublicKey(fromBase58(value, 32));
  } catch {
    ok = false;
  }
  if (!ok) throw new PfwsError('INVALID_REQUEST', 'sessionPubkey must be a base58 Ed25519 public key that is not of small order');
}

export async function playerStatus(deps: Pick<PlayerDeps, 'ledger' | 'aliasOf' | 'withdrawals' | 'links'>, wallet: Address) {
  const [player, keys, withdrawals] = await Promise.all([deps.ledger.player(wallet), deps.ledger.sessionKeys(wallet), withdrawalsOf(deps, wallet)]);
  return {
    walletAddress: wallet,
    alias: deps.aliasOf(wallet),
    balance: microToNumber(player.balance),
    exposure: microToNumber(player.exposure),
    stakedInPlay: microToNumber(player.staked),
    pendingWithdrawals: microToNumber(player.pendingWithdrawals),
    nonces: { bet: player.nonce },
    sessionKeys: Object.entries(keys).map(([sessionPubkey, k]) => ({
      sessionPubkey,
      status: k.status,
      slot: k.slot,
      signature: k.signature,
      updatedAt: k.at,
    })),
    withdrawals,
    totals: {
      deposited: microToNumber(player.deposited),
      wagered: microToNumber(player.wagered),
      paidOut: microToNumber(player.paidOut),
      plays: player.plays,
      wins: player.wins,
    },
  };
}

const wire = (built: { transaction: string; lastValidBlockHeight: bigint }, memo: string) => ({
  ...built,
  lastValidBlockHeight: built.lastValidBlockHeight.toString(),
  memo,
});

/**
 * The unsigned setup transaction: authorizes the session key and deposits `amount` (which may be 0). A deposit
 * larger than the wallet's USDC is refused here (GAME_INPUT_REJECTED, `details.reason: "insufficient_wallet_balance"`)
 * rather than built into a transaction the chain would fail.
 */
export async function setupTransaction(deps: PlayerDeps, wallet: Address, input: { amount?: unknown; sessionPubkey: string }) {
  let amount: bigint;
  try {
    amount = input.amount === undefined ? 0n : parseNonNegativeAmount(input.amount);
  } catch (err) {
    if (err instanceof AmountError) throw new PfwsError('INVALID_BET_AMOUNT', `amount: ${err.message}`);
    throw err;
  }
  assertSessionPubkey(input.sessionPubkey);
  const owner: Address = address(wallet);
  if (amount > 0n) {
    const held = await walletUsdcBalance(deps.rpc, deps.setup, owner);
    if (amount > held) {
      throw gameRejected(
        `amount ${microToNumber(amount)} exceeds the wallet's USDC balance (${microToNumber(held)}); deposit at most that much, or fund the wallet first`,
        'insufficient_wallet_balance',
        { amount: microToNumber(amount), walletBalance: microToNumber(held) },
      );
    }
  }
  const built = await buildSetupTransaction(deps.rpc, deps.setup, owner, input.sessionPubkey, amount);
  await watchWallet(deps.tail, wallet);
  return wire(built, setupMemo(owner, input.sessionPubkey));
}

export async function revokeTransaction(deps: PlayerDeps, wallet: Address, sessionPubkey: string) {
  assertSessionPubkey(sessionPubkey);
  const owner: Address = address(wallet);
  const built = await buildRevokeTransaction(deps.rpc, owner, sessionPubkey);
  await watchWallet(deps.tail, wallet);
  return wire(built, revokeMemo(owner, sessionPubkey));
}

/** Applies the wallet's confirmed transactions now, exactly as the indexer would. */
export async function syncPlayer(deps: PlayerDeps, wallet: Address) {
  const applied = await tailAddress(deps.tail, wallet);
  return { applied, status: await playerStatus(deps, wallet) };
}
