// A leader lease in Redis: one holder at a time (the indexer's leader, the shipper), kept by renewing it before it
// expires and taken over by another holder once it has.
import type { Redis } from 'ioredis';
import type { Scripts } from './scripts.ts';

export class Lease {
  constructor(
    readonly redis: Redis,
    readonly scripts: Scripts,
    readonly key: string,
  ) {}

  /** @returns true when `holderId` holds the lease now */
  async acquire(holderId: string, leaseMs: number): Promise<boolean> {
    return (await this.redis.set(this.key, holderId, 'PX', leaseMs, 'NX')) === 'OK';
  }

  /** @returns false when the lease was lost (expired and taken by another holder) */
  async renew(holderId: string, leaseMs: number): Promise<boolean> {
    return (await this.scripts.renewLease([this.key], [holderId, leaseMs])) === 1;
  }

  /** Gives the lease up, only if `holderId` still holds it. */
  async release(holderId: string): Promise<void> {
    await this.scripts.releaseLease([this.key], [holderId]);
  }
}
