// A localnet with the service's genesis (dev USDC, vault, LP mint and bootstrap shares) and the operator keys,
// for money tests that need the chain but not the whole service.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstructionAsync } from '@solana-program/token';
import { sendAndConfirm } from '../../chain/send.ts';
import { ensureLocalnetGenesis, fundFromFaucet, ataOf, type ChainSetup } from '../../chain/genesis.ts';
import { createRpc, type SolanaRpc } from '../../chain/rpc.ts';
import { loadOperatorKey, loadOperatorKeys, type OperatorKey, type OperatorKeys } from '../../operator/keys.ts';
import { ensureFeePayerFunded, loadX402FeePayer } from '../../payments/fee-payer.ts';
import { startTestNet, type TestNet } from '../localnet/helpers.ts';

export const USDC = 1_000_000n;

export interface MoneyNet {
  net: TestNet;
  rpc: SolanaRpc;
  url: string;
  keysDir: string;
  keys: OperatorKeys;
  faucet: OperatorKey;
  feePayer: OperatorKey;
  setup: ChainSetup;
  dispose(): Promise<void>;
}

/** `slotIntervalMs` short makes blockhashes expire within a test (150 slots). */
export async function startMoneyNet(houseCapitalUsdc = 1_000, slotIntervalMs?: number): Promise<MoneyNet> {
  const net = await startTestNet(slotIntervalMs === undefined ? {} : { slotIntervalMs });
  const rpc = createRpc(net.ln.url);
  const dataDir = await mkdtemp(join(tmpdir(), 'money-net-'));
  const keysDir = join(dataDir, 'keys');
  const keys = await loadOperatorKeys(keysDir, true);
  const faucet = await loadOperatorKey(keysDir, 'faucet', true);
  const setup = await ensureLocalnetGenesis(rpc, dataDir, keys, faucet, houseCapitalUsdc);
  const feePayer = await loadX402FeePayer(keysDir, true);
  await ensureFeePayerFunded(rpc, feePayer.signer.address, 1_000_000_000n);
  return { net, rpc, url: net.ln.url, keysDir, keys, faucet, feePayer, setup, dispose: () => net.dispose() };
}

/** A new wallet with SOL for fees and `usdc` micro-USDC of dev USDC in its ATA. */
export async function fundedWallet(m: MoneyNet, usdc: bigint, solLamports = 1_000_000_000n): Promise<KeyPairSigner> {
  const wallet = await generateKeyPairSigner();
  await fundFromFaucet(m.rpc, m.setup, m.faucet, wallet.address, usdc, solLamports);
  return wallet;
}

/** A new wallet with SOL and an empty USDC account it paid for itself (the keeper pays only into an existing one). */
export async function walletWithUsdcAccount(m: MoneyNet, solLamports = 1_000_000_000n): Promise<KeyPairSigner> {
  const wallet = await fundedWallet(m, 0n, solLamports);
  await sendAndConfirm(m.rpc, wallet, [
    await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: wallet, owner: wallet.address, mint: m.setup.usdcMint }),
  ]);
  return wallet;
}

/** A token account's balance, 0 when it does not exist. */
export async function tokenBalance(rpc: SolanaRpc, account: Address): Promise<bigint> {
  const { value } = await rpc.getAccountInfo(account, { encoding: 'base64' }).send();
  if (!value) return 0n;
  return BigInt((await rpc.getTokenAccountBalance(account).send()).value.amount);
}

export const usdcOf = async (m: MoneyNet, owner: Address): Promise<bigint> => tokenBalance(m.rpc, await ataOf(owner, m.setup.usdcMint));
export const lpOf = async (m: MoneyNet, owner: Address): Promise<bigint> => tokenBalance(m.rpc, await ataOf(owner, m.setup.lpMint));

export async function solOf(m: MoneyNet, owner: Address): Promise<bigint> {
  return (await m.rpc.getBalance(owner).send()).value;
}
