/**
 * The x402 top-up an agent's `top_up` tool uses, as an interface: `payments/top-up.ts` (`TopUps`, built for the
 * x402-deposit route) implements it. Until that is wired, {@link offerOnlyTopUps} makes the 402 offer from
 * payments/x402.ts and refuses paid calls, saying so.
 * @module
 */
import { PfwsError } from '../protocol/errors.ts';
import type { X402Payments } from '../payments/x402.ts';

/** The 402 REST envelope: `{ error: { code: 'X402_PAYMENT_REQUIRED', message }, accepts, x402Version }`. */
export interface X402Offer {
  error: { code: 'X402_PAYMENT_REQUIRED'; message: string };
  accepts: unknown[];
  x402Version: number;
  [field: string]: unknown;
}

export interface TopUps {
  /** The payment a top-up of `amountMicro` by `wallet` needs. */
  offer(wallet: string, amountMicro: bigint): Promise<X402Offer>;
  /**
   * Verifies, settles and credits one x402 payment (the `payment-signature` header value) exactly once.
   * @throws {PfwsError} X402_* codes
   */
  pay(wallet: string, amountMicro: bigint, paymentHeader: string): Promise<{ payment: { id: string; amount: number }; balance: number }>;
}

/**
 * Offers from payments/x402.ts; the paid path is not wired in this build (the crediting route lands with
 * payments/top-up.ts), so a payment is refused before it is used: nothing is charged.
 */
export function offerOnlyTopUps(x402: () => Promise<X402Payments>, resourceUrl: string): TopUps {
  return {
    async offer(wallet, amountMicro) {
      const offer = await (await x402()).offer({ amount: amountMicro, wallet, resourceUrl });
      return {
        error: { code: 'X402_PAYMENT_REQUIRED', message: 'Payment required: pay accepts[0] with x402 and call top_up again with the payment' },
        accepts: offer.accepts,
        x402Version: offer.x402Version,
        resource: offer.resource,
      };
    },
    async pay() {
      throw new PfwsError(
        'X402_CONFIG_ERROR',
        'x402 top-ups are not wired in this build yet: the payment was not used and nothing was charged. Deposit through the wallet instead.',
      );
    },
  };
}
