// x402 top-ups of the arcade balance, in one place for every caller (POST /api/protocol/v1/player/x402-deposit and the
// MCP `top_up` tool): the 402 offer, then verify, claim once, settle, and credit through the indexer's own path.
//
// The credit is the settled transaction's item under the crediting rules (funding/x402-crediting.ts), keyed by its
// signature and instruction index, so this code and the indexer never both credit it: a crash between settle and
// credit loses nothing, the indexer finds the transfer on the vault and credits it once.
import type { Signature } from '@solana/kit';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { PfwsError } from '../protocol/errors.ts';
import { AmountError, formatMicro, microToNumber, parseAmount } from '../protocol/money.ts';
import type { LedgerStore } from '../store/ledger.ts';
import type { PaymentStore } from '../store/payments.ts';
import { applySignature, type TailDeps } from '../funding/tail.ts';
import { X402Error, type X402Payments } from './x402.ts';
import type { FeePayerWatch } from './fee-payer.ts';
import type { Address } from '../protocol/address.ts';

/** The body of a 402: the REST envelope with `accepts` and `x402Version` at the top level (and the resource offered). */
export interface X402Offer {
  error: { code: 'X402_PAYMENT_REQUIRED'; message: string };
  accepts: PaymentRequirements[];
  x402Version: number;
  resource: { url: string; description?: string; mimeType?: string };
}

export interface TopUpResult {
  payment: { id: string; amount: number };
  /** The arcade balance after the credit. */
  balance: number;
}

export interface TopUpDeps {
  x402: X402Payments;
  payments: Pick<PaymentStore, 'claim'>;
  /** The indexer's path: the settled transaction is classified and applied exactly as the indexer would. */
  tail: TailDeps;
  ledger: Pick<LedgerStore, 'player'>;
  /** The URL the offer names as its resource. */
  resourceUrl: string;
  /** The smallest top-up, micro-USDC (MIN_TOP_UP_USDC): each one costs the fee payer a transaction fee. */
  minTopUp: bigint;
  /** The embedded facilitator's fee payer, read after each settlement so a low balance is logged as it happens. */
  feePayer?: Pick<FeePayerWatch, 'read'> | null;
  /**
   * How long to wait for the settled transaction to be readable at the ledger's commitment before answering
   * `settlement_pending` (the indexer then credits it).
   * @defaultValue 60000
   */
  creditWaitMs?: number;
}

const REQUIRED_MESSAGE = 'Payment required: build an x402 payment for accepts[0] and resend with the payment-signature header';

/**
 * A top-up amount: positive, at most 6 decimals, as micro-USDC.
 * @throws {PfwsError} INVALID_BET_AMOUNT
 */
export function parseTopUpAmount(value: unknown): bigint {
  try {
    return parseAmount(value);
  } catch (err) {
    if (err instanceof AmountError) throw new PfwsError('INVALID_BET_AMOUNT', `amount: ${err.message}`);
    throw err;
  }
}

/** The `PAYMENT-REQUIRED` header value of an offer (base64 JSON of x402's PaymentRequired), which stock x402 HTTP clients read. */
export function paymentRequiredHeader(offer: X402Offer): string {
  return encodePaymentRequiredHeader({ x402Version: offer.x402Version, error: offer.error.message, resource: offer.resource, accepts: offer.accepts });
}

/** The 402 fields and headers an offer adds to an error envelope. */
function offerExtras(offer: X402Offer) {
  return {
    fields: { accepts: offer.accepts, x402Version: offer.x402Version, resource: offer.resource },
    headers: { 'PAYMENT-REQUIRED': paymentRequiredHeader(offer), 'Cache-Control': 'no-store' },
  };
}

/** X402_PAYMENT_REQUIRED (402) carrying the offer: what a request without a payment gets. */
export function paymentRequiredError(offer: X402Offer): PfwsError {
  return new PfwsError('X402_PAYMENT_REQUIRED', offer.error.message, undefined, { extras: offerExtras(offer) });
}

const CONFIG_MESSAGE = 'x402 payments are unavailable: the server is misconfigured';

export class TopUps {
  constructor(readonly deps: TopUpDeps) {}

  /** @throws {PfwsError} INVALID_BET_AMOUNT when not positive, or below the minimum (`details.minimum`, USDC) */
  #checkAmount(amountMicro: bigint): void {
    if (amountMicro <= 0n) throw new PfwsError('INVALID_BET_AMOUNT', 'amount must be positive');
    const { minTopUp } = this.deps;
    if (amountMicro < minTopUp) {
      throw new PfwsError('INVALID_BET_AMOUNT', `amount must be at least ${formatMicro(minTopUp)} USDC (the smallest x402 top-up)`, {
        minimum: microToNumber(minTopUp),
      });
    }
  }

  /**
   * The payment a top-up of `amountMicro` by `wallet` needs: the 402 body. Every offer carries a fresh memo nonce.
   * @throws {PfwsError} INVALID_BET_AMOUNT (not positive, or below the minimum), X402_CONFIG_ERROR
   */
  async offer(wallet: Address, amountMicro: bigint): Promise<X402Offer> {
    this.#checkAmount(amountMicro);
    try {
      const offer = await this.deps.x402.offer({ amount: amountMicro, wallet, resourceUrl: this.deps.resourceUrl });
      return {
        error: { code: 'X402_PAYMENT_REQUIRED', message: REQUIRED_MESSAGE },
        accepts: offer.accepts,
        x402Version: offer.x402Version,
        resource: offer.resource,
      };
    } catch (err) {
      if (err instanceof X402Error) throw new PfwsError('X402_CONFIG_ERROR', CONFIG_MESSAGE, { reason: err.reason }, { cause: err });
      throw err;
    }
  }

  /**
   * Verifies `paymentHeader` (the `payment-signature` header, or the payload as JSON) against a top-up of
   * `amountMicro` by `wallet`, claims it once across every API instance, settles it on-chain and credits it.
   * @throws {PfwsError} INVALID_BET_AMOUNT (also below the minimum, before any payment is read); X402_PAYMENT_REQUIRED (no payment); X402_PAYMENT_VERIFICATION_FAILED and
   *   X402_PAYMENT_SETTLEMENT_FAILED (402, with a fresh offer at the top level); X402_PAYER_MISMATCH (403);
   *   X402_CONFIG_ERROR (500). Nothing is credited on any of them, except `settlement_pending`: the money is on-chain
   *   (`details.transaction`) and the indexer credits it, so the client must not pay again.
   */
  async pay(wallet: Address, amountMicro: bigint, paymentHeader: string): Promise<TopUpResult> {
    this.#checkAmount(amountMicro);
    if (paymentHeader.trim() === '') throw paymentRequiredError(await this.offer(wallet, amountMicro));
    let signature: string;
    try {
      ({ signature } = await this.deps.x402.settle({
        payment: paymentHeader,
        amount: amountMicro,
        wallet,
        claim: (fingerprint) => this.deps.payments.claim(fingerprint),
      }));
    } catch (err) {
      if (err instanceof X402Error) {
        if (err.code === 'X402_PAYMENT_SETTLEMENT_FAILED') this.#feePaid();
        throw await this.#refusal(err, wallet, amountMicro);
      }
      throw err;
    }
    this.#feePaid();
    const credited = await this.#credit(signature, wallet, amountMicro);
    if (!credited) {
      throw await this.#refusal(
        new X402Error('X402_PAYMENT_SETTLEMENT_FAILED', 'settlement_pending', 'the payment was settled but is not yet final; it will be credited', {
          transaction: signature,
        }),
        wallet,
        amountMicro,
      );
    }
    const { balance } = await this.deps.ledger.player(wallet);
    return { payment: { id: signature, amount: microToNumber(amountMicro) }, balance: microToNumber(balance) };
  }

  /** A settlement was sent, so the fee payer paid a fee: reading its balance logs one that went low. */
  #feePaid(): void {
    this.deps.feePayer?.read().catch(() => {});
  }

  /** Applies the settled transaction once it is readable; false when it did not become readable in time. */
  async #credit(signature: string, wallet: Address, amount: bigint): Promise<boolean> {
    const deadline = Date.now() + (this.deps.creditWaitMs ?? 60_000);
    for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
      const result = await applySignature(this.deps.tail, signature as Signature);
      if (result) {
        const ours = result.items.some((i) => i.kind === 'x402-deposit' && i.wallet === wallet && i.amount === amount);
        if (!ours) throw new Error(`settled x402 transaction ${signature} holds no x402 deposit of ${amount} for ${wallet}`);
        return true;
      }
      if (Date.now() + delay > deadline) return false;
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** The client-facing error of a refused payment; a 402 carries a fresh offer so the client can pay again. */
  async #refusal(err: X402Error, wallet: Address, amount: bigint): Promise<PfwsError> {
    const details = { reason: err.reason, ...err.details };
    if (err.code === 'X402_CONFIG_ERROR') return new PfwsError('X402_CONFIG_ERROR', CONFIG_MESSAGE, { reason: err.reason }, { cause: err });
    if (err.code === 'X402_PAYER_MISMATCH') return new PfwsError(err.code, err.message, details, { cause: err });
    const offer = await this.offer(wallet, amount).catch(() => null);
    return new PfwsError(err.code, err.message, details, { cause: err, ...(offer ? { extras: offerExtras(offer) } : {}) });
  }
}
