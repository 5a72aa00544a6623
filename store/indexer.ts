// The indexer's state in Redis: the leader lease, one durable checkpoint per tailed address, and the
// recently active wallets whose memo-only transactions are tailed too.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { Lease } from './lease.ts';
import type { Scripts } from './scripts.ts';

export class IndexerStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {
    this.lease = new Lease(redis, scripts, keys.indexerLease());
  }

  /** The lease that makes one indexer the leader. */
  readonly lease: Lease;

  /** The newest signature of `address` already applied, or null before the first. */
  async checkpoint(address: string): Promise<string | null> {
    return this.redis.get(this.keys.checkpoint(address));
  }

  async setCheckpoint(address: string, signature: string): Promise<void> {
    await this.redis.set(this.keys.checkpoint(address), signature);
  }

  async watchWallet(wallet: string, atMs: number): Promise<void> {
    await this.redis.zadd(this.keys.watchedWallets(), atMs, wallet);
  }

  async unwatchWallet(wallet: string): Promise<void> {
    await this.redis.zrem(this.keys.watchedWallets(), wallet);
  }

  /** Wallets active since `sinceMs`; older ones are forgotten. */
  async watchedWallets(sinceMs: number): Promise<string[]> {
    await this.redis.zremrangebyscore(this.keys.watchedWallets(), 0, sinceMs);
    return this.redis.zrange(this.keys.watchedWallets(), '0', '-1');
  }
}
