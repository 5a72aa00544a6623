// The closed union of error codes, mapped to HTTP status in one place (contract "Errors" + ours).
export const ERROR_STATUS = {
  MISSING_WALLET: 400,
  INVALID_WALLET_ADDRESS: 400,
  INVALID_WALLET_SESSION_REQUEST: 400,
  WALLET_SESSION_REJECTED: 401,
  WALLET_SESSION_REQUIRED: 401,
  X402_PAYMENT_REQUIRED: 402,
  X402_PAYMENT_VERIFICATION_FAILED: 402,
  X402_PAYMENT_SETTLEMENT_FAILED: 402,
  X402_PAYER_MISMATCH: 403,
  X402_CONFIG_ERROR: 500,
  INVALID_BET_AMOUNT: 400,
  GAME_INPUT_REJECTED: 400,
  RECEIPT_NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  // Ours, documented in the README:
  /** The session key was never authorized by a setup memo of this wallet, or was revoked. */
  SESSION_KEY_NOT_AUTHORIZED: 403,
  /** A session signature (commit or reveal) does not verify. */
  INVALID_SESSION_SIGNATURE: 400,
  /** A dependency (chain RPC, RNG chain) is unavailable; retry later. */
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.statusCode = ERROR_STATUS[code];
  }
}

export const gameRejected = (message: string, reason: string, details: Record<string, unknown> = {}) =>
  new ApiError('GAME_INPUT_REJECTED', message, { reason, ...details });
