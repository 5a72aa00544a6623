// Acknowledged means replicated: before an answer goes out, what was written is on REDIS_WAIT_REPLICAS replicas.
import type { Redis } from 'ioredis';
import { PfwsError } from '../protocol/errors.ts';
import { isRedisUnavailable } from './redis.ts';

export interface ReplicationSettings {
  /** Replicas a write must reach; 0 (single node) makes `confirm` a no-op. */
  replicas: number;
  /** How long one WAIT may block (REDIS_WAIT_TIMEOUT_MS). */
  timeoutMs: number;
}

/** What every caller of `confirm` takes: the API before an answer, the worker before it anchors or pays. */
export interface ReplicationBarrier {
  confirm(): Promise<void>;
}

/** Writes that wait for nothing: single-node mode, and tools that call the stores directly. */
export const NO_REPLICATION: ReplicationBarrier = { confirm: async () => {} };

/**
 * Group commit. WAIT covers the writes its own connection made before it, and the replication stream is ordered,
 * so one INCR of a barrier key followed by one WAIT on the same connection covers every write made before the INCR
 * by anyone: on the request paths' connection, by another API process, or by a first attempt answered 503 whose
 * re-send wrote nothing new. So the barrier runs on a connection of its own (WAIT blocks the connection it is sent
 * on). A caller whose write is done joins the next round that starts after it; one round is in flight at a time,
 * so many answers share one WAIT.
 */
export class Replication implements ReplicationBarrier {
  #inFlight: Promise<void> | null = null;
  #next: Promise<void> | null = null;

  constructor(
    readonly redis: Redis,
    readonly barrierKey: string,
    readonly settings: ReplicationSettings,
  ) {}

  /**
   * Resolves once everything written before the call is on the configured replicas.
   * @throws {PfwsError} SERVICE_UNAVAILABLE when they do not acknowledge within the timeout (the write stays on the
   *   primary: a re-send is answered from it, and waits again), or when the primary refuses writes (NOREPLICAS)
   */
  confirm(): Promise<void> {
    if (this.settings.replicas <= 0) return Promise.resolve();
    if (!this.#inFlight) return this.#start();
    // The round in flight may have gone out before this caller's write: the one after it covers the write.
    this.#next ??= this.#inFlight
      .catch(() => undefined)
      .then(() => {
        this.#next = null;
        return this.#start();
      });
    return this.#next;
  }

  #start(): Promise<void> {
    const round = this.#round().finally(() => {
      if (this.#inFlight === round) this.#inFlight = null;
    });
    this.#inFlight = round;
    return round;
  }

  async #round(): Promise<void> {
    const { replicas, timeoutMs } = this.settings;
    let acked: number;
    try {
      // In sequence, not pipelined: an INCR refused (NOREPLICAS, READONLY) must not leave a WAIT blocking the connection.
      await this.redis.incr(this.barrierKey);
      acked = await this.redis.wait(replicas, timeoutMs);
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      throw new PfwsError(
        'SERVICE_UNAVAILABLE',
        'The ledger (Redis) could not confirm that the write reached a replica; send the same request again (it is idempotent)',
        undefined,
        { cause: err },
      );
    }
    if (acked < replicas) {
      throw new PfwsError(
        'SERVICE_UNAVAILABLE',
        `The write is on the Redis primary but ${acked} of ${replicas} replicas acknowledged it within ${timeoutMs} ms; send the same request again (it is idempotent)`,
      );
    }
  }
}
