// The REST side of the one error model (protocol/errors.ts): each code's HTTP status, in one place.
import type { ErrorCode } from '../protocol/errors.ts';

export { ERROR_CODES, type ErrorCode } from '../protocol/errors.ts';

export const ERROR_STATUS: Record<ErrorCode, number> = {
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
  // MCP only (no HTTP status in the contract); a REST route never answers with it.
  MCP_PAYMENT_FAILED: 402,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  /** A dependency (Redis, the chain RPC, the RNG chain) is unavailable; retry later. */
  SERVICE_UNAVAILABLE: 503,
  /** The session key was never authorized by a setup memo of this wallet, or was revoked. */
  SESSION_KEY_NOT_AUTHORIZED: 403,
  /** A session signature (commit or reveal) does not verify. */
  INVALID_SESSION_SIGNATURE: 400,
};
