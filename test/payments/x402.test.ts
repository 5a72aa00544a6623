// x402 top-ups end to end on localnet: a wallet pays with @x402/svm's client, our module verifies and settles it
// through @x402/core's resource server and an in-process (or HTTP) @x402/svm facilitator.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signature as toSignature,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { x402Client } from '@x402/core/client';
import { x402HTTPClient } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { loadOperatorKey } from '../../operator/keys.ts';
import { MEMO_PROGRAM_ID, x402Memo } from '../../protocol/memo.ts';
import { Keys } from '../../store/keys.ts';
import { PaymentStore } from '../../store/payments.ts';
import { X402Error, X402Payments, embeddedFacilitator, facilitatorFromConfig, x402NetworkOf } from '../../payments/x402.ts';
import { USDC, fundedWallet, solOf, startMoneyNet, tokenBalance, usdcOf, type MoneyNet } from './money-net.ts';

const network = x402NetworkOf('localnet');
/** The configured defaults (X402_MAX_CU_LIMIT, X402_MAX_CU_PRICE_MICROLAMPORTS). */
const BUDGET = { maxUnitLimit: 40_000, maxUnitPriceMicroLamports: 50_000n };
let m: MoneyNet;
let redis: Redis;
const prefix = `test-x402-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  m = await startMoneyNet();
  redis = new Redis('redis://127.0.0.1:6379');
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await m?.dispose();
});

function payments(facilitator = () => embeddedFacilitator({ network, rpcUrl: m.url, feePayer: m.feePayer.signer, computeBudget: BUDGET })): X402Payments {
  return new X402Payments({ network, usdcMint: m.setup.usdcMint, payTo: m.setup.vaultAuthority, facilitator, computeBudget: BUDGET });
}

/** The Redis guard the route will use, under this test's prefix. */
const redisClaim = (fingerprint: string) => new PaymentStore(redis, new Keys(prefix)).claim(fingerprint);

/** What a stock x402 client does with a 402: read PAYMENT-REQUIRED, build a payload for accepts[0], encode the header. */
async function pay(wallet: KeyPairSigner, offer: { header: string }, rpcUrl = m.url): Promise<{ header: string; payload: PaymentPayload }> {
  // A non-default asset (our dev USDC) must be allowed explicitly by a stock client.
  const inner = new x402Client().register(network, new ExactSvmClientScheme(wallet, { rpcUrl }));
  inner.setSpendControls({ allowedAssets: [{ network, asset: m.setup.usdcMint }] });
  const client = new x402HTTPClient(inner);
  const required = client.getPaymentRequiredResponse((name) => (name.toUpperCase() === 'PAYMENT-REQUIRED' ? offer.header : null));
  const payload = await client.createPaymentPayload(required);
  const header = client.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'];
  if (!header) throw new Error('no PAYMENT-SIGNATURE header');
  return { header, payload };
}

/** A JSON-RPC pass-through to localnet that records the methods called through it. */
async function recordingRpc(target: string): Promise<{ url: string; methods: Set<string>; close(): Promise<void> }> {
  const methods = new Set<string>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    for (const call of [JSON.parse(body)].flat() as { method: string }[]) methods.add(call.method);
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, methods, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64');

/**
 * A payment for `offer`, signed by the wallet like the stock client's, but whose transaction sets the compute budget
 * given (`units` null: no SetComputeUnitLimit at all).
 */
async function payWithBudget(wallet: KeyPairSigner, offer: { header: string }, budget: { units: number | null; microLamports: bigint }) {
  const { payload } = await pay(wallet, offer);
  const accepted = payload.accepted;
  const { value: blockhash } = await m.rpc.getLatestBlockhash().send();
  const instructions: Instruction[] = [
    ...(budget.units === null ? [] : [getSetComputeUnitLimitInstruction({ units: budget.units })]),
    getSetComputeUnitPriceInstruction({ microLamports: budget.microLamports }),
    getTransferCheckedInstruction({
      source: await ataOf(wallet.address, m.setup.usdcMint),
      mint: m.setup.usdcMint,
      destination: m.setup.vaultTokenAccount,
      authority: wallet,
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
  return { ...payload, payload: { transaction } };
}

async function rejection(promise: Promise<unknown>): Promise<X402Error> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(X402Error);
  return err as X402Error;
}

describe('x402 top-up', () => {
  it('settles a payload from the stock client into the vault, fees paid by the x402 fee payer', async () => {
    const clientRpc = await recordingRpc(m.url);
    const facilitatorRpc = await recordingRpc(m.url);
    const x402 = payments(() => embeddedFacilitator({ network, rpcUrl: facilitatorRpc.url, feePayer: m.feePayer.signer, computeBudget: BUDGET }));
    const wallet = await fundedWallet(m, 10n * USDC);
    const amount = 2_500_000n;
    const offer = await x402.offer({ amount, wallet: wallet.address, resourceUrl: 'http://localhost/api/protocol/v1/player/x402-deposit' });
    expect(offer.x402Version).toBe(2);
    expect(offer.accepts).toHaveLength(1);
    expect(offer.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      amount: '2500000',
      asset: m.setup.usdcMint,
      payTo: m.setup.vaultAuthority,
      extra: { feePayer: m.feePayer.publicKey, memo: expect.stringMatching(new RegExp(`^pfws:v1:x402:${wallet.address}:[0-9a-f]{32}$`)) },
    });

    const vaultBefore = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    const walletSolBefore = await solOf(m, wallet.address);
    const feePayerSolBefore = await solOf(m, m.feePayer.signer.address);
    const { header } = await pay(wallet, offer, clientRpc.url);
    const settled = await x402.settle({ payment: header, amount, wallet: wallet.address, claim: redisClaim });
    expect(settled).toMatchObject({ payer: wallet.address, amount, network });
    // What the stock client and the facilitator ask of the RPC, all served by localnet.
    expect([...clientRpc.methods].sort()).toEqual(['getAccountInfo', 'getLatestBlockhash']);
    expect([...facilitatorRpc.methods].sort()).toEqual(['getSignatureStatuses', 'sendTransaction', 'simulateTransaction']);
    await Promise.all([clientRpc.close(), facilitatorRpc.close()]);

    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vaultBefore + amount);
    expect(await usdcOf(m, wallet.address)).toBe(10n * USDC - amount);
    expect(await solOf(m, wallet.address)).toBe(walletSolBefore);
    expect(await solOf(m, m.feePayer.signer.address)).toBeLessThan(feePayerSolBefore);

    // The settled transaction, as the indexer will read it.
    const tx = await m.rpc
      .getTransaction(toSignature(settled.signature), { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
      .send();
    if (!tx) throw new Error('settled transaction not found');
    const message = tx.transaction.message;
    const keys = message.accountKeys;
    expect(tx.meta?.err).toBeNull();
    expect(tx.transaction.signatures[0]).toBe(settled.signature);
    expect(message.header.numRequiredSignatures).toBe(2);
    expect(keys.slice(0, 2)).toEqual([m.feePayer.publicKey, wallet.address]);
    const programs = message.instructions.map((ix) => keys[ix.programIdIndex]);
    expect(programs).toEqual([
      'ComputeBudget111111111111111111111111111111',
      'ComputeBudget111111111111111111111111111111',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      MEMO_PROGRAM_ID,
    ]);
    const [, , transfer, memo] = message.instructions;
    expect(transfer!.accounts.map((i) => keys[i])).toEqual([
      await ataOf(wallet.address, m.setup.usdcMint),
      m.setup.usdcMint,
      m.setup.vaultTokenAccount,
      wallet.address,
    ]);
    expect(memo!.accounts).toEqual([]);
    expect(offer.accepts[0]!.extra.memo).toMatch(/^pfws:v1:x402:/);
    expect(tx.meta?.logMessages?.some((l) => l.includes(`Memo (len ${String(offer.accepts[0]!.extra.memo).length})`))).toBe(true);
  });

  it('refuses a payment for another amount, whether the payload says so or only its transaction does', async () => {
    const x402 = payments();
    const wallet = await fundedWallet(m, 10n * USDC);
    const { header, payload } = await pay(wallet, await x402.offer({ amount: 2n * USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);

    const asked = await rejection(x402.settle({ payment: header, amount: 3n * USDC, wallet: wallet.address, claim: redisClaim }));
    expect([asked.code, asked.reason, asked.status]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'amount_mismatch', 402]);

    // The payload claims 3 USDC, but its signed transaction moves 2: the facilitator catches it.
    const inflated = { ...payload, accepted: { ...payload.accepted, amount: String(3n * USDC) } };
    const lied = await rejection(x402.settle({ payment: encode(inflated), amount: 3n * USDC, wallet: wallet.address, claim: redisClaim }));
    expect([lied.code, lied.reason]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'amount_mismatch']);
    expect(lied.details).toMatchObject({ facilitatorReason: 'invalid_exact_svm_payload_amount_mismatch' });

    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault);
    expect(await usdcOf(m, wallet.address)).toBe(10n * USDC);
  });

  it('refuses a payment asking the fee payer for more than the configured compute budget, before anything is verified or sent', async () => {
    const facilitatorRpc = await recordingRpc(m.url);
    const x402 = payments(() => embeddedFacilitator({ network, rpcUrl: facilitatorRpc.url, feePayer: m.feePayer.signer, computeBudget: BUDGET }));
    const wallet = await fundedWallet(m, 10n * USDC);
    const offerFor = () => x402.offer({ amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' });
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    const feePayerSol = await solOf(m, m.feePayer.signer.address);
    const claimed: string[] = [];
    const claim = async (fingerprint: string) => {
      claimed.push(fingerprint);
      return redisClaim(fingerprint);
    };
    const cases: [{ units: number | null; microLamports: bigint }, RegExp, Record<string, unknown>][] = [
      // A priority fee 10× the price allowed (the facilitator's own limit used to let 20× through).
      [{ units: 20_000, microLamports: 500_000n }, /compute-unit price 500000/, { computeUnitLimit: 20_000, computeUnitPriceMicroLamports: '500000' }],
      [{ units: 45_000, microLamports: 1n }, /compute-unit limit 45000/, { computeUnitLimit: 45_000, computeUnitPriceMicroLamports: '1' }],
      // No limit: the runtime's default of 200,000 units per instruction would apply.
      [{ units: null, microLamports: 1n }, /no compute-unit limit/, { computeUnitLimit: null }],
    ];
    for (const [budget, why, details] of cases) {
      const payment = await payWithBudget(wallet, await offerFor(), budget);
      const err = await rejection(x402.settle({ payment: encode(payment), amount: USDC, wallet: wallet.address, claim }));
      expect([err.code, err.reason, err.status]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'compute_budget_exceeded', 402]);
      expect(err.message).toMatch(why);
      expect(err.details).toMatchObject({ ...details, maxComputeUnitLimit: 40_000, maxComputeUnitPriceMicroLamports: '50000' });
    }
    // Nothing was simulated, signed or sent, claimed, paid or moved.
    expect([...facilitatorRpc.methods]).toEqual([]);
    expect(claimed).toEqual([]);
    expect(await solOf(m, m.feePayer.signer.address)).toBe(feePayerSol);
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault);
    // At the limits exactly, the same kind of payment settles.
    const within = await payWithBudget(wallet, await offerFor(), { units: 40_000, microLamports: 50_000n });
    expect((await x402.settle({ payment: encode(within), amount: USDC, wallet: wallet.address, claim })).payer).toBe(wallet.address);
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault + USDC);
    await facilitatorRpc.close();
  });

  it('refuses a payer other than the session wallet (403), and an offer made for another wallet', async () => {
    const x402 = payments();
    const payer = await fundedWallet(m, 10n * USDC);
    const session = await fundedWallet(m, 10n * USDC);
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);

    const own = await pay(payer, await x402.offer({ amount: USDC, wallet: payer.address, resourceUrl: 'http://localhost/x' }));
    const mismatch = await rejection(x402.settle({ payment: own.header, amount: USDC, wallet: session.address, claim: redisClaim }));
    expect([mismatch.code, mismatch.reason, mismatch.status]).toEqual(['X402_PAYER_MISMATCH', 'payer_mismatch', 403]);
    expect(mismatch.details).toEqual({ payer: payer.address });

    // Paying an offer whose memo names another wallet would land as unattributed: refused before settling.
    const foreign = await pay(payer, await x402.offer({ amount: USDC, wallet: session.address, resourceUrl: 'http://localhost/x' }));
    const named = await rejection(x402.settle({ payment: foreign.header, amount: USDC, wallet: payer.address, claim: redisClaim }));
    expect([named.code, named.reason]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'memo_mismatch']);

    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault);
    expect(await usdcOf(m, payer.address)).toBe(10n * USDC);
  });

  it('refuses garbage, tampered payloads and payments the wallet cannot fund, before claiming them', async () => {
    const x402 = payments();
    const wallet = await fundedWallet(m, USDC);
    const claimed: string[] = [];
    const claim = async (fingerprint: string) => {
      claimed.push(fingerprint);
      return redisClaim(fingerprint);
    };
    for (const garbage of ['not base64 at all!', encode({ hello: 'world' }), encode({ x402Version: 2 }), '', 'A'.repeat(20_000), 42, null]) {
      const err = await rejection(x402.settle({ payment: garbage, amount: USDC, wallet: wallet.address, claim }));
      expect([err.code, err.reason]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'malformed_payload']);
    }

    const { payload } = await pay(wallet, await x402.offer({ amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
    // One flipped bit in the wallet's signature.
    const bytes = Buffer.from(String(payload.payload.transaction), 'base64');
    bytes[1 + 64 + 5] = bytes[1 + 64 + 5]! ^ 1;
    const tampered = { ...payload, payload: { transaction: bytes.toString('base64') } };
    const badSig = await rejection(x402.settle({ payment: encode(tampered), amount: USDC, wallet: wallet.address, claim }));
    expect([badSig.code, badSig.reason]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'verify_rejected']);
    expect(badSig.details).toEqual({ facilitatorReason: 'invalid_exact_svm_payload_signature_invalid' });

    // A version-1 payload, and a payment on another network.
    const v1 = await rejection(
      x402.settle({ payment: encode({ ...payload, x402Version: 1, scheme: 'exact', network: 'solana-devnet' }), amount: USDC, wallet: wallet.address, claim }),
    );
    expect(v1.reason).toBe('unsupported_payment');
    const elsewhere = { ...payload, accepted: { ...payload.accepted, network: x402NetworkOf('mainnet-beta') } };
    expect((await rejection(x402.settle({ payment: encode(elsewhere), amount: USDC, wallet: wallet.address, claim }))).reason).toBe('unsupported_payment');
    // The same transaction offered to another recipient does not match our offer.
    const redirected = { ...payload, accepted: { ...payload.accepted, payTo: wallet.address } };
    expect((await rejection(x402.settle({ payment: encode(redirected), amount: USDC, wallet: wallet.address, claim }))).reason).toBe('requirements_mismatch');

    // 2 USDC asked of a wallet holding 1: the facilitator's simulation fails.
    const poor = await pay(wallet, await x402.offer({ amount: 2n * USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
    const unfunded = await rejection(x402.settle({ payment: poor.header, amount: 2n * USDC, wallet: wallet.address, claim }));
    expect([unfunded.code, unfunded.reason]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'verify_rejected']);
    expect(unfunded.details).toEqual({ facilitatorReason: 'invalid_exact_svm_transaction_simulation_failed' });

    expect(claimed).toEqual([]);
    expect(await usdcOf(m, wallet.address)).toBe(USDC);
  });

  it('reports a settle failure after a passing verify, with nothing moved', async () => {
    const x402 = payments();
    const wallet = await fundedWallet(m, 2n * USDC);
    const sink = await fundedWallet(m, 1n);
    const { header } = await pay(wallet, await x402.offer({ amount: 2n * USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    // Between verify and settle, the wallet spends its USDC elsewhere.
    const drainFirst = async (fingerprint: string) => {
      const source = await ataOf(wallet.address, m.setup.usdcMint);
      const destination = await ataOf(sink.address, m.setup.usdcMint);
      await sendAndConfirm(m.rpc, wallet, [
        getTransferCheckedInstruction({ source, mint: m.setup.usdcMint, destination, authority: wallet, amount: 2n * USDC, decimals: 6 }),
      ]);
      return redisClaim(fingerprint);
    };
    const err = await rejection(x402.settle({ payment: header, amount: 2n * USDC, wallet: wallet.address, claim: drainFirst }));
    expect([err.code, err.reason, err.status]).toEqual(['X402_PAYMENT_SETTLEMENT_FAILED', 'settle_rejected', 402]);
    expect(err.details).toMatchObject({ facilitatorReason: 'invalid_exact_svm_transaction_simulation_failed' });
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault);
  });

  it('settles a payload once: a second use is refused, also when two instances race on it', async () => {
    const wallet = await fundedWallet(m, 10n * USDC);
    const x402 = payments();
    const first = await pay(wallet, await x402.offer({ amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
    const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
    await x402.settle({ payment: first.header, amount: USDC, wallet: wallet.address, claim: redisClaim });
    const again = await rejection(x402.settle({ payment: first.header, amount: USDC, wallet: wallet.address, claim: redisClaim }));
    expect([again.code, again.reason]).toEqual(['X402_PAYMENT_VERIFICATION_FAILED', 'duplicate_payment']);
    // Re-wrapped JSON around the same transaction is the same payment.
    const rewrapped = await rejection(x402.settle({ payment: JSON.stringify(first.payload), amount: USDC, wallet: wallet.address, claim: redisClaim }));
    expect(rewrapped.reason).toBe('duplicate_payment');
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault + USDC);

    // Two API processes (two instances, each with its own facilitator) receive the same fresh payload at once.
    const second = await pay(wallet, await x402.offer({ amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
    const results = await Promise.allSettled(
      [payments(), payments()].map((instance) => instance.settle({ payment: second.header, amount: USDC, wallet: wallet.address, claim: redisClaim })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as X402Error).reason).toBe('duplicate_payment');
    expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault + 2n * USDC);
    expect(await usdcOf(m, wallet.address)).toBe(8n * USDC);
  });

  it('gives two offers of the same amount different memos, so both payments settle', async () => {
    const x402 = payments();
    const wallet = await fundedWallet(m, 10n * USDC);
    const offers = await Promise.all([1, 2].map(() => x402.offer({ amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' })));
    expect(offers[0]!.accepts[0]!.extra.memo).not.toBe(offers[1]!.accepts[0]!.extra.memo);
    const paid = await Promise.all(offers.map((o) => pay(wallet, o)));
    const settled = await Promise.all(paid.map((p) => x402.settle({ payment: p.header, amount: USDC, wallet: wallet.address, claim: redisClaim })));
    expect(new Set(settled.map((s) => s.signature)).size).toBe(2);
    expect(await usdcOf(m, wallet.address)).toBe(8n * USDC);
  });

  it('settles through a remote facilitator named by X402_FACILITATOR_URL', async () => {
    // A facilitator service on HTTP (/supported, /verify, /settle), as a remote one would be.
    const inner = embeddedFacilitator({ network, rpcUrl: m.url, feePayer: m.feePayer.signer, computeBudget: BUDGET });
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body =
        chunks.length > 0
          ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { paymentPayload: PaymentPayload; paymentRequirements: PaymentPayload['accepted'] })
          : null;
      const result =
        req.url === '/supported'
          ? await inner.getSupported()
          : req.url === '/verify'
            ? await inner.verify(body!.paymentPayload, body!.paymentRequirements)
            : await inner.settle(body!.paymentPayload, body!.paymentRequirements);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(result));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const noKeyHere = () => {
        throw new Error('the fee payer key is not on this host');
      };
      const x402 = payments(facilitatorFromConfig({ network, url, rpcUrl: m.url, feePayer: noKeyHere, computeBudget: BUDGET }));
      const wallet = await fundedWallet(m, 5n * USDC);
      const { header } = await pay(wallet, await x402.offer({ amount: 3n * USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' }));
      const vault = await tokenBalance(m.rpc, m.setup.vaultTokenAccount);
      const settled = await x402.settle({ payment: header, amount: 3n * USDC, wallet: wallet.address, claim: redisClaim });
      expect(settled.payer).toBe(wallet.address);
      expect(await tokenBalance(m.rpc, m.setup.vaultTokenAccount)).toBe(vault + 3n * USDC);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('reports misconfiguration as X402_CONFIG_ERROR (500), and recovers once it is fixed', async () => {
    const wallet = await fundedWallet(m, USDC);
    const offer = { amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' };

    // An API host with only x402.pub: the embedded facilitator has no key to sign with.
    const pubOnlyDir = `${m.keysDir}-pub`;
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(pubOnlyDir, { recursive: true });
    writeFileSync(`${pubOnlyDir}/x402.pub`, m.feePayer.publicKey);
    const pubOnly = await loadOperatorKey(pubOnlyDir, 'x402', false);
    const keyless = payments(facilitatorFromConfig({ network, rpcUrl: m.url, feePayer: () => pubOnly.signer, computeBudget: BUDGET }));
    const noKey = await rejection(keyless.offer(offer));
    expect([noKey.code, noKey.reason, noKey.status]).toEqual(['X402_CONFIG_ERROR', 'fee_payer_unavailable', 500]);

    // X402_FACILITATOR_URL pointing nowhere.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = payments(
      facilitatorFromConfig({ network, url: deadUrl, rpcUrl: m.url, feePayer: () => m.feePayer.signer, timeoutMs: 2_000, computeBudget: BUDGET }),
    );
    expect((await rejection(unreachable.offer(offer))).reason).toBe('facilitator_unavailable');
    const { payload } = await pay(wallet, await payments().offer(offer));
    expect((await rejection(unreachable.settle({ payment: encode(payload), amount: USDC, wallet: wallet.address, claim: redisClaim }))).code).toBe(
      'X402_CONFIG_ERROR',
    );

    // A facilitator for another network than the service's.
    const wrongNetwork = payments(() =>
      embeddedFacilitator({ network: x402NetworkOf('testnet'), rpcUrl: m.url, feePayer: m.feePayer.signer, computeBudget: BUDGET }),
    );
    expect((await rejection(wrongNetwork.offer(offer))).reason).toBe('facilitator_unsupported');

    // A transient failure is not remembered: the same instance works once its facilitator does.
    let broken = true;
    const flaky = payments(() => {
      if (broken) throw new Error('not yet');
      return embeddedFacilitator({ network, rpcUrl: m.url, feePayer: m.feePayer.signer, computeBudget: BUDGET });
    });
    expect((await rejection(flaky.offer(offer))).code).toBe('X402_CONFIG_ERROR');
    broken = false;
    expect((await flaky.offer(offer)).accepts).toHaveLength(1);
  });
});

describe('PaymentStore.claim', () => {
  it('claims a key once across connections, and again only after it expires', async () => {
    const other = new Redis('redis://127.0.0.1:6379');
    try {
      const keys = new Keys(prefix);
      const [mine, theirs] = [new PaymentStore(redis, keys), new PaymentStore(other, keys)];
      const key = keys.x402Claim('claim-test');
      const results = await Promise.all([mine.claim('claim-test', 200), theirs.claim('claim-test', 200)]);
      expect(results.sort()).toEqual([false, true]);
      expect(await mine.claim('claim-test', 200)).toBe(false);
      await expect.poll(() => redis.exists(key), { timeout: 5_000, interval: 50 }).toBe(0);
      expect(await theirs.claim('claim-test')).toBe(true);
      expect(await redis.pttl(key)).toBeGreaterThan(23 * 3600 * 1000);
    } finally {
      await other.quit();
    }
  });
});

describe('the payment memo', () => {
  it('is the one the offer named, bound into the transaction the wallet signed', async () => {
    const x402 = payments();
    const wallet = await fundedWallet(m, USDC);
    const offer = await x402.offer({ amount: USDC, wallet: wallet.address, resourceUrl: 'http://localhost/x' });
    const { payload } = await pay(wallet, offer);
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(String(payload.payload.transaction)));
    const text = new TextDecoder().decode(Uint8Array.from(tx.messageBytes));
    expect(text).toContain(String(offer.accepts[0]!.extra.memo));
    expect(String(offer.accepts[0]!.extra.memo)).toBe(x402Memo(wallet.address, String(offer.accepts[0]!.extra.memo).split(':').pop()!));
  });
});
