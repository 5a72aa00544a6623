// Finding 4: the x402 fee payer could be drained. The fee payer (the service's x402 key) pays each payment's
// transaction fee, including whatever priority fee the payment asks for: the attacker topped up 0.000001 USDC at
// 10,000–60,000 lamports of the operator's SOL each. Here: top-ups below the minimum, then payments whose transaction
// asks for a huge compute-unit price or limit (or sets no limit), built like the stock client's but re-budgeted.
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { x402Client } from '@x402/core/client';
import { x402HTTPClient } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { ataOf } from '../../../chain/genesis.ts';
import { MEMO_PROGRAM_ID } from '../../../protocol/memo.ts';
import { Attacker } from '../attacker.ts';
import { holdings, spent } from '../fair.ts';
import type { AttackResult } from '../report.ts';
import type { AttackContext } from '../suite.ts';
import { micro, within, type Target } from '../target.ts';

interface Offer {
  status: number;
  body: any;
  headers: Headers;
}

async function topUp(w: Attacker, amount: unknown, payment?: string): Promise<Offer> {
  const res = await fetch(`${w.api}/protocol/v1/player/x402-deposit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${w.token}`, ...(payment ? { 'payment-signature': payment } : {}) },
    body: JSON.stringify({ amount }),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The 402 offer for `amount`. */
async function offerFor(w: Attacker, amount: number): Promise<Offer> {
  const offer = await topUp(w, amount);
  if (offer.status !== 402 || !offer.body.accepts?.[0]) throw new Error(`x402-deposit offer: ${offer.status} ${JSON.stringify(offer.body)}`);
  return offer;
}

const feePayerOf = (offer: Offer): string => String(offer.body.accepts[0].extra.feePayer);

/** What a stock x402 client pays for the offer: its PAYMENT-SIGNATURE header and the payload in it. */
async function stockPayment(w: Attacker, offer: Offer): Promise<{ header: string; payload: PaymentPayload; client: x402HTTPClient }> {
  const accepted = offer.body.accepts[0];
  const inner = new x402Client().register(accepted.network, new ExactSvmScheme(w.signer, { rpcUrl: w.rpcUrl }));
  // Our dev USDC is not one of the stock client's default assets: it must be allowed explicitly.
  inner.setSpendControls({ allowedAssets: [{ network: accepted.network, asset: accepted.asset }] });
  const client = new x402HTTPClient(inner);
  const required = client.getPaymentRequiredResponse((name) => offer.headers.get(name), offer.body);
  const payload = await client.createPaymentPayload(required);
  const header = client.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'];
  if (!header) throw new Error('the stock client built no PAYMENT-SIGNATURE header');
  return { header, payload, client };
}

/** The stock payment with its transaction rebuilt to ask the fee payer for `budget` (`units` null: no limit set). */
async function rebudgeted(target: Target, w: Attacker, offer: Offer, budget: { units: number | null; microLamports: bigint }): Promise<string> {
  const { payload, client } = await stockPayment(w, offer);
  const accepted = payload.accepted;
  const { value: blockhash } = await target.rpc.getLatestBlockhash().send();
  const instructions: Instruction[] = [
    ...(budget.units === null ? [] : [getSetComputeUnitLimitInstruction({ units: budget.units })]),
    getSetComputeUnitPriceInstruction({ microLamports: budget.microLamports }),
    getTransferCheckedInstruction({
      source: await ataOf(w.signer.address, address(accepted.asset)),
      mint: address(accepted.asset),
      destination: target.config.vaultTokenAccount,
      authority: w.signer,
      amount: BigInt(accepted.amount),
      decimals: 6,
    }),
    { programAddress: address(MEMO_PROGRAM_ID), accounts: [], data: new TextEncoder().encode(String(accepted.extra.memo)) },
  ];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (tx) => setTransactionMessageFeePayer(address(String(accepted.extra.feePayer)), tx),
    (tx) => setTransactionMessageLifetimeUsingBlockhash(blockhash, tx),
    (tx) => appendTransactionMessageInstructions(instructions, tx),
  );
  const transaction = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
  const header = client.encodePaymentSignatureHeader({ ...payload, payload: { transaction } })['PAYMENT-SIGNATURE'];
  if (!header) throw new Error('no PAYMENT-SIGNATURE header');
  return header;
}

const describe = (res: Offer): string => `${res.status} ${res.body?.error?.code ?? ''} ${res.body?.error?.details?.reason ?? ''}`.trim();

export async function dustTopUps(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target } = ctx;
  // The payer needs no SOL: the fee payer pays.
  const w = await Attacker.create(target, { usdc: 5, sol: 0 });
  const offer = await offerFor(w, 1);
  const feePayer = feePayerOf(offer);
  const payment = (await stockPayment(w, offer)).header;
  const before = await holdings([w]);
  const feePayerBefore = await target.lamports(feePayer);
  const answers: { amount: unknown; paid: boolean; res: Offer }[] = [];
  for (const amount of [0.000001, 0.5, '0.999999']) {
    for (const header of [undefined, payment]) answers.push({ amount, paid: header !== undefined, res: await topUp(w, amount, header) });
  }
  const wrong = answers.filter(
    (a) => a.res.status !== 400 || a.res.body?.error?.code !== 'INVALID_BET_AMOUNT' || typeof a.res.body.error.details?.minimum !== 'number',
  );
  r.checks.push({
    name: 'a top-up below the minimum is refused with INVALID_BET_AMOUNT and the minimum in details, paid or not',
    held: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${answers.length} answered otherwise, e.g. ${JSON.stringify(wrong[0]!.amount)}: ${describe(wrong[0]!.res)}`
      : `${answers.length} refused, details.minimum ${answers[0]!.res.body.error.details.minimum} USDC`,
  });
  const feePayerLost = feePayerBefore - (await target.lamports(feePayer));
  const after = await holdings([w]);
  r.checks.push({
    name: 'nothing moved: no credit, the payer’s USDC and the fee payer’s SOL unchanged',
    held: feePayerLost === 0n && after.usdcMicro === before.usdcMicro && micro((await w.status()).balance) === 0n,
    detail: `fee payer −${feePayerLost} lamports, payer's USDC ${after.usdcMicro - before.usdcMicro} micro`,
  });
  r.gain.lamports = feePayerLost;
  const cost = spent(before, after);
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };

  // The smallest round trip the minimums leave: top up 1 USDC, withdraw it. Not a gain: it shows the fees it costs.
  const paid = await topUp(w, 1, payment);
  if (paid.status === 200) {
    const topUpFee = feePayerBefore - (await target.lamports(feePayer));
    const keeper = await target.keeperReading();
    const out = await w.withdraw(1, 'round-trip');
    const back = out.status === 200 && (await within(60_000, async () => micro((await w.status()).pendingWithdrawals) === 0n));
    const keeperFee = back ? (await target.keeperSpend(keeper)).fees : null;
    r.notes.push(
      `a top-up at the minimum (1 USDC) cost the fee payer ${topUpFee} lamports; withdrawing it again cost the keeper ${keeperFee ?? '?'} lamports: one fee each way per USDC moved, nothing beyond (the issue's run: 10,000–60,000 lamports per 0.000001 USDC top-up)`,
    );
  } else r.notes.push(`the 1 USDC top-up at the minimum answered ${describe(paid)}`);
}

export async function computeBudgetPayments(ctx: AttackContext, r: AttackResult): Promise<void> {
  const { target } = ctx;
  const w = await Attacker.create(target, { usdc: 5, sol: 0 });
  const cases: { name: string; units: number | null; microLamports: bigint }[] = [
    { name: 'a priority fee of 1,000,000 micro-lamports per unit', units: 20_000, microLamports: 1_000_000n },
    { name: 'the largest compute-unit limit', units: 1_400_000, microLamports: 1n },
    { name: 'both at once', units: 1_400_000, microLamports: 10_000_000n },
    { name: 'no compute-unit limit', units: null, microLamports: 1_000n },
  ];
  let feePayer: string | null = null;
  let feePayerBefore = 0n;
  const before = await holdings([w]);
  const answers: string[] = [];
  let asked = 0n;
  for (const c of cases) {
    const offer = await offerFor(w, 1);
    if (!feePayer) {
      feePayer = feePayerOf(offer);
      feePayerBefore = await target.lamports(feePayer);
    }
    const header = await rebudgeted(target, w, offer, c);
    const res = await topUp(w, 1, header);
    answers.push(`${c.name}: ${describe(res)}`);
    asked += (BigInt(c.units ?? 200_000) * c.microLamports) / 1_000_000n;
    r.checks.push({
      name: `a payment asking for ${c.name} is refused before the fee payer signs`,
      held: res.status === 402 && res.body?.error?.code === 'X402_PAYMENT_VERIFICATION_FAILED' && res.body.error.details?.reason === 'compute_budget_exceeded',
      detail: describe(res),
    });
  }
  const feePayerLost = feePayerBefore - (await target.lamports(feePayer!));
  const after = await holdings([w]);
  r.checks.push({
    name: 'nothing moved: no credit, the payer’s USDC unchanged',
    held: after.usdcMicro === before.usdcMicro && micro((await w.status()).balance) === 0n,
    detail: `payer's USDC ${after.usdcMicro - before.usdcMicro} micro, balance ${(await w.status()).balance}`,
  });
  r.notes.push(`${cases.length} payments of 1 USDC asked the fee payer for ${asked} lamports of priority fees in all; it lost ${feePayerLost} lamports`);
  r.gain.lamports = feePayerLost;
  const cost = spent(before, after);
  r.cost = { usdcMicro: cost.usdcMicro, lamports: cost.lamports };
}
