// Liveness records of the roles in Redis, so that any API process sees whether an indexer, a worker (and later the
// analytics shipper) is alive wherever it runs: each beats after every pass, and the record expires with it.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { pipelineReplies } from './redis.ts';

/**
 * The roles that beat. The analytics shipper reports `shippedSeq` (the highest journal seq in ClickHouse); the keeper
 * reports whether it may pay (`payouts`: `clear`, `behind` or `unknown`, funding/payout-gate.ts).
 */
export type HeartbeatRole = 'indexer' | 'worker' | 'shipper' | 'keeper';

export interface Heartbeat {
  /** When the last pass ended (ms). */
  at: number;
  /** How often the role beats (ms): a beat older than a few of these means the role stopped. */
  everyMs: number;
  /** What the role reports with each beat (passes, synced slot, shipped seq, ...). */
  fields: Record<string, string>;
}

/** A record outlives its role's last beat by this many intervals, then Redis drops it. */
const EXPIRE_INTERVALS = 20;

export class HeartbeatStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
  ) {}

  /** Records a pass of `role`, with what it reports; a field given once stays until the record expires. */
  async beat(role: HeartbeatRole, everyMs: number, fields: Record<string, string | number> = {}, nowMs = Date.now()): Promise<void> {
    const key = this.keys.heartbeat(role);
    await pipelineReplies(
      this.redis
        .multi()
        .hset(key, { ...fields, at: nowMs, everyMs })
        .pexpire(key, Math.max(60_000, everyMs * EXPIRE_INTERVALS)),
    );
  }

  async read(role: HeartbeatRole): Promise<Heartbeat | null> {
    const raw = await this.redis.hgetall(this.keys.heartbeat(role));
    if (!raw.at) return null;
    const { at, everyMs, ...fields } = raw;
    return { at: Number(at), everyMs: Number(everyMs), fields };
  }

  /** Redis's own liveness: the round trip of one PING, in ms. */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.redis.ping();
    return performance.now() - started;
  }
}
