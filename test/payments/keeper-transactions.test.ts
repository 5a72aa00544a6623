// Keeper transactions on localnet: withdrawals, LP mints and redemption payouts, the wallet's LP transactions, and
// the reconciliation that decides between re-sending, waiting, recording and rebuilding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateKeyPairSigner,
  lamports,
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
  NoTokenAccountError,
  readKeeperJobState,
  readKeeperJobStates,
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
import { tokenAccountStates } from '../../chain/wallet-balance.ts';
import { USDC, fundedWallet, lpOf, solOf, startMoneyNet, tokenBalance, usdcOf, walletWithUsdcAccount, type MoneyNet } from './money-net.ts';

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
  it('pays the wallet’s own ATA and nothing else, signed by the keeper alone with the withdraw memo', async () => {
    const wallet = await walletWithUsdcAccount(m);
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    const keeperSol = await solOf(m, m.keys.keeper.signer.address);
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: 3n * USDC, withdrawalId: 'wd_1' });
    expect(tx.memo).toBe('pfws:v1:withdraw:wd_1');
    expect(tx.lastValidBlockHeight).toBeGreaterThan(await m.rpc.getBlockHeight().send());
    await sendStored(m.rpc, tx);

    expect(await usdcOf(m, wallet.address)).toBe(3n * USDC);
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault - 3n * USDC);
    const landed = await landedTx(m.rpc, tx.signature);
    expect(landed.transaction.message.header.numRequiredSignatures).toBe(1);
    expect(landed.transaction.message.accountKeys[0]).toBe(m.keys.keeper.publicKey);
    // A transfer and the memo: no account creation, so the keeper spent the fee and no rent.
    expect(landed.transaction.message.instructions).toHaveLength(2);
    expect(await solOf(m, m.keys.keeper.signer.address)).toBe(keeperSol - BigInt(landed.meta!.fee));
    expect(memosSignedBy(landed as unknown as RpcTransaction, m.keys.keeper.publicKey).map((x) => x.text)).toEqual(['pfws:v1:withdraw:wd_1']);

    // Re-sending the stored bytes pays nothing more.
    await m.rpc.sendTransaction(tx.wire as Parameters<SolanaRpc['sendTransaction']>[0], { encoding: 'base64', skipPreflight: true }).send();
    expect(await usdcOf(m, wallet.address)).toBe(3n * USDC);
  });

  it('is never built for a wallet without its USDC account: the keeper does not pay the rent to create one', async () => {
    const bare = await generateKeyPairSigner();
    const err = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: bare.address, amount: USDC, withdrawalId: 'wd_bare' }).catch((e) => e);
    expect(err).toBeInstanceOf(NoTokenAccountError);
    expect(err).toMatchObject({ wallet: bare.address, reason: 'no_token_account' });
    // Lamports sent to the account's address leave a system account there, not a token account.
    const squatted = await generateKeyPairSigner();
    const ata = await ataOf(squatted.address, m.setup.usdcMint);
    await confirmSignature(m.rpc, await m.rpc.requestAirdrop(ata, lamports(5_000_000n)).send());
    expect(await tokenAccountStates(m.rpc, m.setup.usdcMint, [squatted.address, bare.address])).toEqual(
      new Map([
        [squatted.address, 'no_token_account'],
        [bare.address, 'no_token_account'],
      ]),
    );
    await expect(
      buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: squatted.address, amount: USDC, withdrawalId: 'wd_squat' }),
    ).rejects.toBeInstanceOf(NoTokenAccountError);
  });

  it('refuses bad input', async () => {
    const wallet = await walletWithUsdcAccount(m);
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
  const base: KeeperJobState = {
    stored: { signature: 'S', lastValidBlockHeight: 100n },
    sentCount: 1,
    status: null,
    finalizedBlockHeight: 50n,
    memo: null,
  };

  it('rebuilds only when expired, never seen, and no earlier send carries the memo', () => {
    expect(decideKeeperSend(base)).toEqual({ action: 'resend' });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 100n })).toEqual({ action: 'resend' });
    expect(decideKeeperSend({ ...base, finalizedBlockHeight: 101n })).toEqual({ action: 'rebuild' });
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

  it('builds when nothing was ever stored, and leaves a record of sends without its newest one to an operator', () => {
    const none: KeeperJobState = { stored: null, sentCount: 0, status: null, finalizedBlockHeight: 5n, memo: null };
    expect(decideKeeperSend(none)).toEqual({ action: 'build' });
    expect(decideKeeperSend({ ...none, memo: { signature: 'T', confirmationStatus: 'confirmed' } })).toEqual({
      action: 'done',
      signature: 'T',
      finalized: false,
    });
    expect(decideKeeperSend({ ...none, sentCount: 1 })).toEqual({ action: 'unverifiable' });
    expect(decideKeeperSend({ ...none, sentCount: 1, finalizedBlockHeight: 10_000n })).toEqual({ action: 'unverifiable' });
  });
});

/** The RPC, except that reading an address's history fails: reconciliation must not need it. */
const noHistory = (rpc: SolanaRpc): SolanaRpc =>
  new Proxy(rpc, {
    get(target, prop, receiver) {
      if (prop === 'getSignaturesForAddress') throw new Error('reconciliation read the keeper address history');
      return Reflect.get(target, prop, receiver);
    },
  });

describe('reconciliation on localnet, from the job’s own record of sends', () => {
  it('re-sends a stored transaction that may still land, then records it once it has', async () => {
    const wallet = await walletWithUsdcAccount(m);
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_resend' });
    const job = { memo: tx.memo, stored: stored(tx), sent: [tx.signature] };
    // Stored, then the keeper died before sending.
    const before = await readKeeperJobState(noHistory(m.rpc), m.keys.keeper.publicKey, job);
    expect(decideKeeperSend(before)).toEqual({ action: 'resend' });
    await sendStored(m.rpc, tx);
    const after = await readKeeperJobState(noHistory(m.rpc), m.keys.keeper.publicKey, job);
    expect(decideKeeperSend(after)).toEqual({ action: 'done', signature: tx.signature, finalized: true });
    expect(await usdcOf(m, wallet.address)).toBe(USDC);
  });

  it('reports a stored transaction that landed and failed as stuck, not to be rebuilt', async () => {
    const wallet = await walletWithUsdcAccount(m);
    const tooMuch = (await tokenBalance(m.rpc, m.setup.vaultTokenAccount)) + 1n;
    const tx = await buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: tooMuch, withdrawalId: 'wd_fail' });
    await m.rpc.sendTransaction(tx.wire as Parameters<SolanaRpc['sendTransaction']>[0], { encoding: 'base64', skipPreflight: true }).send();
    await expect.poll(async () => (await m.rpc.getSignatureStatuses([tx.signature]).send()).value[0]).not.toBeNull();
    const state = await readKeeperJobState(noHistory(m.rpc), m.keys.keeper.publicKey, { memo: tx.memo, stored: stored(tx), sent: [tx.signature] });
    expect(decideKeeperSend(state)).toMatchObject({ action: 'stuck', signature: tx.signature });
  });

  it('rebuilds an expired, never-sent transaction, but finds an earlier send that landed', async () => {
    const keeper = fast.keys.keeper;
    const wallet = await walletWithUsdcAccount(fast);
    const expiredBy = async (tx: KeeperTransaction) =>
      expect
        .poll(async () => (await fast.rpc.getBlockHeight({ commitment: 'finalized' }).send()) > tx.lastValidBlockHeight, { timeout: 20_000, interval: 50 })
        .toBe(true);
    const rpc = noHistory(fast.rpc);

    // Built and stored, never sent, now expired: no status, and no earlier send, so a rebuild is safe.
    const lost = await buildWithdrawal(fast.rpc, fast.setup, keeper.signer, { wallet: wallet.address, amount: USDC, withdrawalId: 'wd_lost' });
    await expiredBy(lost);
    const lostState = await readKeeperJobState(rpc, keeper.publicKey, { memo: lost.memo, stored: stored(lost), sent: [lost.signature] });
    expect(lostState.memo).toBeNull();
    expect(decideKeeperSend(lostState)).toEqual({ action: 'rebuild' });

    // An earlier transaction for the job landed, while the record holds a later one that never did.
    const first = await buildWithdrawal(fast.rpc, fast.setup, keeper.signer, { wallet: wallet.address, amount: 2n * USDC, withdrawalId: 'wd_twice' });
    await sendStored(fast.rpc, first);
    const second = await buildWithdrawal(fast.rpc, fast.setup, keeper.signer, { wallet: wallet.address, amount: 2n * USDC, withdrawalId: 'wd_twice' });
    expect(second.signature).not.toBe(first.signature);
    await expiredBy(second);
    const sent = [first.signature, second.signature];
    const state = await readKeeperJobState(rpc, keeper.publicKey, { memo: second.memo, stored: stored(second), sent });
    expect(decideKeeperSend(state)).toEqual({ action: 'done', signature: first.signature, finalized: true });
    // A record that lost its stored transaction still names the payment.
    const lostStored = await readKeeperJobState(rpc, keeper.publicKey, { memo: second.memo, stored: null, sent });
    expect(decideKeeperSend(lostStored)).toEqual({ action: 'done', signature: first.signature, finalized: true });
    // ... and one whose sends did not land is left to an operator, never rebuilt.
    const unproven = await readKeeperJobState(rpc, keeper.publicKey, { memo: lost.memo, stored: null, sent: [lost.signature] });
    expect(decideKeeperSend(unproven)).toEqual({ action: 'unverifiable' });
    expect(await usdcOf(fast, wallet.address)).toBe(2n * USDC);
  });

  it('counts only a successful send carrying the job’s memo signed by the keeper alone', async () => {
    const keeper = m.keys.keeper;
    const stranger = await walletWithUsdcAccount(m);
    const memo = withdrawMemo('wd_forged');
    // A stranger's transaction with the keeper's memo text, and a keeper transaction whose memo a stranger co-signed.
    const alone = await sendAndConfirm(m.rpc, stranger, [memoInstruction(memo, [stranger])]);
    const cosigned = await sendAndConfirm(m.rpc, keeper.signer, [memoInstruction(memo, [keeper.signer, stranger])]);
    // A keeper payout of another withdrawal.
    const other = await buildWithdrawal(m.rpc, m.setup, keeper.signer, { wallet: stranger.address, amount: 1n, withdrawalId: 'wd_other' });
    await sendStored(m.rpc, other);
    const read = (sent: string[]) => readKeeperJobState(noHistory(m.rpc), keeper.publicKey, { memo, stored: null, sent });
    expect((await read([alone, cosigned, other.signature])).memo).toBeNull();

    const paid = await buildWithdrawal(m.rpc, m.setup, keeper.signer, { wallet: stranger.address, amount: 1n, withdrawalId: 'wd_forged' });
    await sendStored(m.rpc, paid);
    expect((await read([alone, paid.signature, cosigned, other.signature])).memo).toEqual({ signature: paid.signature, confirmationStatus: 'finalized' });
    await expect(readKeeperJobState(m.rpc, keeper.publicKey, { memo: 'not a memo', stored: null, sent: [alone] })).rejects.toThrow(RangeError);
  });

  it('reads many jobs with one block height and batched statuses', async () => {
    const wallet = await walletWithUsdcAccount(m);
    const txs = await Promise.all(
      [0, 1, 2].map((i) => buildWithdrawal(m.rpc, m.setup, m.keys.keeper.signer, { wallet: wallet.address, amount: 1n, withdrawalId: `wd_batch${i}` })),
    );
    await sendStored(m.rpc, txs[0]!);
    const calls: string[] = [];
    const counted = new Proxy(noHistory(m.rpc), {
      get(target, prop, receiver) {
        calls.push(String(prop));
        return Reflect.get(target, prop, receiver);
      },
    });
    const states = await readKeeperJobStates(
      counted,
      m.keys.keeper.publicKey,
      txs.map((tx) => ({ memo: tx.memo, stored: stored(tx), sent: [tx.signature] })),
    );
    expect(states.map(decideKeeperSend)).toEqual([
      { action: 'done', signature: txs[0]!.signature, finalized: true },
      { action: 'resend' },
      { action: 'resend' },
    ]);
    expect(calls.sort()).toEqual(['getBlockHeight', 'getSignatureStatuses']);
  });
});
