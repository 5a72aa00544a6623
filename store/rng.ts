// The RNG cursor in Redis: the current committed chain (head, next index, highest disclosed index) and the
// next chain, committed ahead of rollover. The commit script hands out indices from it (store/scripts).
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';

export interface RngCursor {
  chainId: number;
  head: string;
  length: number;
  /** The next index to hand out. */
  next: number;
  disclosed: number;
  nextChainId: number | null;
}

/** A chain whose head is committed on-chain. */
export interface CommittedChain {
  chainId: number;
  head: string;
  length: number;
  /** The signature of the `rng-head` memo. */
  signature: string;
}

export class RngStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
  ) {}

  /** The current chain head (`serverSeedHash`), or null before the first chain is committed. */
  async head(): Promise<string | null> {
    return this.redis.hget(this.keys.rng(), 'head');
  }

  async cursor(): Promise<RngCursor | null> {
    const r = await this.redis.hmget(this.keys.rng(), 'chainId', 'head', 'length', 'next', 'disclosed', 'nextChainId');
    if (!r[0]) return null;
    return {
      chainId: Number(r[0]),
      head: r[1] ?? '',
      length: Number(r[2]),
      next: Number(r[3]),
      disclosed: Number(r[4] ?? 0),
      nextChainId: r[5] ? Number(r[5]) : null,
    };
  }

  /** @returns false when a cursor already exists (it is never reset) */
  async setCurrent(chain: CommittedChain): Promise<boolean> {
    return (await this.scripts.setRngChain([this.keys.rng()], [chain.chainId, chain.head, chain.length, chain.signature])) === 1;
  }

  /** @returns false when the current chain moved on or a next chain is already queued */
  async setNext(chain: CommittedChain, currentChainId: number): Promise<boolean> {
    const args = [chain.chainId, chain.head, chain.length, chain.signature, currentChainId];
    return (await this.scripts.setNextRngChain([this.keys.rng()], args)) === 1;
  }
}
