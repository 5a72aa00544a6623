// An agent's records in Redis: its session key (sealed by the caller, stored once per wallet) and its rolling
// wager window (booked by the commit and ticket-open scripts; read here).
import type { Address } from '../protocol/address.ts';
import type { Redis } from 'ioredis';
import type { AgentWindow } from '../protocol/agent-limits.ts';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';

export class AgentStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {}

  /** The wallet's sealed agent key, or null before the first one is made. */
  async sealedKey(wallet: Address): Promise<string | null> {
    return this.redis.get(this.keys.agentKey(wallet));
  }

  /**
   * Stores `sealed` as the wallet's agent key unless one exists already (two first calls race: one key wins).
   * @returns the wallet's sealed key: `sealed`, or the one stored before
   */
  async saveSealedKey(wallet: Address, sealed: string): Promise<string> {
    const key = this.keys.agentKey(wallet);
    if ((await this.redis.set(key, sealed, 'NX')) === 'OK') return sealed;
    const stored = await this.redis.get(key);
    if (stored === null) throw new Error(`agent key of ${wallet} vanished while it was being created`);
    return stored;
  }

  /** The stakes of the wallet's MCP plays still inside the window ending at `nowMs`. */
  async window(wallet: Address, nowMs: number, windowMs: number): Promise<AgentWindow> {
    const reply = (await this.scripts.agentWindow([this.keys.agentWagers(wallet), this.keys.agentWagered(wallet)], [nowMs, windowMs])) as string[];
    return { wagered: BigInt(reply[0] ?? '0'), oldestMs: reply[1] ? Number(reply[1]) : null };
  }
}
