// Shared TypeBox pieces: the error envelope and the domain string formats.
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from './errors.ts';

export const Base58Address = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'base58 public key' });
export const Hex32 = Type.String({ pattern: '^[0-9a-f]{64}$', description: '32 bytes, lowercase hex' });
export const Base64 = Type.String({ description: 'base64' });
export const Timestamp = Type.String({ description: 'ISO 8601 timestamp' });
export const Amount = Type.Number({ description: 'decimal USDC amount (6 decimals at most)' });
/**
 * An integer read from a query string. Ajv's type coercion turns "1e309" into Infinity and lets it through
 * as an integer, so the bound is explicit.
 */
export const QueryInt = (options: { minimum: number; default?: number; description?: string }) =>
  Type.Integer({ maximum: Number.MAX_SAFE_INTEGER, ...options });

export const MAX_PAGE = 1000;
/** A page size; anything above MAX_PAGE is served as MAX_PAGE (see `pageSize`). */
export const PageLimit = Type.Optional(QueryInt({ minimum: 1, default: 100, description: `page size, at most ${MAX_PAGE} (larger asks get ${MAX_PAGE})` }));
export const pageSize = (limit: number | undefined): number => Math.min(limit ?? 100, MAX_PAGE);
/** Amounts are validated by the handler so that bad ones get INVALID_BET_AMOUNT, not a schema error. */
export const AmountInput = Type.Unknown({ description: 'positive USDC amount, a JSON number or a decimal string ("2.5"), at most 6 decimals' });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { description: 'Every failure' },
);

/** A 402: the error envelope with x402's `accepts` and `x402Version` at the top level (design §7). */
export const PaymentRequiredEnvelope = Type.Object(
  {
    error: ErrorEnvelope.properties.error,
    accepts: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'x402 payment requirements; pay accepts[0]' }),
    x402Version: Type.Integer(),
    resource: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: 'Payment required or refused: resend with a fresh payment-signature for accepts[0]' },
);

/** Response map with the error envelope on every listed error status. */
export function responses<T extends Record<number, TSchema>>(ok: T, errors: number[] = [400, 401, 404, 429, 500]) {
  const map: Record<number, TSchema> = { ...ok };
  for (const status of errors) map[status] = ErrorEnvelope;
  return map;
}
