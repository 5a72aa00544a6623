// x402 v2 top-ups (`exact` scheme on Solana) through @x402/core and @x402/svm: the 402 offer, then verify and settle.
//
// The transfer pays `amount` of the USDC mint into the vault: exact derives the destination as the ATA of `payTo`
// for the mint, so `payTo` is the keeper (the vault's owner), never the vault token account itself. The payer's
// transaction carries the memo `pfws:v1:x402:<wallet>:<nonce>` (requirements `extra.memo`, which the facilitator
// enforces), so the chain alone says whose top-up it was and the indexer can credit it after a crash.
import { createHash, randomBytes } from 'node:crypto';
import { getBase64Encoder, getTransactionDecoder, type KeyPairSigner } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from '@x402/core/http';
import { parsePaymentPayload } from '@x402/core/schemas';
import { HTTPFacilitatorClient, x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import {
  SettleError,
  VerifyError,
  type Network,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type SupportedResponse,
} from '@x402/core/types';
import { SOLANA_DEVNET_CAIP2, SOLANA_MAINNET_CAIP2, SOLANA_TESTNET_CAIP2, toFacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme as ExactSvmFacilitatorScheme } from '@x402/svm/exact/facilitator';
import { ExactSvmScheme as ExactSvmServerScheme } from '@x402/svm/exact/server';
import { parseMemo, x402Memo } from '../protocol/memo.ts';
import { budgetExcess, computeBudgetOf, type ComputeBudgetLimits } from './compute-budget.ts';

export const X402_VERSION = 2;
const SCHEME = 'exact';
/** A payment payload is a Solana transaction (≤ 1232 bytes) wrapped in JSON and base64: far below this. */
const MAX_PAYMENT_CHARS = 16_384;

export type Cluster = 'localnet' | 'devnet' | 'testnet' | 'mainnet-beta';

/**
 * The CAIP-2 id x402 knows the cluster by. @x402/svm 2.27 accepts only mainnet, devnet and testnet ids, so localnet
 * presents itself as devnet, with the RPC URL pointing at localnet and the asset set to the dev USDC mint (design §7).
 */
export function x402NetworkOf(cluster: Cluster): Network {
  if (cluster === 'mainnet-beta') return SOLANA_MAINNET_CAIP2;
  if (cluster === 'testnet') return SOLANA_TESTNET_CAIP2;
  return SOLANA_DEVNET_CAIP2;
}

export type X402ErrorCode = 'X402_PAYMENT_VERIFICATION_FAILED' | 'X402_PAYMENT_SETTLEMENT_FAILED' | 'X402_PAYER_MISMATCH' | 'X402_CONFIG_ERROR';

/** Stable machine-readable reasons, for `details.reason`. */
export type X402Reason =
  | 'malformed_payload'
  | 'unsupported_payment'
  | 'amount_mismatch'
  | 'requirements_mismatch'
  | 'memo_mismatch'
  | 'verify_rejected'
  | 'duplicate_payment'
  | 'facilitator_error'
  | 'settle_rejected'
  | 'settlement_pending'
  | 'payer_mismatch'
  | 'facilitator_unavailable'
  | 'facilitator_unsupported'
  | 'fee_payer_unavailable'
  | 'compute_budget_exceeded';

const STATUS: Record<X402ErrorCode, number> = {
  X402_PAYMENT_VERIFICATION_FAILED: 402,
  X402_PAYMENT_SETTLEMENT_FAILED: 402,
  X402_PAYER_MISMATCH: 403,
  X402_CONFIG_ERROR: 500,
};

/** A refused or failed payment. Nothing was credited; only `settlement_pending` may still land (and is then credited by the indexer). */
export class X402Error extends Error {
  override readonly name = 'X402Error';
  readonly status: number;

  constructor(
    readonly code: X402ErrorCode,
    readonly reason: X402Reason,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = STATUS[code];
  }
}

const verificationFailed = (reason: X402Reason, message: string, details?: Record<string, unknown>, cause?: unknown) =>
  new X402Error('X402_PAYMENT_VERIFICATION_FAILED', reason, message, details, { cause });
const configError = (reason: X402Reason, message: string, cause?: unknown) => new X402Error('X402_CONFIG_ERROR', reason, message, {}, { cause });

/**
 * An in-process facilitator (@x402/core's x402Facilitator with @x402/svm's exact facilitator scheme) that verifies
 * against, and settles through, `rpcUrl`, paying fees with `feePayer` (the `x402` operator key, SOL only), within the
 * same compute budget as {@link X402Payments} checks first (the stock client asks for 20,000 units at 1 micro-lamport).
 */
export function embeddedFacilitator(options: {
  network: Network;
  rpcUrl: string;
  feePayer: KeyPairSigner;
  computeBudget: ComputeBudgetLimits;
}): FacilitatorClient {
  const facilitator = new x402Facilitator();
  const signer = toFacilitatorSvmSigner(options.feePayer, { defaultRpcUrl: options.rpcUrl });
  const limits = {
    maxComputeUnits: options.computeBudget.maxUnitLimit,
    maxPriorityFeeMicroLamports: Number(options.computeBudget.maxUnitPriceMicroLamports),
    maxRequiredSignatures: 2,
  };
  facilitator.register(options.network, new ExactSvmFacilitatorScheme(signer, undefined, limits));
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    // The facilitator lists networks as plain strings; they are the CAIP-2 ids registered above.
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

export interface X402Options {
  network: Network;
  /** The USDC mint (the dev mint on localnet). */
  usdcMint: string;
  /** The keeper key, owner of the vault: exact pays into the ATA of `payTo`. */
  payTo: string;
  /**
   * Builds the facilitator client on first use: {@link embeddedFacilitator}, or an `HTTPFacilitatorClient` for
   * `X402_FACILITATOR_URL` (see {@link facilitatorFromConfig}). A throw is a configuration error.
   */
  facilitator: () => FacilitatorClient;
  /**
   * The most a payment's transaction may ask the fee payer for (X402_MAX_CU_LIMIT, X402_MAX_CU_PRICE_MICROLAMPORTS):
   * checked here, before any facilitator (embedded or remote) verifies, signs or sends it.
   */
  computeBudget: ComputeBudgetLimits;
  /** @defaultValue 60 */
  maxTimeoutSeconds?: number;
}

/** The facilitator the configuration names: remote when `url` is set, otherwise embedded against `rpcUrl`. */
export function facilitatorFromConfig(config: {
  network: Network;
  url?: string | undefined;
  rpcUrl: string;
  /** Read lazily: on hosts without `x402.json` only the remote facilitator works. */
  feePayer: () => KeyPairSigner;
  computeBudget: ComputeBudgetLimits;
  timeoutMs?: number;
}): () => FacilitatorClient {
  return () =>
    config.url
      ? new HTTPFacilitatorClient({ url: config.url, timeoutMs: config.timeoutMs ?? 30_000 })
      : embeddedFacilitator({ network: config.network, rpcUrl: config.rpcUrl, feePayer: config.feePayer(), computeBudget: config.computeBudget });
}

/** What a 402 response carries: `x402Version` and `accepts` at the top level, and the same in the `PAYMENT-REQUIRED` header. */
export interface PaymentOffer {
  x402Version: number;
  accepts: PaymentRequirements[];
  resource: PaymentRequired['resource'];
  /** base64 JSON of the PaymentRequired object, for the `PAYMENT-REQUIRED` header that stock x402 HTTP clients read. */
  header: string;
}

export interface SettledPayment {
  /** The settled transaction's signature: the payment id, and the key its credit is applied under. */
  signature: string;
  payer: string;
  amount: bigint;
  network: Network;
  /** sha256 of the transaction message, hex: what the duplicate guard claimed. */
  fingerprint: string;
}

export interface SettleInput {
  /** The `payment-signature` header (base64 JSON, as x402 clients send it), raw JSON, or an already parsed payload. */
  payment: unknown;
  /** The requested top-up, micro-USDC. */
  amount: bigint;
  /** The session wallet: the only payer accepted. */
  wallet: string;
  /**
   * Claims the payment once across processes (a Redis `SET NX`, see `claimPayment`), called after verify and before
   * settle; false means it was seen before.
   */
  claim: (fingerprint: string) => Promise<boolean>;
}

/** The x402 side of `POST /api/protocol/v1/player/x402-deposit` (and MCP `top_up`): offers and settles payments. */
export class X402Payments {
  #server: Promise<x402ResourceServer> | null = null;

  constructor(readonly options: X402Options) {}

  /** The resource server, initialized against the facilitator once; a failure is retried on the next call. */
  #ready(): Promise<x402ResourceServer> {
    this.#server ??= (async () => {
      let facilitator: FacilitatorClient;
      try {
        facilitator = this.options.facilitator();
      } catch (err) {
        throw configError('fee_payer_unavailable', 'the x402 facilitator cannot be built (is the x402 fee payer key on this host?)', err);
      }
      const server = new x402ResourceServer(facilitator);
      server.register(this.options.network, new ExactSvmServerScheme());
      try {
        await server.initialize();
      } catch (err) {
        throw configError('facilitator_unavailable', 'the x402 facilitator did not answer', err);
      }
      if (!server.getSupportedKind(X402_VERSION, this.options.network, SCHEME)) {
        throw configError('facilitator_unsupported', `the x402 facilitator does not support ${SCHEME} on ${this.options.network}`);
      }
      return server;
    })();
    this.#server.catch(() => {
      this.#server = null;
    });
    return this.#server;
  }

  async #requirements(server: x402ResourceServer, amount: bigint, memo: string): Promise<PaymentRequirements> {
    if (amount <= 0n) throw new RangeError('an x402 amount must be positive');
    try {
      const [requirements] = await server.buildPaymentRequirements({
        scheme: SCHEME,
        network: this.options.network,
        price: { amount: amount.toString(), asset: this.options.usdcMint },
        payTo: this.options.payTo,
        maxTimeoutSeconds: this.options.maxTimeoutSeconds ?? 60,
        extra: { memo },
      });
      if (!requirements || typeof requirements.extra?.feePayer !== 'string') throw new Error('the facilitator named no fee payer');
      return requirements;
    } catch (err) {
      throw configError('facilitator_unsupported', 'x402 payment requirements cannot be built', err);
    }
  }

  /**
   * Refuses a payment whose transaction would make the fee payer pay more priority fee than configured, before
   * anything is verified, signed or sent.
   * @throws {X402Error} X402_PAYMENT_VERIFICATION_FAILED `compute_budget_exceeded` or `malformed_payload`
   */
  #checkComputeBudget(payload: PaymentPayload): void {
    const limits = this.options.computeBudget;
    let budget: ReturnType<typeof computeBudgetOf>;
    try {
      budget = computeBudgetOf((payload.payload as { transaction: string }).transaction);
    } catch (err) {
      throw verificationFailed('malformed_payload', 'the payment transaction has an undecodable compute budget instruction', {}, err);
    }
    const excess = budgetExcess(budget, limits);
    if (!excess) return;
    throw verificationFailed('compute_budget_exceeded', `the payment asks the fee payer for too much: ${excess}`, {
      computeUnitLimit: budget.unitLimit,
      computeUnitPriceMicroLamports: budget.unitPriceMicroLamports?.toString() ?? null,
      maxComputeUnitLimit: limits.maxUnitLimit,
      maxComputeUnitPriceMicroLamports: limits.maxUnitPriceMicroLamports.toString(),
    });
  }

  /**
   * The payment a top-up of `amount` micro-USDC by `wallet` must make, for the 402 response. Each offer carries a
   * fresh memo nonce, so two top-ups of the same amount are two different transactions.
   * @throws {X402Error} X402_CONFIG_ERROR when the facilitator is unreachable or does not support the network
   */
  async offer(input: { amount: bigint; wallet: string; resourceUrl: string; description?: string; error?: string }): Promise<PaymentOffer> {
    const server = await this.#ready();
    const requirements = await this.#requirements(server, input.amount, x402Memo(input.wallet, randomBytes(16).toString('hex')));
    const resource = { url: input.resourceUrl, description: input.description ?? 'Top up the arcade balance', mimeType: 'application/json' };
    const required = await server.createPaymentRequiredResponse([requirements], resource, input.error ?? 'Payment required');
    return { x402Version: required.x402Version, accepts: required.accepts, resource: required.resource, header: encodePaymentRequiredHeader(required) };
  }

  /**
   * Verifies `payment` against a top-up of `amount` by `wallet`, claims it, and settles it on-chain.
   * @throws {X402Error} X402_PAYMENT_VERIFICATION_FAILED (malformed, asking the fee payer for more than the compute
   *   budget, wrong amount or requirements, rejected by the facilitator, or seen before), X402_PAYER_MISMATCH,
   *   X402_PAYMENT_SETTLEMENT_FAILED, X402_CONFIG_ERROR
   */
  async settle(input: SettleInput): Promise<SettledPayment> {
    const payload = decodePayment(input.payment);
    if (payload.x402Version !== X402_VERSION) throw verificationFailed('unsupported_payment', `only x402 version ${X402_VERSION} is accepted`);
    const fingerprint = transactionFingerprint(payload);
    this.#checkComputeBudget(payload);
    const accepted = payload.accepted;
    if (accepted.scheme !== SCHEME || accepted.network !== this.options.network) {
      throw verificationFailed('unsupported_payment', `only the ${SCHEME} scheme on ${this.options.network} is accepted`);
    }
    if (accepted.amount !== input.amount.toString()) {
      throw verificationFailed('amount_mismatch', 'the payment is not for the requested amount', { paid: accepted.amount, requested: input.amount.toString() });
    }
    const memo = typeof accepted.extra?.memo === 'string' ? parseMemo(accepted.extra.memo) : null;
    if (memo?.kind !== 'x402') throw verificationFailed('requirements_mismatch', 'the payment was not built from this service’s offer');

    const server = await this.#ready();
    const requirements = await this.#requirements(server, input.amount, x402Memo(memo.wallet, memo.nonceHex));
    if (!server.findMatchingRequirements([requirements], payload)) {
      throw verificationFailed('requirements_mismatch', 'the payment does not match this service’s offer (asset, recipient or fee payer)');
    }

    let verified: { isValid: boolean; invalidReason?: string; payer?: string };
    try {
      verified = await server.verifyPayment(payload, requirements);
    } catch (err) {
      if (err instanceof VerifyError) verified = { isValid: false, invalidReason: err.invalidReason, payer: err.payer };
      else throw verificationFailed('facilitator_error', 'the x402 facilitator failed to verify the payment', {}, err);
    }
    if (!verified.isValid) {
      const facilitatorReason = verified.invalidReason ?? 'unknown';
      const reason = facilitatorReason.endsWith('_amount_mismatch') ? 'amount_mismatch' : 'verify_rejected';
      throw verificationFailed(reason, 'the x402 facilitator rejected the payment', { facilitatorReason });
    }
    const payer = verified.payer ?? '';
    if (payer !== input.wallet) {
      throw new X402Error('X402_PAYER_MISMATCH', 'payer_mismatch', 'the payment is not from the session wallet', { payer });
    }
    // The memo must name the payer, or the chain would record the transfer as unattributed.
    if (memo.wallet !== payer) throw verificationFailed('memo_mismatch', 'the payment names another wallet');
    if (!(await input.claim(fingerprint))) throw verificationFailed('duplicate_payment', 'this payment was already used; mint a fresh one');

    let settled: { success: boolean; errorReason?: string; transaction?: string };
    try {
      settled = await server.settlePayment(payload, requirements);
    } catch (err) {
      if (err instanceof SettleError) settled = { success: false, errorReason: err.errorReason, transaction: err.transaction ?? '' };
      else throw new X402Error('X402_PAYMENT_SETTLEMENT_FAILED', 'facilitator_error', 'the x402 facilitator failed to settle the payment', {}, { cause: err });
    }
    if (!settled.success || !settled.transaction) {
      const facilitatorReason = settled.errorReason ?? 'unknown';
      const pending = facilitatorReason === 'settlement_pending';
      throw new X402Error('X402_PAYMENT_SETTLEMENT_FAILED', pending ? 'settlement_pending' : 'settle_rejected', 'the payment could not be settled', {
        facilitatorReason,
        ...(settled.transaction ? { transaction: settled.transaction } : {}),
      });
    }
    return { signature: settled.transaction, payer, amount: input.amount, network: this.options.network, fingerprint };
  }
}

/**
 * Parses a payment: the base64 `payment-signature` header, raw JSON, or an object (MCP `top_up { payment }`).
 * @throws {X402Error} X402_PAYMENT_VERIFICATION_FAILED `malformed_payload`
 */
export function decodePayment(payment: unknown): PaymentPayload {
  let value: unknown = payment;
  try {
    if (typeof payment === 'string') {
      const text = payment.trim();
      if (text.length === 0 || text.length > MAX_PAYMENT_CHARS) throw new Error('empty or oversized payment');
      value = text.startsWith('{') ? JSON.parse(text) : decodePaymentSignatureHeader(text);
    }
  } catch (err) {
    throw verificationFailed('malformed_payload', 'the payment is not a base64 x402 payment payload', {}, err);
  }
  const parsed = parsePaymentPayload(value);
  if (!parsed.success) throw verificationFailed('malformed_payload', 'the payment is not an x402 payment payload');
  return parsed.data as PaymentPayload;
}

/**
 * sha256 (hex) of the payment's transaction message: the same transaction is the same payment however its payload is
 * wrapped, and whatever sits in the fee payer's empty signature slot.
 * @throws {X402Error} X402_PAYMENT_VERIFICATION_FAILED `malformed_payload`
 */
export function transactionFingerprint(payload: PaymentPayload): string {
  const transaction = (payload.payload as { transaction?: unknown }).transaction;
  try {
    if (typeof transaction !== 'string') throw new Error('no transaction');
    const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
    return createHash('sha256').update(Uint8Array.from(decoded.messageBytes)).digest('hex');
  } catch (err) {
    throw verificationFailed('malformed_payload', 'the payment carries no decodable Solana transaction', {}, err);
  }
}
