// The rate limit's shared counters: one per key and window, which every API process leases slots from in chunks.
import type { Redis } from './redis.ts';

export interface Lease {
  /** Slots leased in this window so far, by every process, this lease included. */
  total: number;
  /** Time left in the window. */
  ttlMs: number;
}

export class RateLimitLeases {
  /** @param nameSpace the prefix of every counter (store/keys.ts `rateLimit()`) */
  constructor(
    private readonly redis: Redis,
    private readonly nameSpace: string,
  ) {}

  /**
   * Takes `count` slots of `id`'s window, opening the window (for `windowMs`) if none is open. MULTI keeps the three
   * steps atomic without a script of its own.
   */
  async lease(id: string, count: number, windowMs: number): Promise<Lease> {
    const key = `${this.nameSpace}${id}`;
    const replies = await this.redis.multi().set(key, 0, 'PX', windowMs, 'NX').incrby(key, count).pttl(key).exec();
    if (!replies) throw new Error('the rate-limit lease was aborted');
    for (const [err] of replies) if (err) throw err;
    const total = Number(replies[1]?.[1]);
    const ttl = Number(replies[2]?.[1]);
    return { total, ttlMs: ttl > 0 ? ttl : windowMs };
  }
}
