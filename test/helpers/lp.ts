// An LP as an outside client (design §3): a wallet that sends USDC to the vault for shares and LP tokens back for USDC,
// through the service's unsigned transactions, and the ledger's pool figures the keeper prices the next job with.
import { address, createSolanaRpc } from '@solana/kit';
import { expect, vi } from 'vitest';
import { ataOf } from '../../chain/genesis.ts';
import { limitsOf } from '../../protocol/house.ts';
import { formatMicro } from '../../protocol/money.ts';
import { Player } from './player.ts';
import type { TestService } from './service.ts';

/** A wallet's USDC or LP tokens on-chain (0 without an account). */
export async function tokenOf(svc: TestService, wallet: string, mint: 'usdcMint' | 'lpMint'): Promise<bigint> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  const ata = await ataOf(address(wallet), svc.wiring.setup[mint]);
  const { value } = await rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
  return value ? BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount) : 0n;
}

/** A wallet with dev USDC and SOL, signed in; an LP needs no session key. */
export async function lpWallet(svc: TestService, usdc: number): Promise<Player> {
  const p = new Player(svc.api, svc.rpcUrl);
  await p.init();
  await p.faucet(usdc);
  await p.login();
  return p;
}

/** The ledger's NAV, LP supply and open exposure now: what the keeper prices the next job with. */
export async function pool(svc: TestService): Promise<{ nav: bigint; supply: bigint; exposure: bigint }> {
  const house = await svc.wiring.stores.ledger.house();
  return { nav: limitsOf(house, svc.wiring.limits).nav, supply: house.lpSupply, exposure: house.exposure };
}

export async function lpDeposit(p: Player, amount: number | string): Promise<string> {
  const built = await p.post('/protocol/v1/house/lp-deposit-transaction', { amount });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  expect(built.body.memo).toBe(`pfws:v1:lp-deposit:${p.address}`);
  return p.signAndSend(built.body.transaction);
}

export async function lpRedeem(p: Player, shares: bigint): Promise<string> {
  const built = await p.post('/protocol/v1/house/lp-redeem-transaction', { shares: formatMicro(shares) });
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  expect(built.body.memo).toBe(`pfws:v1:lp-redeem:${p.address}`);
  return p.signAndSend(built.body.transaction);
}

export const waitFor = (check: () => Promise<void>, timeout = 30_000) => vi.waitFor(check, { timeout, interval: 100 });

/** Waits until the keeper minted `shares` LP tokens to the wallet. */
export async function mintedTo(svc: TestService, p: Player, shares: bigint): Promise<void> {
  await waitFor(async () => expect(await tokenOf(svc, p.address, 'lpMint')).toBe(shares));
}
