// x402 top-ups end to end on localnet, as a user with a stock @x402 client: the 402 offer, the paid request, and every
// failure path with the balance unchanged; the same payload sent to two API instances at once (one credit); and a
// crash between settle and credit (the indexer credits it, once).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { address, createSolanaRpc, type KeyPairSigner } from '@solana/kit';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { x402Client } from '@x402/core/client';
import { x402HTTPClient } from '@x402/core/http';
import { ExactSvmScheme as ExactSvmClientScheme } from '@x402/svm/exact/client';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { expectConserved, keeperAtRest } from '../helpers/conservation.ts';
import { apiDepsOf, createWiring } from '../../wiring.ts';
import { buildApp } from '../../api/app.ts';
import { createLogger } from '../../config/logger.ts';
import { ataOf } from '../../chain/genesis.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { facilitatorFromConfig, X402Payments, x402NetworkOf } from '../../payments/x402.ts';
import { paymentRequiredHeader, TopUps } from '../../payments/top-up.ts';

class Crash extends Error {}

const network = x402NetworkOf('localnet');
const USDC = 1_000_000n;
let svc: TestService;
const players: Player[] = [];
const apps: FastifyInstance[] = [];

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

async function topUp(p: Player, amount: unknown, payment?: string, base = svc.api): Promise<Reply> {
  const res = await fetch(`${base}/protocol/v1/player/x402-deposit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}`, ...(payment ? { 'payment-signature': payment } : {}) },
    body: JSON.stringify(amount === undefined ? {} : { amount }),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** What a stock x402 HTTP client does with a 402: read PAYMENT-REQUIRED, pay accepts[0], encode PAYMENT-SIGNATURE. */
async function pay(signer: KeyPairSigner, offer: Reply): Promise<string> {
  const inner = new x402Client().register(network, new ExactSvmClientScheme(signer, { rpcUrl: svc.rpcUrl }));
  // Our dev USDC is not one of the client's default assets: it must be allowed explicitly.
  inner.setSpendControls({ allowedAssets: [{ network, asset: svc.wiring.setup.usdcMint }] });
  const client = new x402HTTPClient(inner);
  const required = client.getPaymentRequiredResponse((name) => offer.headers.get(name), offer.body);
  const header = client.encodePaymentSignatureHeader(await client.createPaymentPayload(required))['PAYMENT-SIGNATURE'];
  if (!header) throw new Error('the client built no PAYMENT-SIGNATURE header');
  return header;
}

/** A wallet with dev USDC (and no SOL: the x402 fee payer pays), signed in, never set up. */
async function payer(usdc = 20): Promise<Player> {
  const p = new Player(svc.api, svc.rpcUrl);
  await p.init();
  await p.faucet(usdc, 0);
  await p.login();
  players.push(p);
  return p;
}

async function balanceOf(p: Player): Promise<number> {
  return (await p.get('/protocol/v1/player/status')).body.balance;
}

async function usdcOf(wallet: string): Promise<bigint> {
  const rpc = createSolanaRpc(svc.rpcUrl);
  return BigInt((await rpc.getTokenAccountBalance(await ataOf(address(wallet), svc.wiring.setup.usdcMint)).send()).value.amount);
}

/** The API with other x402 parts, served on a port: the routes and error handler are the real ones. */
async function appWith(topUps: TopUps): Promise<string> {
  const app = await buildApp({ ...apiDepsOf(svc.wiring), topUps });
  apps.push(app);
  return `${await app.listen({ port: 0, host: '127.0.0.1' })}/api`;
}

function expectOffer(reply: Reply, amount: bigint, wallet: string) {
  expect(reply.body.x402Version).toBe(2);
  expect(reply.body.accepts).toHaveLength(1);
  expect(reply.body.accepts[0]).toMatchObject({
    scheme: 'exact',
    network,
    amount: amount.toString(),
    asset: svc.wiring.setup.usdcMint,
    payTo: svc.wiring.setup.vaultAuthority,
    extra: { memo: expect.stringMatching(new RegExp(`^pfws:v1:x402:${wallet}:[0-9a-f]{32}$`)) },
  });
  expect(reply.headers.get('payment-required')).toBeTruthy();
}

beforeAll(async () => {
  svc = await startTestService();
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await svc?.cleanup();
});

afterEach(async () => {
  if (!svc) return;
  await keeperAtRest(svc);
  await expectConserved(svc, players);
});

describe('an x402 top-up', () => {
  it('answers 402 with the offer, then credits the balance once for the paid request', async () => {
    const p = await payer(20);
    const offer = await topUp(p, 2.5);
    expect(offer.status).toBe(402);
    expect(offer.body.error).toMatchObject({ code: 'X402_PAYMENT_REQUIRED' });
    expectOffer(offer, 2_500_000n, p.address);
    expect(offer.headers.get('cache-control')).toBe('no-store');

    const vaultBefore = (await expectConserved(svc, players)).vault;
    const payment = await pay(p.signer, offer);
    const paid = await topUp(p, 2.5, payment);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toEqual({ payment: { id: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/), amount: 2.5 }, balance: 2.5 });
    const status = (await p.get('/protocol/v1/player/status')).body;
    expect(status).toMatchObject({ balance: 2.5, totals: { deposited: 2.5 } });
    expect(await usdcOf(p.address)).toBe(20n * USDC - 2_500_000n);
    expect((await expectConserved(svc, players)).vault).toBe(vaultBefore + 2_500_000n);

    // The journal says it came by x402, under the payment id, and names the alias only.
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?limit=1000`)).body.events as { type: string; data: any }[];
    const credited = events.filter((e) => e.type === 'deposit_credited' && e.data.paymentId === paid.body.payment.id);
    expect(credited).toEqual([expect.objectContaining({ data: { player: status.alias, amount: '2500000', source: 'x402', paymentId: paid.body.payment.id } })]);

    // The same payload again: refused, with a fresh offer to pay instead; nothing more is credited.
    const replay = await topUp(p, 2.5, payment);
    expect(replay.status).toBe(402);
    expect(replay.body.error).toMatchObject({ code: 'X402_PAYMENT_VERIFICATION_FAILED', details: { reason: 'duplicate_payment' } });
    expectOffer(replay, 2_500_000n, p.address);
    expect(replay.body.accepts[0].extra.memo).not.toBe(offer.body.accepts[0].extra.memo);
    // The indexer reads the same transfer: still one credit.
    await p.post('/protocol/v1/player/sync');
    await vi.waitFor(async () => expect(await svc.wiring.stores.indexer.checkpoint(svc.wiring.setup.vaultTokenAccount)).toBe(paid.body.payment.id), {
      timeout: 10_000,
      interval: 100,
    });
    expect(await balanceOf(p)).toBe(2.5);

    // A second, fresh payment credits again.
    const second = await topUp(p, 1, await pay(p.signer, await topUp(p, 1)));
    expect(second.body.balance).toBe(3.5);
  });

  it('refuses a payment for another amount, a payment by another wallet (403), and tampered or garbage payloads', async () => {
    const p = await payer(10);
    const other = await payer(10);

    const forOne = await pay(p.signer, await topUp(p, 1));
    const mismatch = await topUp(p, 2, forOne);
    expect([mismatch.status, mismatch.body.error.code, mismatch.body.error.details.reason]).toEqual([
      402,
      'X402_PAYMENT_VERIFICATION_FAILED',
      'amount_mismatch',
    ]);
    expectOffer(mismatch, 2n * USDC, p.address);

    // The other wallet pays its own offer, and the player sends that payment: the payer is not the session wallet.
    const foreign = await pay(other.signer, await topUp(other, 1));
    const notMine = await topUp(p, 1, foreign);
    expect([notMine.status, notMine.body.error.code]).toEqual([403, 'X402_PAYER_MISMATCH']);
    expect(notMine.body.error.details).toMatchObject({ reason: 'payer_mismatch', payer: other.address });
    expect(notMine.body.accepts).toBeUndefined();

    // One flipped bit in the wallet's signature: the facilitator's verify rejects it.
    const payload = JSON.parse(Buffer.from(forOne, 'base64').toString('utf8'));
    const bytes = Buffer.from(payload.payload.transaction, 'base64');
    bytes[1 + 64 + 5] = bytes[1 + 64 + 5]! ^ 1;
    payload.payload.transaction = bytes.toString('base64');
    const tampered = await topUp(p, 1, Buffer.from(JSON.stringify(payload)).toString('base64'));
    expect([tampered.status, tampered.body.error.code, tampered.body.error.details.reason]).toEqual([
      402,
      'X402_PAYMENT_VERIFICATION_FAILED',
      'verify_rejected',
    ]);
    expect(tampered.body.accepts).toHaveLength(1);
    for (const garbage of ['not a payment', Buffer.from('{"x402Version":2}').toString('base64')]) {
      const res = await topUp(p, 1, garbage);
      expect([res.status, res.body.error.code, res.body.error.details.reason]).toEqual([402, 'X402_PAYMENT_VERIFICATION_FAILED', 'malformed_payload']);
    }

    // None of that moved anything; the untouched payment still works once.
    expect([await balanceOf(p), await balanceOf(other)]).toEqual([0, 0]);
    expect([await usdcOf(p.address), await usdcOf(other.address)]).toEqual([10n * USDC, 10n * USDC]);
    expect((await topUp(p, 1, forOne)).body.balance).toBe(1);
  });

  it('refuses a bad amount (INVALID_BET_AMOUNT) before anything else, and a missing bearer (401)', async () => {
    const p = await payer(5);
    const payment = await pay(p.signer, await topUp(p, 1));
    for (const bad of [undefined, 0, -1, 'abc', 1.0000001, null, '', Number.POSITIVE_INFINITY, { amount: 1 }]) {
      for (const header of [undefined, payment]) {
        const res = await topUp(p, bad, header);
        expect([res.status, res.body.error?.code], JSON.stringify(bad)).toEqual([400, 'INVALID_BET_AMOUNT']);
      }
    }
    const anonymous = await http('POST', `${svc.api}/protocol/v1/player/x402-deposit`, { amount: 1 });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'WALLET_SESSION_REQUIRED']);
    expect(await balanceOf(p)).toBe(0);
    expect(await usdcOf(p.address)).toBe(5n * USDC);
  });

  it('refuses a top-up below MIN_TOP_UP_USDC with INVALID_BET_AMOUNT and details.minimum, paid or not, and nothing moves', async () => {
    const p = await payer(5);
    expect(svc.config.MIN_TOP_UP_USDC).toBe('1');
    const offer = await topUp(p, 1);
    const payment = await pay(p.signer, offer);
    const feePayerSol = async () => (await svc.wiring.rpc.getBalance(address(offer.body.accepts[0].extra.feePayer)).send()).value;
    const feePayer = await feePayerSol();
    for (const small of [0.000001, 0.5, 0.999999, '0.999999']) {
      for (const header of [undefined, payment]) {
        const res = await topUp(p, small, header);
        expect(res.status, String(small)).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'INVALID_BET_AMOUNT', details: { minimum: 1 } });
        expect(res.body.error.message).toMatch(/at least 1 USDC/);
        expect(res.body.accepts).toBeUndefined();
      }
    }
    expect(await feePayerSol()).toBe(feePayer);
    expect(await balanceOf(p)).toBe(0);
    expect(await usdcOf(p.address)).toBe(5n * USDC);
    // The minimum itself is a top-up like any other.
    const paid = await topUp(p, 1, payment);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await balanceOf(p)).toBe(1);
  });

  it("reports the fee payer's SOL in /metrics, with its alert threshold, and in /ready; a top-up spends from it", async () => {
    const p = await payer(5);
    const offer = await topUp(p, 1);
    const feePayer = address(offer.body.accepts[0].extra.feePayer);
    const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${svc.apiUrl}/metrics`)).text())?.[1]);
    const onChain = async () => Number((await svc.wiring.rpc.getBalance(feePayer, { commitment: 'confirmed' }).send()).value);
    const before = await metric('pfws_fee_payer_lamports');
    expect(before).toBe(await onChain());
    expect(await metric('pfws_fee_payer_min_lamports')).toBe(svc.config.FEE_PAYER_MIN_LAMPORTS);
    expect((await topUp(p, 1, await pay(p.signer, offer))).status).toBe(200);
    const after = await metric('pfws_fee_payer_lamports');
    expect(after).toBe(await onChain());
    expect(after).toBeLessThan(before);
    const ready = await http('GET', `${svc.apiUrl}/ready`);
    expect(ready.body.checks.x402FeePayer).toMatchObject({ status: 'ok' });
  });

  it('reports a settle failure after a passing verify as X402_PAYMENT_SETTLEMENT_FAILED, with nothing moved', async () => {
    const p = await payer(2);
    const sink = await payer(1);
    const { deps } = svc.wiring.api!.topUps;
    // Between verify and settle (at the claim), the wallet spends its USDC elsewhere.
    const draining = new TopUps({
      ...deps,
      payments: {
        claim: async (fingerprint) => {
          const [source, destination] = await Promise.all([
            ataOf(p.signer.address, svc.wiring.setup.usdcMint),
            ataOf(address(sink.address), svc.wiring.setup.usdcMint),
          ]);
          const mint = svc.wiring.setup.usdcMint;
          await sendAndConfirm(svc.wiring.rpc, p.signer, [
            getTransferCheckedInstruction({ source, mint, destination, authority: p.signer, amount: 2n * USDC, decimals: 6 }),
          ]);
          return deps.payments.claim(fingerprint);
        },
      },
    });
    const base = await appWith(draining);
    await p.faucet(0, 1);
    const payment = await pay(p.signer, await topUp(p, 2, undefined, base));
    const res = await topUp(p, 2, payment, base);
    expect([res.status, res.body.error.code, res.body.error.details.reason]).toEqual([402, 'X402_PAYMENT_SETTLEMENT_FAILED', 'settle_rejected']);
    expectOffer(res, 2n * USDC, p.address);
    expect(await balanceOf(p)).toBe(0);
    expect(await usdcOf(p.address)).toBe(0n);
  });

  it('reports a facilitator it cannot reach as X402_CONFIG_ERROR (500), without leaking the cause', async () => {
    const p = await payer(2);
    const payment = await pay(p.signer, await topUp(p, 1));
    const { deps } = svc.wiring.api!.topUps;
    const { computeBudget } = deps.x402.options;
    const unreachable = new X402Payments({
      network,
      usdcMint: svc.wiring.setup.usdcMint,
      payTo: svc.wiring.setup.vaultAuthority,
      computeBudget,
      facilitator: facilitatorFromConfig({
        network,
        url: 'http://127.0.0.1:9',
        rpcUrl: svc.rpcUrl,
        feePayer: () => svc.wiring.operator.ack.signer,
        timeoutMs: 2_000,
        computeBudget,
      }),
    });
    const base = await appWith(new TopUps({ ...deps, x402: unreachable }));
    for (const header of [undefined, payment]) {
      const res = await topUp(p, 1, header, base);
      expect([res.status, res.body.error.code]).toEqual([500, 'X402_CONFIG_ERROR']);
      expect(res.body.error.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    }
    expect(await balanceOf(p)).toBe(0);
  });
});

describe('the same payload at two API instances at once', () => {
  it('is settled and credited once', async () => {
    const second = await createWiring(svc.config, createLogger('silent'), svc.rpcUrl);
    const app = await buildApp(apiDepsOf(second));
    try {
      const base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api`;
      const p = await payer(10);
      const payment = await pay(p.signer, await topUp(p, 3));
      const results = await Promise.all([topUp(p, 3, payment), topUp(p, 3, payment, base)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 402]);
      const refused = results.find((r) => r.status === 402)!;
      expect(refused.body.error.details.reason).toBe('duplicate_payment');
      expect(await balanceOf(p)).toBe(3);
      expect(await usdcOf(p.address)).toBe(7n * USDC);
    } finally {
      await app.close();
      await second.close();
    }
  });
});

describe('a crash between settle and credit', () => {
  it('loses nothing: the indexer finds the settled transfer on-chain and credits it once', async () => {
    const p = await payer(10);
    const { deps } = svc.wiring.api!.topUps;
    // The API process dies right after the facilitator settled: it never credits.
    const crashing = new TopUps({
      ...deps,
      tail: {
        ...deps.tail,
        ledger: {
          applyChainItem: async () => {
            throw new Crash('after settle');
          },
        },
      },
    });
    // The MCP tool's path: the offer body, and the PAYMENT-REQUIRED header a stock client reads from it.
    const offer = await crashing.offer(p.address, 4n * USDC);
    const payment = await pay(p.signer, { status: 402, body: offer, headers: new Headers({ 'PAYMENT-REQUIRED': paymentRequiredHeader(offer) }) });
    await expect(crashing.pay(p.address, 4n * USDC, payment)).rejects.toThrow(Crash);
    expect(await usdcOf(p.address)).toBe(6n * USDC);

    await vi.waitFor(async () => expect(await balanceOf(p)).toBe(4), { timeout: 15_000, interval: 100 });
    // Sync and a late retry of the same payment change nothing more.
    await p.post('/protocol/v1/player/sync');
    const retry = await topUp(p, 4, payment);
    expect(retry.body.error.details.reason).toBe('duplicate_payment');
    expect(await balanceOf(p)).toBe(4);
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?limit=1000`)).body.events as { type: string; data: any }[];
    expect(events.filter((e) => e.type === 'deposit_credited' && e.data.source === 'x402' && e.data.amount === '4000000')).toHaveLength(1);
  });
});
