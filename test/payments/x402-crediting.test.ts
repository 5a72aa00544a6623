// The x402 crediting rule against real transactions on localnet: an x402 top-up is the payer's deposit, and
// everything the rule was not written for stays exactly as `classifyTransaction` has it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signature as toSignature, type Instruction, type KeyPairSigner, type TransactionSigner } from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { ataOf } from '../../chain/genesis.ts';
import { memoInstruction } from '../../chain/memo.ts';
import { sendWire, signInstructions } from '../../chain/send.ts';
import { classifyTransaction, type CreditingContext, type RawTransaction } from '../../funding/crediting.ts';
import { classifyWithX402, x402Deposits } from '../../funding/x402-crediting.ts';
import { depositMemo, x402Memo } from '../../protocol/memo.ts';
import { X402Payments, embeddedFacilitator, x402NetworkOf } from '../../payments/x402.ts';
import { x402Client } from '@x402/core/client';
import { x402HTTPClient } from '@x402/core/http';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { USDC, fundedWallet, startMoneyNet, type MoneyNet } from './money-net.ts';

let m: MoneyNet;
let ctx: CreditingContext;

beforeAll(async () => {
  m = await startMoneyNet();
  ctx = { usdcMint: m.setup.usdcMint, vaultTokenAccount: m.setup.vaultTokenAccount };
});
afterAll(async () => {
  await m?.dispose();
});

const nonce = () => randomBytes(16).toString('hex');

async function transferIx(from: TransactionSigner, amount: bigint): Promise<Instruction> {
  return getTransferCheckedInstruction({
    source: await ataOf(from.address, m.setup.usdcMint),
    mint: m.setup.usdcMint,
    destination: m.setup.vaultTokenAccount,
    authority: from,
    amount,
    decimals: 6,
  });
}

/** Signs and sends (skipping preflight when asked, so a failing transaction lands), then reads it back as the indexer does. */
async function landed(feePayer: TransactionSigner, instructions: Instruction[], skipPreflight = false): Promise<RawTransaction> {
  const tx = await signInstructions(m.rpc, feePayer, instructions);
  if (skipPreflight) await m.rpc.sendTransaction(tx.wire as Parameters<typeof m.rpc.sendTransaction>[0], { encoding: 'base64', skipPreflight: true }).send();
  else await sendWire(m.rpc, tx.wire);
  const got = await m.rpc.getTransaction(tx.signature, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }).send();
  if (!got) throw new Error('transaction not found');
  return got as unknown as RawTransaction;
}

const kinds = (c: { items: { kind: string; wallet?: string; amount?: bigint }[] }) => c.items.map((i) => [i.kind, i.wallet ?? null, i.amount ?? null]);

describe('x402 crediting', () => {
  it('credits a settled x402 top-up to its payer, keyed by the transfer, which the old rule left unattributed', async () => {
    const network = x402NetworkOf('localnet');
    const svcBudget = { maxUnitLimit: 40_000, maxUnitPriceMicroLamports: 50_000n };
    const x402 = new X402Payments({
      network,
      usdcMint: m.setup.usdcMint,
      payTo: m.setup.vaultAuthority,
      facilitator: () => embeddedFacilitator({ network, rpcUrl: m.url, feePayer: m.feePayer.signer, computeBudget: svcBudget }),
      computeBudget: svcBudget,
    });
    const wallet = await fundedWallet(m, 5n * USDC);
    const offer = await x402.offer({ amount: 4n * USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' });
    const client = new x402Client().register(network, new ExactSvmClientScheme(wallet, { rpcUrl: m.url }));
    client.setSpendControls({ allowedAssets: [{ network, asset: m.setup.usdcMint }] });
    const http = new x402HTTPClient(client);
    const payload = await http.createPaymentPayload(http.getPaymentRequiredResponse((n) => (n.toUpperCase() === 'PAYMENT-REQUIRED' ? offer.header : null)));
    const settled = await x402.settle({ payment: payload, amount: 4n * USDC, wallet: wallet.address, claim: async () => true });
    const tx = (await m.rpc
      .getTransaction(toSignature(settled.signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
      .send()) as unknown as RawTransaction;

    expect(kinds(classifyTransaction(tx, ctx))).toEqual([['unattributed', null, 4n * USDC]]);
    const classified = classifyWithX402(tx, ctx);
    expect(classified.items).toEqual([
      { key: `${settled.signature}:2`, kind: 'x402-deposit', signature: settled.signature, slot: Number(tx.slot), wallet: wallet.address, amount: 4n * USDC },
    ]);
  });

  it('credits only the wallet that paid and signed, and only once', async () => {
    const a = await fundedWallet(m, 10n * USDC);
    const b = await fundedWallet(m, 10n * USDC);
    const c = await fundedWallet(m, 10n * USDC);

    // The payer's own transaction with the memo (no facilitator needed): the memo is what counts.
    const own = await landed(a, [await transferIx(a, USDC), memoInstruction(x402Memo(a.address, nonce()), [])]);
    expect(kinds(classifyWithX402(own, ctx))).toEqual([['x402-deposit', a.address, USDC]]);

    // A memo naming someone else than the payer: unattributed, credited to no one.
    const other = await landed(a, [await transferIx(a, USDC), memoInstruction(x402Memo(b.address, nonce()), [])]);
    expect(kinds(classifyWithX402(other, ctx))).toEqual([['unattributed', null, USDC]]);

    // A memo whose signer account is a third party: not the payer's word.
    const cosigned = await landed(c, [await transferIx(a, USDC), memoInstruction(x402Memo(a.address, nonce()), [c as KeyPairSigner])]);
    expect(kinds(classifyWithX402(cosigned, ctx))).toEqual([['unattributed', null, USDC]]);

    // Signed by the payer as its only signer account: still the payer's word.
    const signedMemo = await landed(a, [await transferIx(a, USDC), memoInstruction(x402Memo(a.address, nonce()), [a])]);
    expect(kinds(classifyWithX402(signedMemo, ctx))).toEqual([['x402-deposit', a.address, USDC]]);

    // Two payers in one transaction, the memo names one: the other's transfer stays unattributed.
    const two = await landed(a, [await transferIx(a, USDC), await transferIx(b, 2n * USDC), memoInstruction(x402Memo(a.address, nonce()), [])]);
    expect(kinds(classifyWithX402(two, ctx))).toEqual([
      ['x402-deposit', a.address, USDC],
      ['unattributed', null, 2n * USDC],
    ]);

    // A signed deposit memo and an x402 memo on one transfer: credited once, by the deposit rule.
    const both = await landed(a, [await transferIx(a, USDC), memoInstruction(depositMemo(a.address), [a]), memoInstruction(x402Memo(a.address, nonce()), [])]);
    const once = classifyWithX402(both, ctx);
    expect(kinds(once)).toEqual([['deposit', a.address, USDC]]);
    expect(once).toEqual(classifyTransaction(both, ctx));
    expect(x402Deposits(both, ctx, new Set(once.items.map((i) => i.key)))).toEqual([]);

    // A failed transaction moves nothing and credits nothing.
    const failed = await landed(a, [await transferIx(a, 1_000n * USDC), memoInstruction(x402Memo(a.address, nonce()), [])], true);
    expect(failed.meta?.err).not.toBeNull();
    expect(classifyWithX402(failed, ctx).items).toEqual([]);
  });

  it('changes nothing for transactions without an x402 memo', async () => {
    const a = await fundedWallet(m, 10n * USDC);
    const samples = [
      await landed(a, [await transferIx(a, USDC)]),
      await landed(a, [await transferIx(a, USDC), memoInstruction(depositMemo(a.address), [a])]),
      await landed(a, [await transferIx(a, USDC), memoInstruction('pfws:v1:x402:not-a-wallet', [])]),
      await landed(a, [memoInstruction(`pfws:v1:setup:${a.address}:${a.address}`, [a])]),
    ];
    for (const tx of samples) expect(classifyWithX402(tx, ctx)).toEqual(classifyTransaction(tx, ctx));
  });
});
