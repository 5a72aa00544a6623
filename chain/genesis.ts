// First start on localnet: the dev USDC mint, the vault, the LP mint with bootstrap shares, and house capital.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { address, generateKeyPairSigner, lamports, type Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import type { SolanaRpc } from './rpc.ts';
import { confirmSignature, sendAndConfirm } from './send.ts';
import type { OperatorKey, OperatorKeys } from '../operator/keys.ts';
import { MICRO_PER_USDC, USDC_DECIMALS } from '../protocol/money.ts';

export interface ChainSetup {
  usdcMint: Address;
  lpMint: Address;
  vaultAuthority: Address;
  vaultTokenAccount: Address;
  /** localnet: the transaction that funded the house, credited as house capital rather than unattributed. */
  houseFunding?: { signature: string; amount: string };
  bootstrapShares?: string;
}

export const ataOf = async (owner: Address, mint: Address): Promise<Address> =>
  (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

/** The chain objects of a real cluster, from configuration. */
export async function configuredSetup(usdcMint: string, lpMint: string, keeper: string): Promise<ChainSetup> {
  const mint = address(usdcMint);
  return {
    usdcMint: mint,
    lpMint: address(lpMint),
    vaultAuthority: address(keeper),
    vaultTokenAccount: await ataOf(address(keeper), mint),
  };
}

async function airdrop(rpc: SolanaRpc, to: Address, sol: number): Promise<void> {
  const signature = await rpc.requestAirdrop(to, lamports(BigInt(sol) * 1_000_000_000n)).send();
  await confirmSignature(rpc, signature);
}

async function createMint(rpc: SolanaRpc, payer: OperatorKey, authority: Address): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const space = BigInt(getMintSize());
  const rent = await rpc.getMinimumBalanceForRentExemption(space).send();
  await sendAndConfirm(rpc, payer.signer, [
    getCreateAccountInstruction({ payer: payer.signer, newAccount: mint, lamports: rent, space, programAddress: TOKEN_PROGRAM_ADDRESS }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: USDC_DECIMALS, mintAuthority: authority }),
  ]);
  return mint.address;
}

/**
 * Creates the localnet chain objects once and remembers them in `<dataDir>/genesis.json`.
 * The faucet key is the dev USDC mint authority; the keeper owns the vault and the LP mint.
 */
export async function ensureLocalnetGenesis(
  rpc: SolanaRpc,
  dataDir: string,
  keys: OperatorKeys,
  faucet: OperatorKey,
  houseCapitalUsdc: number,
): Promise<ChainSetup> {
  const file = path.join(dataDir, 'genesis.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ChainSetup;

  for (const key of [faucet, keys.keeper, keys.anchor]) await airdrop(rpc, key.signer.address, 1_000);
  const usdcMint = await createMint(rpc, faucet, faucet.signer.address);
  const lpMint = await createMint(rpc, faucet, keys.keeper.signer.address);
  const keeper = keys.keeper.signer.address;
  const vaultTokenAccount = await ataOf(keeper, usdcMint);
  const houseLp = await ataOf(keeper, lpMint);
  const capital = BigInt(houseCapitalUsdc) * MICRO_PER_USDC;
  // Bootstrap LP shares: one per house USDC, so the supply is never 0 and the first share price is 1.
  const bootstrapShares = capital > 0n ? capital : MICRO_PER_USDC;
  await sendAndConfirm(rpc, faucet.signer, [
    await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: faucet.signer, owner: keeper, mint: usdcMint }),
    await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: faucet.signer, owner: keeper, mint: lpMint }),
  ]);
  await sendAndConfirm(rpc, faucet.signer, [
    getMintToCheckedInstruction({ mint: lpMint, token: houseLp, mintAuthority: keys.keeper.signer, amount: bootstrapShares, decimals: USDC_DECIMALS }),
  ]);
  let houseFunding: ChainSetup['houseFunding'];
  if (capital > 0n) {
    const signature = await sendAndConfirm(rpc, faucet.signer, [
      getMintToCheckedInstruction({ mint: usdcMint, token: vaultTokenAccount, mintAuthority: faucet.signer, amount: capital, decimals: USDC_DECIMALS }),
    ]);
    houseFunding = { signature, amount: capital.toString() };
  }
  const setup: ChainSetup = {
    usdcMint,
    lpMint,
    vaultAuthority: keeper,
    vaultTokenAccount,
    ...(houseFunding ? { houseFunding } : {}),
    bootstrapShares: bootstrapShares.toString(),
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(setup, null, 2));
  return setup;
}

/** Dev faucet (localnet only): SOL by airdrop, dev USDC minted by the faucet key into the wallet's ATA. */
export async function fundFromFaucet(
  rpc: SolanaRpc,
  setup: ChainSetup,
  faucet: OperatorKey,
  wallet: Address,
  usdcMicro: bigint,
  solLamports: bigint,
): Promise<{ signatures: string[]; tokenAccount: Address }> {
  const signatures: string[] = [];
  if (solLamports > 0n) {
    const signature = await rpc.requestAirdrop(wallet, lamports(solLamports)).send();
    await confirmSignature(rpc, signature);
    signatures.push(signature);
  }
  const tokenAccount = await ataOf(wallet, setup.usdcMint);
  if (usdcMicro > 0n) {
    signatures.push(
      await sendAndConfirm(rpc, faucet.signer, [
        await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: faucet.signer, owner: wallet, mint: setup.usdcMint }),
        getMintToCheckedInstruction({ mint: setup.usdcMint, token: tokenAccount, mintAuthority: faucet.signer, amount: usdcMicro, decimals: USDC_DECIMALS }),
      ]),
    );
  }
  return { signatures, tokenAccount };
}
