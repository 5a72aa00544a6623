// The agent limits of design §9: a per-wallet maximum bet and a cap on what MCP plays may stake over a rolling
// window. The ledger scripts enforce the cap atomically with each commit and ticket open (store/scripts/_lib.lua).
import { microToNumber } from './money.ts';

export interface AgentLimitSettings {
  /** Largest stake of one MCP play, micro-USDC. @defaultValue 50_000n (0.05 USDC, `AGENT_MAX_BET`) */
  maxBet: bigint;
  /** Most that MCP plays may stake within the window, micro-USDC. @defaultValue 1_000_000n (`AGENT_MAX_WAGERED`) */
  maxWagered: bigint;
  /** Length of the rolling window. @defaultValue 86_400_000 (24 h, `AGENT_WINDOW_MS`) */
  windowMs: number;
}

/** What the ledger holds of a wallet's window: the stakes still in it and when the oldest of them leaves it. */
export interface AgentWindow {
  wagered: bigint;
  /** When the oldest stake in the window was committed (ms), or null when the window is empty. */
  oldestMs: number | null;
}

/** The `limits` object agents see, in USDC decimals. */
export interface AgentLimitsView {
  maxBet: number;
  maxWagered: number;
  wagered: number;
  /** What may still be staked in this window. */
  remaining: number;
  windowMs: number;
  /** When the oldest stake leaves the window and `wagered` goes down: ISO time, or null when nothing is staked. */
  resetsAt: string | null;
}

export function agentLimitsView(settings: AgentLimitSettings, window: AgentWindow): AgentLimitsView {
  const remaining = settings.maxWagered > window.wagered ? settings.maxWagered - window.wagered : 0n;
  return {
    maxBet: microToNumber(settings.maxBet),
    maxWagered: microToNumber(settings.maxWagered),
    wagered: microToNumber(window.wagered),
    remaining: microToNumber(remaining),
    windowMs: settings.windowMs,
    resetsAt: window.oldestMs === null ? null : new Date(window.oldestMs + settings.windowMs).toISOString(),
  };
}
