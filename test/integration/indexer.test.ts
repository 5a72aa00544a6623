// The crediting rules (design §3) against real transactions on localnet, and exactly-once application.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { address, createSolanaRpc, type Address, type Instruction, type TransactionSigner } from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintToCheckedInstruction,
  getRecoverNestedAssociatedTokenInstructionAsync,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { getTransferSolInstruction } from '@solana-program/system';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, newKeypair } from '../helpers/player.ts';
import { memoInstruction } from '../../chain/memo.ts';
import { signInstructions } from '../../chain/send.ts';
import { tailAddress, applyTransaction, type TailDeps } from '../../funding/tail.ts';
import type { Base58Key } from '../../protocol/address.ts';

let svc: TestService;
let deps: TailDeps;
let rpc: ReturnType<typeof createSolanaRpc>;
let usdcMint: Address;
let vault: Address;

beforeAll(async () => {
  // The service's own indexer polls rarely here, so each test drives tailing itself.
  svc = await startTestService({ INDEXER_POLL_MS: '60000' });
  deps = svc.wiring.tail;
  rpc = createSolanaRpc(svc.rpcUrl);
  usdcMint = svc.wiring.setup.usdcMint;
  vault = svc.wiring.setup.vaultTokenAccount;
});
afterAll(async () => {
  await svc?.cleanup();
});

async function send(feePayer: TransactionSigner, instructions: Instruction[], skipPreflight = false): Promise<string> {
  const tx = await signInstructions(svc.wiring.rpc, feePayer, instructions);
  await rpc.sendTransaction(tx.wire as Parameters<typeof rpc.sendTransaction>[0], { encoding: 'base64', skipPreflight }).send();
  return tx.signature;
}

const ata = async (owner: Address) => (await findAssociatedTokenPda({ owner, mint: usdcMint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
const transferIx = async (from: TransactionSigner, amount: bigint) =>
  getTransferCheckedInstruction({ source: await ata(from.address), mint: usdcMint, destination: vault, authority: from, amount, decimals: 6 });

async function funded(usdc = 100): Promise<Player> {
  const p = await new Player(svc.api, svc.rpcUrl).init();
  await p.faucet(usdc, 2);
  await p.login();
  return p;
}

const balanceOf = async (wallet: Address) => (await svc.wiring.stores.ledger.player(wallet)).balance;
const unattributed = async () => (await svc.wiring.stores.ledger.house()).unattributed;

describe('exactly-once crediting', () => {
  it('credits each deposit once across re-indexing, a restart mid-page and concurrent sync', async () => {
    const p = await funded(100);
    const sigs: string[] = [];
    for (const amount of [1_000_000n, 2_000_000n, 3_000_000n]) {
      sigs.push(await send(p.signer, [await transferIx(p.signer, amount), memoInstruction(`pfws:v1:deposit:${p.address}`, [p.signer])]));
    }
    // A restart mid-page: stop after the first transaction, then start over from the checkpoint.
    const history = await rpc.getSignaturesForAddress(address(p.address)).send();
    let budget = history.length - history.findIndex((h) => h.signature === sigs[0]);
    await tailAddress(deps, p.address, () => budget-- > 0);
    expect(await balanceOf(p.address)).toBe(1_000_000n);
    expect(await svc.wiring.redis.get(svc.wiring.keys.checkpoint(p.address))).not.toBeNull();
    // The rest, from the indexer, the vault tail and sync all at once.
    await Promise.all([tailAddress(deps, p.address), tailAddress(deps, vault), tailAddress(deps, p.address), p.post('/protocol/v1/player/sync')]);
    expect(await balanceOf(p.address)).toBe(6_000_000n);
    // The same transactions seen again, and the whole history re-indexed from scratch.
    for (const sig of sigs) expect(await applyTransaction(deps, sig as Parameters<typeof applyTransaction>[1])).toBe(0);
    await svc.wiring.redis.del(svc.wiring.keys.checkpoint(p.address), svc.wiring.keys.checkpoint(vault));
    await tailAddress(deps, p.address);
    await tailAddress(deps, vault);
    expect(await balanceOf(p.address)).toBe(6_000_000n);
  });
});

describe('attacks are never credited', () => {
  it("an attacker's setup memo naming the victim authorizes nothing", async () => {
    const victim = await funded(10);
    const attacker = await funded(10);
    const attackerKey = newKeypair();
    await send(attacker.signer, [
      getTransferSolInstruction({ source: attacker.signer, destination: address(victim.address), amount: 1_000n }),
      memoInstruction(`pfws:v1:setup:${victim.address}:${attackerKey.publicKey}`, [attacker.signer]),
    ]);
    await tailAddress(deps, victim.address);
    await tailAddress(deps, attacker.address);
    expect(await svc.wiring.stores.ledger.sessionKeys(victim.address)).toEqual({});
    expect(await svc.wiring.stores.ledger.sessionKeys(attacker.address)).toEqual({});
  });

  it('a deposit whose memo names someone else, or is signed by someone else, stays unattributed', async () => {
    const victim = await funded(10);
    const attacker = await funded(10);
    const before = await unattributed();
    // The attacker pays in with a memo naming the victim.
    await send(attacker.signer, [await transferIx(attacker.signer, 1_500_000n), memoInstruction(`pfws:v1:deposit:${victim.address}`, [attacker.signer])]);
    // The victim pays in, but the memo is signed by the attacker (who also pays the fee).
    await send(attacker.signer, [await transferIx(victim.signer, 2_500_000n), memoInstruction(`pfws:v1:deposit:${victim.address}`, [attacker.signer])]);
    // The victim pays in, and the attacker's own memo claims it.
    await send(attacker.signer, [await transferIx(victim.signer, 500_000n), memoInstruction(`pfws:v1:deposit:${attacker.address}`, [attacker.signer])]);
    // A memo with two signers is not a sole-signer memo.
    await send(victim.signer, [
      await transferIx(victim.signer, 250_000n),
      memoInstruction(`pfws:v1:deposit:${victim.address}`, [victim.signer, attacker.signer]),
    ]);
    await tailAddress(deps, vault);
    await tailAddress(deps, victim.address);
    await tailAddress(deps, attacker.address);
    expect(await balanceOf(victim.address)).toBe(0n);
    expect(await balanceOf(attacker.address)).toBe(0n);
    expect((await unattributed()) - before).toBe(4_750_000n);
  });

  it('a failed transaction credits nothing and leaves nothing unattributed', async () => {
    const p = await funded(1);
    const before = await unattributed();
    const sig = await send(p.signer, [await transferIx(p.signer, 5_000_000n), memoInstruction(`pfws:v1:deposit:${p.address}`, [p.signer])], true);
    const status = await vi.waitFor(
      async () => {
        const { value } = await rpc.getSignatureStatuses([sig as Parameters<typeof rpc.getSignatureStatuses>[0][number]]).send();
        expect(value[0]).toBeTruthy();
        return value[0]!;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(status.err).not.toBeNull();
    await tailAddress(deps, p.address);
    await tailAddress(deps, vault);
    expect(await balanceOf(p.address)).toBe(0n);
    expect(await unattributed()).toBe(before);
  });

  it("a transfer wrapped inside another program's instruction stays unattributed", async () => {
    // ATA RecoverNested moves tokens from a nested ATA into the wallet's ATA (here the vault) by an inner TransferChecked.
    const keeper = svc.wiring.operator.keeper.signer;
    const faucet = svc.wiring.faucet!.signer;
    const lpMint = svc.wiring.setup.lpMint;
    const [keeperLp] = await findAssociatedTokenPda({ owner: keeper.address, mint: lpMint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const [nested] = await findAssociatedTokenPda({ owner: keeperLp, mint: usdcMint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    await send(faucet, [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: faucet, owner: keeperLp, mint: usdcMint }),
      getMintToCheckedInstruction({ mint: usdcMint, token: nested, mintAuthority: faucet, amount: 4_000_000n, decimals: 6 }),
    ]);
    const before = await unattributed();
    const vaultBefore = BigInt((await rpc.getTokenAccountBalance(vault).send()).value.amount);
    const sig = await send(keeper, [
      await getRecoverNestedAssociatedTokenInstructionAsync({ nestedTokenMintAddress: usdcMint, ownerTokenMintAddress: lpMint, walletAddress: keeper }),
      memoInstruction(`pfws:v1:deposit:${keeper.address}`, [keeper]),
    ]);
    const vaultAfter = BigInt((await rpc.getTokenAccountBalance(vault).send()).value.amount);
    expect(vaultAfter - vaultBefore).toBe(4_000_000n);
    const tx = await rpc.getTransaction(sig as Parameters<typeof rpc.getTransaction>[0], { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(JSON.stringify(tx?.meta?.innerInstructions, (_, v) => (typeof v === 'bigint' ? v.toString() : v))).toContain('transferChecked');
    await tailAddress(deps, vault);
    expect((await unattributed()) - before).toBe(4_000_000n);
    expect(await balanceOf(keeper.address)).toBe(0n);
  });
});

describe('key authorizations', () => {
  it('apply in slot order whatever order they are seen in, and a revocation wins within one slot', async () => {
    const wallet = address(newKeypair().publicKey);
    const key = newKeypair().publicKey as Base58Key;
    const status = async () => (await svc.wiring.stores.ledger.sessionKey(wallet, key))?.status;
    const item = (kind: 'setup' | 'revoke', slot: number, n: number) => ({
      key: `test-${wallet}-${n}`,
      kind,
      signature: `sig${n}`,
      slot,
      wallet,
      sessionPubkey: key,
    });
    const at = new Date().toISOString();
    await svc.wiring.stores.ledger.applyChainItem(item('setup', 10, 1), at);
    expect(await status()).toBe('active');
    await svc.wiring.stores.ledger.applyChainItem(item('revoke', 20, 2), at);
    await svc.wiring.stores.ledger.applyChainItem(item('setup', 15, 3), at); // older, seen late
    expect(await status()).toBe('revoked');
    await svc.wiring.stores.ledger.applyChainItem(item('setup', 20, 4), at); // same slot as the revocation
    expect(await status()).toBe('revoked');
    await svc.wiring.stores.ledger.applyChainItem(item('setup', 21, 5), at);
    expect(await status()).toBe('active');
    await svc.wiring.stores.ledger.applyChainItem(item('revoke', 21, 6), at); // same slot, seen after the setup
    expect(await status()).toBe('revoked');
  });
});

describe('leadership', () => {
  it('only one indexer holds the lease', async () => {
    const { Indexer } = await import('../../indexer/indexer.ts');
    const a = new Indexer(deps, { pollMs: 50, logger: svc.wiring.logger, waitingWallets: async () => [] });
    const b = new Indexer(deps, { pollMs: 50, logger: svc.wiring.logger, waitingWallets: async () => [] });
    await svc.wiring.redis.del(svc.wiring.keys.indexerLease());
    a.start();
    b.start();
    await vi.waitFor(() => expect(a.isLeader || b.isLeader).toBe(true), { timeout: 10_000, interval: 20 });
    // Both keep trying for several passes; the lease stays with one.
    const after = Math.max(a.progress.passes, b.progress.passes) + 5;
    await vi.waitFor(() => expect(Math.min(a.progress.passes, b.progress.passes)).toBeGreaterThanOrEqual(after), { timeout: 10_000, interval: 20 });
    const leaders = [a, b].filter((x) => x.isLeader).length;
    await a.stop();
    await b.stop();
    expect(leaders).toBe(1);
  });
});
