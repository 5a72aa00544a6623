// What a wallet holds of the configured USDC mint, read from its associated token account through the RPC, and
// whether that account can receive a payout at all.
import type { Address } from '@solana/kit';
import { AccountState, fetchMaybeToken, getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ataOf, type ChainSetup } from './genesis.ts';
import type { SolanaRpc } from './rpc.ts';

/** The wallet's USDC in micro-units; 0 when its associated token account does not exist yet. */
export async function walletUsdcBalance(rpc: SolanaRpc, setup: Pick<ChainSetup, 'usdcMint'>, wallet: Address): Promise<bigint> {
  const account = await fetchMaybeToken(rpc, await ataOf(wallet, setup.usdcMint), { commitment: 'confirmed' });
  return account.exists ? account.data.amount : 0n;
}

/**
 * `payable`: the wallet's associated token account of the mint exists and may receive; `no_token_account`: nothing
 * (or no token account of that mint and owner) is at its address; `frozen`: the mint's freeze authority froze it.
 */
export type TokenAccountState = 'payable' | 'no_token_account' | 'token_account_frozen';

// getMultipleAccounts takes at most 100 addresses.
const ACCOUNTS_PER_CALL = 100;

/** The state of each wallet's associated token account of `mint`, read at `confirmed` in as few calls as possible. */
export async function tokenAccountStates(rpc: SolanaRpc, mint: Address, wallets: readonly Address[]): Promise<Map<Address, TokenAccountState>> {
  const unique = [...new Set(wallets)];
  const atas = await Promise.all(unique.map((w) => ataOf(w, mint)));
  const states = new Map<Address, TokenAccountState>();
  const decoder = getTokenDecoder();
  for (let i = 0; i < atas.length; i += ACCOUNTS_PER_CALL) {
    const { value } = await rpc.getMultipleAccounts(atas.slice(i, i + ACCOUNTS_PER_CALL), { encoding: 'base64', commitment: 'confirmed' }).send();
    value.forEach((account, j) => {
      const wallet = unique[i + j] as Address;
      let state: TokenAccountState = 'no_token_account';
      // Lamports sent to the address before the account was created leave a system account there, not a token one.
      if (account && account.owner === TOKEN_PROGRAM_ADDRESS) {
        try {
          const token = decoder.decode(Buffer.from(account.data[0], 'base64'));
          if (token.mint === mint && token.owner === wallet && token.state !== AccountState.Uninitialized) {
            state = token.state === AccountState.Frozen ? 'token_account_frozen' : 'payable';
          }
        } catch {
          state = 'no_token_account';
        }
      }
      states.set(wallet, state);
    });
  }
  return states;
}

/** {@link tokenAccountStates} of the USDC mint for one wallet. */
export async function usdcAccountState(rpc: SolanaRpc, setup: Pick<ChainSetup, 'usdcMint'>, wallet: Address): Promise<TokenAccountState> {
  return (await tokenAccountStates(rpc, setup.usdcMint, [wallet])).get(wallet) ?? 'no_token_account';
}
