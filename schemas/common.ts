// Shared TypeBox pieces: the error envelope, the domain string formats, and how a permissive wire schema is documented.
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from './errors.ts';
import * as EX from './examples.ts';

/** The key under which a schema carries what the API document shows instead of it (see `documented`). */
export const DOCUMENTED = 'x-pfws-documented';

/**
 * A field whose wire schema stays permissive, documented as what it is. Requests: the handler checks the value
 * itself so a bad one gets its own code (a `wager` of `true` is INVALID_BET_AMOUNT, not a schema error). Responses:
 * an object built by the protocol code (a receipt, a bet-log entry) passes through the serializer unchanged, byte
 * for byte. `doc` is what the OpenAPI document shows; the tests hold real requests and responses to it.
 */
export const documented = <T extends TSchema>(wire: T, doc: TSchema): T => ({ ...wire, [DOCUMENTED]: doc }) as T;

/** A copy of a route schema as the document shows it: each documented field replaced by its documentation. */
export function forDocument<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(forDocument) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  const doc = node[DOCUMENTED] as Record<string, unknown> | undefined;
  if (doc) return forDocument({ ...doc, ...(node.description && !doc.description ? { description: node.description } : {}) }) as T;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, forDocument(v)])) as T;
}

export const Base58Address = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'base58 public key' });
export const Hex32 = Type.String({ pattern: '^[0-9a-f]{64}$', description: '32 bytes, lowercase hex' });
export const Base64 = Type.String({ description: 'base64' });
export const Timestamp = Type.String({ description: 'ISO 8601 timestamp' });
export const Amount = Type.Number({ description: 'decimal USDC amount (6 decimals at most)' });
/** A decimal string of micro-USDC (integer base units), as the pinned formats carry money. */
export const MicroString = Type.String({ pattern: '^(0|[1-9][0-9]{0,19})$', description: 'micro-USDC (1 USDC = 1000000), decimal string' });
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union(
    [schema, Type.Null()],
    description ? { description } : (schema as { description?: string }).description ? { description: (schema as { description?: string }).description } : {},
  );

/**
 * An integer read from a query string. Ajv's type coercion turns "1e309" into Infinity and lets it through
 * as an integer, so the bound is explicit.
 */
export const QueryInt = (options: { minimum: number; default?: number; description?: string; examples?: number[] }) =>
  Type.Integer({ maximum: Number.MAX_SAFE_INTEGER, ...options });

export const MAX_PAGE = 1000;
/** A page size; anything above MAX_PAGE is served as MAX_PAGE (see `pageSize`). */
export const PageLimit = Type.Optional(
  QueryInt({ minimum: 1, default: 100, description: `page size, at most ${MAX_PAGE} (larger asks get ${MAX_PAGE})`, examples: [100] }),
);
export const pageSize = (limit: number | undefined): number => Math.min(limit ?? 100, MAX_PAGE);

const DECIMAL = '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$';
/** Amounts are validated by the handler so that bad ones get INVALID_BET_AMOUNT, not a schema error. */
export const AmountInput = documented(
  Type.Unknown({ description: 'positive USDC amount, a JSON number or a decimal string ("2.5"), at most 6 decimals' }),
  Type.Union(
    [Type.Number({ exclusiveMinimum: 0, description: 'USDC as a number' }), Type.String({ pattern: DECIMAL, description: 'USDC as a decimal string' })],
    {
      description: 'positive USDC amount, a JSON number or a decimal string ("2.5"), at most 6 decimals; anything else is INVALID_BET_AMOUNT',
    },
  ),
);
/** A positive decimal quantity that is not USDC (LP shares: 6 decimals too); the handler checks it. */
export const PositiveDecimalInput = (description: string) =>
  documented(
    Type.Unknown({ description }),
    Type.Union([Type.Number({ exclusiveMinimum: 0, description: 'as a number' }), Type.String({ pattern: DECIMAL, description: 'as a decimal string' })], {
      description,
    }),
  );
/** Like AmountInput, but 0 is allowed (a setup that only authorizes a key; a faucet call for SOL alone). */
export const OptionalAmountInput = (description: string) =>
  documented(
    Type.Unknown({ description }),
    Type.Union([Type.Number({ minimum: 0, description: 'USDC as a number' }), Type.String({ pattern: DECIMAL, description: 'USDC as a decimal string' })], {
      description,
    }),
  );

/** What `details` may carry: flat facts about the failure. */
const DetailValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], { description: 'a fact about the failure' });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Union(
          ERROR_CODES.map((c) => Type.Literal(c)),
          {
            description:
              "machine-readable error code (the contract's codes, then INVALID_REQUEST, NOT_FOUND, RATE_LIMITED, INTERNAL, SERVICE_UNAVAILABLE and ours)",
          },
        ),
        message: Type.String({ description: 'what went wrong and what to do, for a person' }),
        details: Type.Optional(
          documented(
            Type.Record(Type.String(), Type.Unknown(), {
              description: 'machine-readable facts: `reason` for GAME_INPUT_REJECTED, the limit that applied, ...',
            }),
            Type.Object(
              { reason: Type.Optional(Type.String({ description: 'stable machine-readable reason, e.g. insufficient_balance, stale_nonce, max_payout' })) },
              {
                additionalProperties: DetailValue,
                description: 'machine-readable facts: `reason` for GAME_INPUT_REJECTED, and the amounts or limits that applied',
              },
            ),
          ),
        ),
      },
      { description: 'the failure' },
    ),
  },
  {
    description: 'Every failure: the error envelope',
    examples: [
      { error: { code: 'GAME_INPUT_REJECTED', message: 'The wager exceeds the balance (4)', details: { reason: 'insufficient_balance', balance: 4 } } },
    ],
  },
);

/** One x402 payment requirement (x402 v2 `PaymentRequirements`, scheme `exact` on SVM) as the service offers it. */
const X402Requirement = Type.Object(
  {
    scheme: Type.Literal('exact', { description: 'the x402 scheme: a fixed amount' }),
    network: Type.String({ description: 'CAIP-2 network; localnet presents itself as devnet (solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1)' }),
    amount: { ...MicroString, description: 'the amount to pay, micro-USDC, decimal string' },
    asset: { ...Base58Address, description: 'the USDC mint' },
    payTo: { ...Base58Address, description: 'the vault authority: the transfer goes to its USDC associated token account (the vault)' },
    maxTimeoutSeconds: Type.Integer({ description: 'how long the payment may take, seconds' }),
    extra: Type.Object(
      {
        memo: Type.String({ description: 'pfws:v1:x402:<wallet>:<nonce>: the memo the payment must carry (a fresh nonce per offer)' }),
        feePayer: { ...Base58Address, description: "the facilitator's fee payer: it pays the transaction fee and co-signs when it settles the payment" },
      },
      { description: 'SVM specifics' },
    ),
  },
  { description: 'what to pay' },
);

/** A 402: the error envelope with x402's `accepts` and `x402Version` at the top level (design §7). */
export const PaymentRequiredEnvelope = Type.Object(
  {
    error: ErrorEnvelope.properties.error,
    accepts: Type.Array(documented(Type.Record(Type.String(), Type.Unknown(), { description: 'what to pay' }), X402Requirement), {
      description: 'x402 payment requirements; pay accepts[0]',
    }),
    x402Version: Type.Integer({ description: 'the x402 protocol version: 2' }),
    resource: Type.Optional(
      documented(
        Type.Record(Type.String(), Type.Unknown(), { description: 'the resource the payment is for' }),
        Type.Object(
          {
            url: Type.String({ description: 'this route' }),
            description: Type.Optional(Type.String({ description: 'what the payment buys' })),
            mimeType: Type.Optional(Type.String({ description: 'the media type of the paid answer' })),
          },
          { description: 'the resource the payment is for' },
        ),
      ),
    ),
  },
  {
    description: 'Payment required or refused: resend with a fresh payment-signature for accepts[0] (also in the PAYMENT-REQUIRED header, base64)',
    examples: [EX.paymentRequired],
  },
);

/**
 * Response map with the error envelope on every listed error status. 503 SERVICE_UNAVAILABLE (with Retry-After) is
 * on every route: any of them may find Redis or the chain RPC out.
 */
export function responses<T extends Record<number, TSchema>>(ok: T, errors: number[] = [400, 401, 404, 429, 500, 503]) {
  const map: Record<number, TSchema> = { ...ok };
  for (const status of errors) map[status] = ErrorEnvelope;
  return map;
}
