// The one mapping from the service's errors to MCP tool results (design §9, the contract's "MCP envelopes"):
// an agent limit is the tool-layer envelope `{ error, status, limits }`; a PfwsError keeps its REST envelope
// `{ error: { code, message, details? } }`; both inside `structuredContent`, with `isError: true`.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { PfwsError } from '../../protocol/errors.ts';
import { X402Error } from '../../payments/x402.ts';
import { AgentLimitError } from '../../agents/limits.ts';
import { ERROR_STATUS } from '../../schemas/errors.ts';

/** A tool's answer: the structured result and a short summary of it in words. */
export function toolResult(structuredContent: Record<string, unknown>, summary: string, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: summary }],
    structuredContent,
    ...(isError ? { isError: true } : {}),
  };
}

const restEnvelope = (err: PfwsError) => ({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } });

/** The tool result of a failed call; anything that is not one of ours is an INTERNAL envelope that leaks nothing. */
export function toolError(err: unknown, log: FastifyBaseLogger): CallToolResult {
  if (err instanceof AgentLimitError) {
    const hint =
      err.status === 400
        ? ` Reduce betAmount to at most limits.maxBet (${err.limits.maxBet}).`
        : ` Wait for the window to roll over (limits.resetsAt: ${err.limits.resetsAt}) or use read-only tools.`;
    return toolResult({ error: err.message, status: err.status, limits: err.limits }, err.message + hint, true);
  }
  if (err instanceof PfwsError) {
    if (ERROR_STATUS[err.code] >= 500) log.error({ err: err.cause ?? err }, err.message);
    return toolResult(restEnvelope(err), `${err.code}: ${err.message}`, true);
  }
  log.error({ err }, 'mcp tool failed');
  return toolError(new PfwsError('INTERNAL', 'Internal error'), log);
}

/**
 * The error of a paid call: an x402 refusal keeps its code; anything else from the payment path cannot be read as
 * one, so it is MCP_PAYMENT_FAILED (treat as X402_PAYMENT_VERIFICATION_FAILED: mint a fresh payment).
 */
export function paymentError(err: unknown, log: FastifyBaseLogger): CallToolResult {
  if (err instanceof PfwsError) return toolError(err, log);
  if (err instanceof X402Error) {
    const message = err.code === 'X402_CONFIG_ERROR' ? 'The payment service is misconfigured' : err.message;
    return toolError(new PfwsError(err.code, message, { reason: err.reason, ...err.details }, { cause: err }), log);
  }
  log.error({ err }, 'mcp payment failed');
  return toolError(
    new PfwsError(
      'MCP_PAYMENT_FAILED',
      'The payment failed and its error could not be read; treat it as X402_PAYMENT_VERIFICATION_FAILED and mint a fresh payment',
    ),
    log,
  );
}
