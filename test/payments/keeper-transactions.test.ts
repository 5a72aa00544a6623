// Keeper transactions on localnet: withdrawals, LP mints and redemption payouts, the wallet's LP transactions, and
// the reconciliation that decides between re-sending, waiting, recording and rebuilding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  signTransaction,
  signature as toSignature,
  type KeyPairSigner,
} from '@solana/kit';
import {
  buildLpMint,
  buildLpRedemptionPayout,
  buildWithdrawal,
  decideKeeperSend,
  findKeeperMemo,
  findWithdrawMemo,
  readKeeperJobState,
  type KeeperJobState,
  type KeeperTransaction,
} from '../../chain/keeper-transactions.ts';
import { buildLpDepositTransaction, buildLpRedeemTransaction } from '../../chain/lp-transactions.ts';
import { memoInstruction } from '../../chain/memo.ts';
import { confirmSignature, sendAndConfirm, sendWire } from '../../chain/send.ts';
import type { SolanaRpc } from '../../chain/rpc.ts';
import { classifyTransaction, type RawTransaction } from '../../funding/crediting.ts';
import { classifyLpRedeems } from '../../funding/lp-crediting.ts';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { ataOf } from '../../chain/genesis.ts';
import { lpRedeemMemo } from '../../protocol/memo.ts';
import { withdrawMemo } from '../../protocol/memo.ts';
import { memosSignedBy, soleSignerMemos, type RpcTransaction } from '../../protocol/verify/chain.ts';
import { USDC, fundedWallet, lpOf, startMoneyNet, tokenBalance, usdcOf, type MoneyNet } from './money-net.ts';

let m: MoneyNet;
/** A second chain whose slots are 3 ms long, where blockhashes expire within a test. */
let fast: MoneyNet;

beforeAll(async () => {
  [m, fast] = await Promise.all([startMoneyNet(), startMoneyNet(1_000, 3)]);
});
afterAll(async () => {
  await Promise.all([m?.dispose(), fast?.dispose()]);
});

async function landedTx(rpc: SolanaRpc, signature: string) {
  const tx = await rpc.getTransaction(toSignature(signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
  if (!tx) throw new Error('transaction not found');
  return tx;
}

async function sendStored(rpc: SolanaRpc, tx: KeeperTransaction): Promise<void> {
  await sendWire(rpc, tx.wire);
  await confirmSignature(rpc, tx.signature);
}

async function walletSignsAndSends(rpc: SolanaRpc, wallet: KeyPairSigner, transaction: string): Promise<string> {
  const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
  const signed = await signTransaction([wallet.keyPair], decoded);
  const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  await confirmSignature(rpc, signature);
  return signature;
}

const stored = (tx: KeeperTransaction) => ({ signature: tx.signature, lastValidBlockHeight: tx.lastValidBlockHeight });

describe('withdrawal transaction', () => {
  it('pays the wallet’s own ATA, creating it, signed by the keeper alone with the withdraw memo', async () => {
    const wallet = await generateKeyPairSigner();
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: 3n * USDC, withdrawalId: 'wd_1' });
    expect(tx.memo).toBe('pfws:v1:withdraw:wd_1');
    expect(tx.lastValidBlockHeight).toBeGreaterThan(await m.rpc.getBlockHeight().send());
    await sendStored(m.rpc, tx);

    expect(await usdcOf(m, wallet.address)).toBe(3n * USDC);
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault - 3n * USDC);
    const landed = await landedTx(m.rpc, tx.signature);
    expect(landed.transaction.message.header.numRequiredSignatures).toBe(1);
    expect(landed.transaction.message.accountKeys[0]).toBe(m.keys.keeper.publicKey);
    expect(memosSignedBy(landed as unknown as RpcTransaction, m.keys.keeper.publicKey).map((x) => x.text)).toEqual(['pfws:v1:withdraw:wd_1']);

    // Re-sending the stored bytes pays nothing more.
    await m.rpc.sendTransaction(tx.wire as Parameters<SolanaRpc['sendTransaction']>[0], { encoding: 'base64', skipPreflight: true }).send();
    expect(await usdcOf(m, wallet.address)).toBe(3n * USDC);
  });

  it('skips the ATA creation when the account exists, and refuses bad input', async () => {
    const wallet = await fundedWallet(m, USDC);
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_2' });
    await sendStored(m.rpc, tx);
    const landed = await landedTx(m.rpc, tx.signature);
    expect(landed.transaction.message.instructions).toHaveLength(2);
    expect(await usdcOf(m, wallet.address)).toBe(2n * USDC);
    await expect(buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: 0n, withdrawalId: 'wd_3' })).rejects.toThrow(
      RangeError,
    );
    await expect(buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: 1n, withdrawalId: 'bad id' })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('LP transactions', () => {
  it('take an LP deposit from the wallet, mint its shares, take them back and pay them out', async () => {
    const wallet = await fundedWallet(m, 50n * USDC);
    const vault0 = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    const supply0 = BigInt((await m.rpc.getTokenSupply(m.setup.lpMint).send()).value.amount);

    // The wallet's deposit: the existing crediting rule reads it as an LP deposit of this wallet.
    const deposit = await buildLpDepositTransaction(m.rpc, m.setup, wallet.address, 20n * USDC);
    const depositSig = await walletSignsAndSends(m.rpc, wallet, deposit.transaction);
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault0 + 20n * USDC);
    const depositTx = (await landedTx(m.rpc, depositSig)) as unknown as RawTransaction;
    expect(classifyTransaction(depositTx, { usdcMint: m.setup.usdcMint, vaultTokenAccount: m.setup.vaultTokenAccount }).items).toMatchObject([
      { kind: 'lp-deposit', wallet: wallet.address, amount: 20n * USDC },
    ]);

    // The keeper mints (the shares are whatever the ledger fixed; here 19.5 LP).
    const mint = await buildLpMint(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, shares: 19_500_000n, jobId: 'lpd_1' });
    await sendStored(m.rpc, mint);
    expect(await lpOf(m, wallet.address)).toBe(19_500_000n);
    expect(BigInt((await m.rpc.getTokenSupply(m.setup.lpMint).send()).value.amount)).toBe(supply0 + 19_500_000n);
    expect(memosSignedBy((await landedTx(m.rpc, mint.signature)) as unknown as RpcTransaction, m.keys.keeper.publicKey).map((x) => x.text)).toEqual([
      'pfws:v1:lp-mint:lpd_1',
    ]);

    // The wallet sends 10 LP back with its redeem memo, signed by the wallet alone.
    const keeperLp0 = await lpOf(m, m.setup.vaultAuthority);
    const redeem = await buildLpRedeemTransaction(m.rpc, m.setup, wallet.address, 10n * USDC);
    const redeemSig = await walletSignsAndSends(m.rpc, wallet, redeem.transaction);
    expect(await lpOf(m, m.setup.vaultAuthority)).toBe(keeperLp0 + 10n * USDC);
    const redeemTx = await landedTx(m.rpc, redeemSig);
    expect(soleSignerMemos(redeemTx as unknown as RpcTransaction)).toMatchObject([
      { signer: wallet.address, memo: { kind: 'lp-redeem', wallet: wallet.address } },
    ]);
    const lpCtx = { lpMint: m.setup.lpMint, keeperLpAccount: await ataOf(m.setup.vaultAuthority, m.setup.lpMint) };
    expect(classifyLpRedeems(redeemTx as unknown as RawTransaction, lpCtx)).toEqual([
      { key: `${redeemSig}:0`, kind: 'lp-redeem', signature: redeemSig, slot: Number(redeemTx.slot), wallet: wallet.address, shares: 10n * USDC },
    ]);

    // The keeper burns them and pays their value, in one transaction.
    const usdc0 = await usdcOf(m, wallet.address);
    const payout = await buildLpRedemptionPayout(m.rpc, m.setup, m.keys.keeper.signer, {
      wallet: wallet.address,
      shares: 10n * USDC,
      value: 10_200_000n,
      jobId: 'lpr_1',
    });
    await sendStored(m.rpc, payout);
    expect(await lpOf(m, m.setup.vaultAuthority)).toBe(keeperLp0);
    expect(BigInt((await m.rpc.getTokenSupply(m.setup.lpMint).send()).value.amount)).toBe(supply0 + 9_500_000n);
    expect(await usdcOf(m, wallet.address)).toBe(usdc0 + 10_200_000n);
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault0 + 20n * USDC - 10_200_000n);
  });

  it('read as redemptions only when the sender signed its own redeem memo', async () => {
    const a = await fundedWallet(m, 0n);
    const b = await fundedWallet(m, 0n);
    for (const w of [a, b])
      await sendStored(
        m.rpc,
        await buildLpMint(m.rpc, m.setup, m.keys.keeper.signer, { wallet: w.address, shares: 5n * USDC, jobId: `lpd_${w.address.slice(0, 8)}` }),
      );
    const keeperLp = await ataOf(m.setup.vaultAuthority, m.setup.lpMint);
    const lpCtx = { lpMint: m.setup.lpMint, keeperLpAccount: keeperLp };
    const send = async (from: KeyPairSigner, shares: bigint) =>
      getTransferCheckedInstruction({
        source: await ataOf(from.address, m.setup.lpMint),
        mint: m.setup.lpMint,
        destination: keeperLp,
        authority: from,
        amount: shares,
        decimals: 6,
      });
    const classify = async (sig: string) => classifyLpRedeems((await landedTx(m.rpc, sig)) as unknown as RawTransaction, lpCtx);

    // No memo: the shares stay with the house, redeemed for no one.
    expect(await classify(await sendAndConfirm(m.rpc, a, [await send(a, USDC)]))).toEqual([]);
    // A memo naming someone else, or signed by another wallet.
    expect(await classify(await sendAndConfirm(m.rpc, a, [await send(a, USDC), memoInstruction(lpRedeemMemo(b.address), [a])]))).toEqual([]);
    expect(await classify(await sendAndConfirm(m.rpc, a, [await send(a, USDC), memoInstruction(lpRedeemMemo(b.address), [b])]))).toEqual([]);
    // Two senders, one memo: only the memo's signer redeems.
    const both = await sendAndConfirm(m.rpc, a, [await send(a, USDC), await send(b, 2n * USDC), memoInstruction(lpRedeemMemo(b.address), [b])]);
    expect((await classify(both)).map((i) => [i.wallet, i.shares])).toEqual([[b.address, 2n * USDC]]);
  });

  it('refuse non-positive amounts', async () => {
    const wallet = await generateKeyPairSigner();
    await expect(buildLpDepositTransaction(m.rpc, m.setup, wallet.address, 0n)).rejects.toThrow(RangeError);
    await expect(buildLpRedeemTransaction(m.rpc, m.setup, wallet.address, -1n)).rejects.toThrow(RangeError);
    await expect(buildLpMint(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, shares: 0n, jobId: 'x' })).rejects.toThrow(RangeError);
  });
});

describe('the keeper send rule', () => {
  const base: KeeperJobState = { stored: { signature: 'S', lastValidBlockHeight: 100n }, status: null, finalizedBlockHeight: 50n };

  it('rebuilds only when expired, never seen, and no memo is on-chain', () => {
    expect(decideKeeperSend(base)).toEqual({ action: 'resend' });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 100n })).toEqual({ action: 'resend' });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 101n })).toEqual({ action: 'scan' });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 101n, memo: null })).toEqual({ action: 'rebuild' });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 101n, memo: { signature: 'T', confirmationStatus: 'finalized' } })).toEqual({
      action: 'done',
      signature: 'T',
      finalized: true,
    });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 101n, memo: { signature: 'T', confirmationStatus: 'processed' } })).toEqual({ action: 'wait' });
  });

  it('records a landed transaction, waits on an unconfirmed one, and never rebuilds a failed one', () => {
    expect(decideKeeperSend({ ...base, status: { err: null, confirmationStatus: 'confirmed' } })).toEqual({ action: 'done', signature: 'S', finalized: false });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 500n, status: { err: null, confirmationStatus: 'finalized' } })).toEqual({
      action: 'done',
      signature: 'S',
      finalized: true,
    });
    expect(decideKeeperSend({ ...base, status: { err: null, confirmationStatus: 'processed' } })).toEqual({ action: 'wait' });
    expect(
      decideKeeperSend({ ...base, finalizedBlockHeight: 500n, status: { err: { InstructionError: [1, 'Custom'] }, confirmationStatus: 'finalized' } }),
    ).toEqual({
      action: 'stuck',
      signature: 'S',
      err: { InstructionError: [1, 'Custom'] },
    });
  });

  it('builds when nothing was stored, after confirming no memo is on-chain', () => {
    expect(decideKeeperSend({ stored: null, status: null, finalizedBlockHeight: 5n })).toEqual({ action: 'scan' });
    expect(decideKeeperSend({ stored: null, status: null, finalizedBlockHeight: 5n, memo: null })).toEqual({ action: 'build' });
    expect(decideKeeperSend({ stored: null, status: null, finalizedBlockHeight: 5n, memo: { signature: 'T', confirmationStatus: 'confirmed' } })).toEqual({
      action: 'done',
      signature: 'T',
      finalized: false,
    });
  });
});

describe('reconciliation on localnet', () => {
  it('re-sends a stored transaction that may still land, then records it once it has', async () => {
    const wallet = await generateKeyPairSigner();
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_resend' });
    // Stored, then the keeper died before sending.
    const before = await readKeeperJobState(m.rpc, { keeper: m.keys.keeper.publicKey, memo: tx.memo, stored: stored(tx) });
    expect(decideKeeperSend(before)).toEqual({ action: 'resend' });
    await sendStored(m.rpc, tx);
    const after = await readKeeperJobState(m.rpc, { keeper: m.keys.keeper.publicKey, memo: tx.memo, stored: stored(tx) });
    expect(decideKeeperSend(after)).toEqual({ action: 'done', signature: tx.signature, finalized: true });
    expect(await usdcOf(m, wallet.address)).toBe(USDC);
  });

  it('reports a stored transaction that landed and failed as stuck, not to be rebuilt', async () => {
    const wallet = await generateKeyPairSigner();
    const tooMuch = (await tokenBalance(m.rpc, m.setup.vaultTokenAccount)) + 1n;
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: tooMuch, withdrawalId: 'wd_fail' });
    await m.rpc.sendTransaction(tx.wire as Parameters<SolanaRpc['sendTransaction']>[0], { encoding: 'base64', skipPreflight: true }).send();
    await expect.poll(async () => (await m.rpc.getSignatureStatuses([tx.signature]).send()).value[0]).not.toBeNull();
    const state = await readKeeperJobState(m.rpc, { keeper: m.keys.keeper.publicKey, memo: tx.memo, stored: stored(tx) });
    expect(decideKeeperSend(state)).toMatchObject({ action: 'stuck', signature: tx.signature });
  });

  it('rebuilds an expired, never-sent transaction, but finds an earlier one that landed by its memo', async () => {
    const keeper = fast.keys.keeper;
    const wallet = await generateKeyPairSigner();
    const expiredBy = async (tx: KeeperTransaction) =>
      expect
        .poll(async () => (await fast.rpc.getBlockHeight({ commitment: 'finalized' }).send()) > tx.lastValidBlockHeight, { timeout: 20_000, interval: 50 })
        .toBe(true);

    // Built and stored, never sent, now expired: no status, no memo, so a rebuild is safe.
    const lost = await buildWithdrawal(fast.rpc, fast.setup, keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_lost' });
    await expiredBy(lost);
    const lostState = await readKeeperJobState(fast.rpc, { keeper: keeper.publicKey, memo: lost.memo, stored: stored(lost) });
    expect(lostState.memo).toBeNull();
    expect(decideKeeperSend(lostState)).toEqual({ action: 'rebuild' });

    // An earlier transaction for the job landed, while the record holds a later one that never did.
    const first = await buildWithdrawal(fast.rpc, fast.setup, keeper.signer, { wallet: wallet.address, amount: 2n * USDC, withdrawalId: 'wd_twice' });
    await sendStored(fast.rpc, first);
    const second = await buildWithdrawal(fast.rpc, fast.setup, keeper.signer, { wallet: wallet.address, amount: 2n * USDC, withdrawalId: 'wd_twice' });
    expect(second.signature).not.toBe(first.signature);
    await expiredBy(second);
    const state = await readKeeperJobState(fast.rpc, { keeper: keeper.publicKey, memo: second.memo, stored: stored(second) });
    expect(decideKeeperSend(state)).toEqual({ action: 'done', signature: first.signature, finalized: true });
    // With nothing stored at all, the memo is found too.
    const none = await readKeeperJobState(fast.rpc, { keeper: keeper.publicKey, memo: second.memo, stored: null });
    expect(decideKeeperSend(none)).toEqual({ action: 'done', signature: first.signature, finalized: true });
    expect(await usdcOf(fast, wallet.address)).toBe(2n * USDC);
  });

  it('finds only successful memos signed by the keeper alone', async () => {
    const keeper = m.keys.keeper;
    const stranger = await fundedWallet(m, 0n);
    const memo = withdrawMemo('wd_forged');
    // A stranger posts the keeper's memo text, alone and co-signed with the keeper as fee payer.
    await sendAndConfirm(m.rpc, stranger, [memoInstruction(memo, [stranger])]);
    await sendAndConfirm(m.rpc, keeper.signer, [memoInstruction(memo, [keeper.signer, stranger])]);
    expect(await findKeeperMemo(m.rpc, keeper.publicKey, memo)).toBeNull();
    await expect(findKeeperMemo(m.rpc, keeper.publicKey, 'not a memo')).rejects.toThrow(RangeError);

    // A page boundary does not hide a match: one signature per page.
    const paid = await buildWithdrawal(m.rpc, m.setup, keeper.signer, { wallet: stranger.address, amount: 1n, withdrawalId: 'wd_paged' });
    await sendStored(m.rpc, paid);
    await sendAndConfirm(m.rpc, keeper.signer, [memoInstruction(withdrawMemo('wd_later'), [keeper.signer])]);
    expect(await findKeeperMemo(m.rpc, keeper.publicKey, paid.memo, { pageSize: 1, maxPages: 5 })).toMatchObject({ signature: paid.signature });
    expect(await findKeeperMemo(m.rpc, keeper.publicKey, paid.memo, { pageSize: 1, maxPages: 1 })).toBeNull();
    expect(await findWithdrawMemo(m.rpc, keeper.publicKey, 'wd_paged')).toMatchObject({ signature: paid.signature });
  });
});
