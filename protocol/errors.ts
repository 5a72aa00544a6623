// One error model: the contract's closed union of codes, one error class over it, and the typed reasons
// the ledger scripts return, each mapped once to a code and a message a client can act on.

/** The contract's codes, then the generic ones of design §5, then ours (documented in the README). */
export const ERROR_CODES = [
  'MISSING_WALLET',
  'INVALID_WALLET_ADDRESS',
  'INVALID_WALLET_SESSION_REQUEST',
  'WALLET_SESSION_REJECTED',
  'WALLET_SESSION_REQUIRED',
  'X402_PAYMENT_REQUIRED',
  'X402_PAYMENT_VERIFICATION_FAILED',
  'X402_PAYMENT_SETTLEMENT_FAILED',
  'X402_PAYER_MISMATCH',
  'X402_CONFIG_ERROR',
  'INVALID_BET_AMOUNT',
  'GAME_INPUT_REJECTED',
  'RECEIPT_NOT_FOUND',
  'MCP_PAYMENT_FAILED',
  'INVALID_REQUEST',
  'NOT_FOUND',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  'SESSION_KEY_NOT_AUTHORIZED',
  'INVALID_SESSION_SIGNATURE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);

/**
 * An error that carries a code from a closed union, a message safe to show, optional details and a cause.
 * @example new BaseError<'A' | 'B'>('A', 'went wrong')
 */
export class BaseError<Code extends string> extends Error {
  override readonly name: string = 'BaseError';

  constructor(
    readonly code: Code,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What an envelope carries beside `error`: a 402's `accepts` and `x402Version`, and the headers that go with it. */
export interface EnvelopeExtras {
  /** Top-level fields of the envelope next to `error` (never `error` itself). */
  fields?: Record<string, unknown>;
  /** Response headers, such as x402's `PAYMENT-REQUIRED`. */
  headers?: Record<string, string>;
}

/** The service's error: every failure a client sees is one of these, turned into an envelope in one place. */
export class PfwsError extends BaseError<ErrorCode> {
  override readonly name = 'PfwsError';
  readonly extras: EnvelopeExtras;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown; extras?: EnvelopeExtras }) {
    super(code, message, details, options);
    this.extras = options?.extras ?? {};
  }

  /** The REST envelope `{ error: { code, message, details? }, ...extras.fields }` (also what MCP tools return). */
  envelope(): Record<string, unknown> {
    const error = this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message };
    return Object.assign({}, this.extras.fields, { error });
  }
}

/** A GAME_INPUT_REJECTED with its stable machine-readable `details.reason`. */
export const gameRejected = (message: string, reason: string, details: Record<string, unknown> = {}): PfwsError =>
  new PfwsError('GAME_INPUT_REJECTED', message, { reason, ...details });

/** The reasons the ledger scripts (store/scripts/*.lua) give when they refuse a change. */
export const LEDGER_REJECTIONS = {
  not_prepared: 'No prepared bet with this betPayloadHash for this wallet (prepare it first; prepared bets expire)',
  not_found: 'No bet with this betPayloadHash for this wallet',
  expired: 'The prepared bet expired; prepare it again',
  stale_nonce: 'The bet nonce is stale: another bet was committed since this one was prepared; prepare again',
  commitment_used: 'This commitment was used before; every bet needs a fresh client seed',
  insufficient_balance: 'The wager exceeds the balance',
  max_bet: 'The wager exceeds house.maxBet',
  max_payout: 'The possible payout exceeds house.maxPayout',
  max_exposure: 'The bet would take the house over maxExposure',
  wallet_exposure: "The bet would take this wallet's open exposure over its share of maxExposure; reveal or finish open bets first",
  house_closed: 'Betting is paused: the house NAV is not positive',
  ticket_not_running: 'The ticket is not running',
  ticket_active: 'A ticket is already active; finish or cash it out first',
  ticket_state: 'This turn cannot be settled: the ticket is not waiting for it',
  turn_pending: 'The previous turn of this ticket still awaits its reveal',
  row_order: 'Choices must be made in row order',
  cashout_zero: 'A cashout needs at least one cleared row',
  session_key: 'The session key is not authorized for this wallet (or was revoked)',
  rng_exhausted: 'No operator RNG chain is committed yet; retry shortly',
  not_idle: 'The ticket had activity within TICKET_IDLE_MS',
  agent_wager_limit: 'Agent wager limit reached.',
  unrevealed_limit: 'Too many committed bets of this wallet await their reveal; reveal them first',
  late: 'The ledger did not answer in time; nothing was written; retry',
} as const;

export type LedgerRejection = keyof typeof LEDGER_REJECTIONS;

export const isLedgerRejection = (value: unknown): value is LedgerRejection => typeof value === 'string' && Object.hasOwn(LEDGER_REJECTIONS, value);

/** The limit a rejection names (micro-USDC as a decimal string), when it names one. */
const DETAIL_FIELD: Partial<Record<LedgerRejection, string>> = {
  insufficient_balance: 'limitMicro',
  max_bet: 'limitMicro',
  max_payout: 'limitMicro',
  max_exposure: 'limitMicro',
  wallet_exposure: 'limitMicro',
  house_closed: 'limitMicro',
  ticket_active: 'ticketId',
  agent_wager_limit: 'wageredMicro',
};

/**
 * The client-facing error of a ledger rejection: an unauthorized key and a missing RNG chain have their own
 * codes; every other reason is a GAME_INPUT_REJECTED naming it.
 */
export function rejectionError(reason: LedgerRejection, detail: string | null = null): PfwsError {
  const message = LEDGER_REJECTIONS[reason];
  if (reason === 'session_key') return new PfwsError('SESSION_KEY_NOT_AUTHORIZED', message);
  if (reason === 'rng_exhausted' || reason === 'late') return new PfwsError('SERVICE_UNAVAILABLE', message);
  const field = DETAIL_FIELD[reason];
  return gameRejected(message, reason, field && detail ? { [field]: detail } : {});
}
