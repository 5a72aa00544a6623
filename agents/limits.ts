// The agent limits as a domain: the wallet's current window and the tool-layer refusals of design §9.
import type { Address } from '../protocol/address.ts';
import { agentLimitsView, type AgentLimitSettings, type AgentLimitsView } from '../protocol/agent-limits.ts';
import { BaseError } from '../protocol/errors.ts';
import { formatMicro } from '../protocol/money.ts';
import type { AgentStore } from '../store/agents.ts';

export type AgentLimitCode = 'AGENT_MAX_BET' | 'AGENT_WAGER_LIMIT';

/**
 * A play refused at the agent tool layer: over the agent's maximum bet (status 400) or over its wager cap for the
 * window (429). It carries the wallet's limits, so the agent knows what it may still do.
 */
export class AgentLimitError extends BaseError<AgentLimitCode> {
  override readonly name = 'AgentLimitError';

  constructor(
    code: AgentLimitCode,
    message: string,
    readonly status: 400 | 429,
    readonly limits: AgentLimitsView,
  ) {
    super(code, message);
  }
}

export interface AgentLimitsDeps {
  store: Pick<AgentStore, 'window'>;
  settings: AgentLimitSettings;
  clock: () => Date;
}

export class AgentLimits {
  constructor(readonly deps: AgentLimitsDeps) {}

  get settings(): AgentLimitSettings {
    return this.deps.settings;
  }

  /** The wallet's limits now: what is staked in the window, what remains, and when the oldest stake leaves it. */
  async view(wallet: Address): Promise<AgentLimitsView> {
    const { settings, store, clock } = this.deps;
    return agentLimitsView(settings, await store.window(wallet, clock().getTime(), settings.windowMs));
  }

  /**
   * Refuses a stake over the maximum bet, and (as an early answer; the commit script decides atomically) one that
   * would take the window over the cap.
   * @throws {AgentLimitError}
   */
  async check(wallet: Address, stake: bigint): Promise<void> {
    const { settings } = this.deps;
    if (stake > settings.maxBet) {
      throw new AgentLimitError('AGENT_MAX_BET', `Agent bet exceeds ${formatMicro(settings.maxBet)} USDC.`, 400, await this.view(wallet));
    }
    const { store, clock } = this.deps;
    const window = await store.window(wallet, clock().getTime(), settings.windowMs);
    if (window.wagered + stake > settings.maxWagered) throw this.capReached(agentLimitsView(settings, window));
  }

  capReached(limits: AgentLimitsView): AgentLimitError {
    return new AgentLimitError('AGENT_WAGER_LIMIT', 'Agent wager limit reached.', 429, limits);
  }
}
